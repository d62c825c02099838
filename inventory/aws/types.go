package aws

// resourceTypes maps a terraform-provider-aws resource type to the
// Tagging API's ResourceTypeFilters ("service:resource-type", as in the
// resource's ARN) for the kinds whose ID the cloud assigns and that carry
// tags: what narrows a listing to the kind. A type not here is listed
// across every resource type; the crossplane-kind tag still narrows it.
var resourceTypes = map[string][]string{
	"aws_vpc":                          {"ec2:vpc"},
	"aws_subnet":                       {"ec2:subnet"},
	"aws_security_group":               {"ec2:security-group"},
	"aws_internet_gateway":             {"ec2:internet-gateway"},
	"aws_nat_gateway":                  {"ec2:natgateway"},
	"aws_route_table":                  {"ec2:route-table"},
	"aws_network_interface":            {"ec2:network-interface"},
	"aws_eip":                          {"ec2:elastic-ip"},
	"aws_instance":                     {"ec2:instance"},
	"aws_ebs_volume":                   {"ec2:volume"},
	"aws_launch_template":              {"ec2:launch-template"},
	"aws_vpc_endpoint":                 {"ec2:vpc-endpoint"},
	"aws_ec2_transit_gateway":          {"ec2:transit-gateway"},
	"aws_route53_zone":                 {"route53:hostedzone"},
	"aws_route53_health_check":         {"route53:healthcheck"},
	"aws_eks_pod_identity_association": {"eks:podidentityassociation"},
	"aws_efs_file_system":              {"elasticfilesystem:file-system"},
	"aws_efs_access_point":             {"elasticfilesystem:access-point"},
	"aws_lb":                           {"elasticloadbalancing:loadbalancer"},
	"aws_lb_target_group":              {"elasticloadbalancing:targetgroup"},
	"aws_cloudfront_distribution":      {"cloudfront:distribution"},
	"aws_apigatewayv2_api":             {"apigateway:/apis"},
	"aws_cognito_user_pool":            {"cognito-idp:userpool"},
	"aws_secretsmanager_secret":        {"secretsmanager:secret"},
	"aws_kms_key":                      {"kms:key"},
}

// ResourceTypes returns the Tagging API's ResourceTypeFilters for the
// terraform-provider-aws resource type tfResource, or nil (every type)
// for one this package does not map.
func ResourceTypes(tfResource string) []string {
	return resourceTypes[tfResource]
}
