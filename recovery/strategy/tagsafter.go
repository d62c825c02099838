package strategy

import "slices"

// AWSTagsAfterCreate are the Terraform resources of terraform-provider-aws
// (main at 5f2286d, 2026-06-02) whose Create tags the cloud resource in a
// call after the one that makes it, always or in some configurations:
// they apply by Terraform type with no call (ShippedTagsAfterCreate); a
// provider declares a kind of its own with upjetv2.TagsAfterCreate. The list comes
// from a scan of every Create function for tag calls, each hit read by
// hand (docs/history/research/issue-32-finders.md §3): a create interrupted
// between the calls leaves an untagged resource, which no listing by tags
// finds.
//
// Always: e.g. aws_route53_zone (CreateHostedZone, wait, then createTags)
// and aws_ami; the six aws_default_* kinds, which adopt an existing
// default resource and tag it by a later update. hack/tagsderive re-reads
// the sources (testdata/tags-at-create-evidence.tsv) and added those six,
// and aws_kinesis_stream and the two security group rule kinds, which it
// reads as tagged after on the code it could get (5.46): the safe answer
// is taken until the pinned source says otherwise. In some configurations: aws_s3_bucket (tags after
// CreateBucket when the principal may not tag on create),
// aws_ssm_parameter (with overwrite), aws_network_interface (with
// prefixes).
var AWSTagsAfterCreate = []string{
	"aws_ami",
	"aws_ami_copy",
	"aws_cloudwatch_log_destination",
	"aws_default_network_acl",
	"aws_default_route_table",
	"aws_default_security_group",
	"aws_default_subnet",
	"aws_default_vpc",
	"aws_default_vpc_dhcp_options",
	"aws_devicefarm_device_pool",
	"aws_devicefarm_instance_profile",
	"aws_devicefarm_network_profile",
	"aws_devicefarm_project",
	"aws_devicefarm_test_grid_project",
	"aws_directory_service_region",
	"aws_dx_hosted_private_virtual_interface_accepter",
	"aws_dx_hosted_public_virtual_interface_accepter",
	"aws_dx_hosted_transit_virtual_interface_accepter",
	"aws_dynamodb_table_replica",
	"aws_ebs_snapshot_import",
	"aws_ec2_transit_gateway_peering_attachment_accepter",
	"aws_ec2_transit_gateway_vpc_attachment_accepter",
	"aws_finspace_kx_environment",
	"aws_finspace_kx_volume",
	"aws_glacier_vault",
	"aws_iam_service_linked_role",
	"aws_inspector_assessment_template",
	"aws_kinesis_stream",
	"aws_lightsail_key_pair",
	"aws_network_interface",
	"aws_route53_health_check",
	"aws_route53_zone",
	"aws_route53domains_domain",
	"aws_route53recoverycontrolconfig_cluster",
	"aws_route53recoverycontrolconfig_control_panel",
	"aws_route53recoverycontrolconfig_safety_rule",
	"aws_route53recoveryreadiness_cell",
	"aws_route53recoveryreadiness_readiness_check",
	"aws_route53recoveryreadiness_recovery_group",
	"aws_route53recoveryreadiness_resource_set",
	"aws_s3_bucket",
	"aws_s3control_bucket",
	"aws_ssm_parameter",
	"aws_vpc_peering_connection_accepter",
	"aws_vpc_security_group_egress_rule",
	"aws_vpc_security_group_ingress_rule",
}

// AWSTagsAfterCreateOutsideCommercial are the terraform-provider-aws
// resources that tag on create in the commercial partition but fall back
// to tagging after the create where the partition does not support tags
// on create (e.g. aws-iso): "For partitions not supporting tag-on-create,
// attempt tag after create." A provider serving such a partition declares
// these too.
var AWSTagsAfterCreateOutsideCommercial = []string{
	"aws_alb",
	"aws_alb_listener",
	"aws_alb_listener_rule",
	"aws_alb_target_group",
	"aws_cloudwatch_composite_alarm",
	"aws_cloudwatch_event_bus",
	"aws_cloudwatch_event_rule",
	"aws_cloudwatch_metric_alarm",
	"aws_cloudwatch_metric_stream",
	"aws_ecr_repository",
	"aws_ecs_capacity_provider",
	"aws_ecs_cluster",
	"aws_ecs_service",
	"aws_ecs_task_definition",
	"aws_ecs_task_set",
	"aws_elasticache_cluster",
	"aws_elasticache_parameter_group",
	"aws_elasticache_replication_group",
	"aws_elasticache_subnet_group",
	"aws_elasticache_user",
	"aws_elasticache_user_group",
	"aws_iam_instance_profile",
	"aws_iam_openid_connect_provider",
	"aws_iam_policy",
	"aws_iam_role",
	"aws_iam_saml_provider",
	"aws_iam_server_certificate",
	"aws_iam_user",
	"aws_iam_virtual_mfa_device",
	"aws_lb",
	"aws_lb_listener",
	"aws_lb_listener_rule",
	"aws_lb_target_group",
	"aws_lb_trust_store",
	"aws_sns_topic",
	"aws_sqs_queue",
	"aws_vpc_endpoint",
}

// GCPTagsAfterCreate are the Terraform resources of
// terraform-provider-google (main at f3721fb, 2026-08-28) whose Create
// sets the labels in a call after the insert ("Labels cannot be set in a
// create. We'll have to set them here.", e.g.
// compute/resource_compute_address.go): a create interrupted in between
// leaves an unlabelled resource (docs/history/research/issue-32-finders.md §3).
var GCPTagsAfterCreate = []string{
	"google_compute_address",
	"google_compute_forwarding_rule",
	"google_compute_global_address",
	"google_compute_global_forwarding_rule",
	"google_compute_interconnect",
	"google_compute_interconnect_attachment",
	"google_compute_security_policy",
	"google_compute_vpn_tunnel",
}

// The values of Facts.TagsAtCreate: when a kind's create sends the tags or
// labels of its spec to the cloud.
const (
	// TagsInRequest: in the request that makes the resource, so a
	// resource the create made carries them.
	TagsInRequest = "request"
	// TagsAfter: in a call after the one that makes it
	// (AWSTagsAfterCreate, GCPTagsAfterCreate): a create interrupted in
	// between leaves an untagged resource.
	TagsAfter = "after"
	// TagsPartitionFallback: in the request in AWS's commercial
	// partition, after it in a partition without tag-on-create
	// (AWSTagsAfterCreateOutsideCommercial).
	TagsPartitionFallback = "partition-fallback"
)

// ShippedTagsAfterCreate reports whether a list this package ships names
// the Terraform resource type tfResource as tagged after its create:
// AWSTagsAfterCreate, AWSTagsAfterCreateOutsideCommercial (a provider may
// serve a partition without tag-on-create) or GCPTagsAfterCreate. The
// adapter applies them to every kind of those types with no call, so that
// an empty listing never clears such a create (adapter.DeriveFinders); a
// provider removes one only with a reason (WithoutTagsAfterCreate).
func ShippedTagsAfterCreate(tfResource string) bool {
	return slices.Contains(AWSTagsAfterCreate, tfResource) || slices.Contains(AWSTagsAfterCreateOutsideCommercial, tfResource) ||
		slices.Contains(GCPTagsAfterCreate, tfResource)
}

// DeclaredTagsAfterCreate reports whether the adapter declares the
// Terraform resource tfResource of provider (aws, gcp, azure) tagged after
// its create with no call: ShippedTagsAfterCreate, whatever the provider
// (Terraform resource types are unique across providers).
func DeclaredTagsAfterCreate(_, tfResource string) bool {
	return ShippedTagsAfterCreate(tfResource)
}
