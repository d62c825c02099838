package list

import (
	"github.com/aws/aws-sdk-go-v2/aws/arn"
	"github.com/aws/aws-sdk-go/service/ec2"
	"github.com/hashicorp/terraform-provider-aws/names"
)

// @SDKResource("aws_list_vpc")
func resourceVPC() *schema.Resource {
	return &schema.Resource{CreateWithoutTimeout: resourceVPCCreate, ReadWithoutTimeout: resourceVPCRead}
}

func resourceVPCCreate(ctx context.Context, d *schema.ResourceData, meta interface{}) diag.Diagnostics {
	input := &ec2.CreateVpcInput{TagSpecifications: getTagSpecificationsIn(ctx, "vpc")}
	output, _ := conn.CreateVpc(ctx, input)
	d.SetId(aws.ToString(output.Vpc.VpcId))
	return nil
}

// @SDKResource("aws_list_zone")
func resourceZone() *schema.Resource {
	return &schema.Resource{CreateWithoutTimeout: resourceZoneCreate, ReadWithoutTimeout: resourceZoneRead}
}

func resourceZoneCreate(ctx context.Context, d *schema.ResourceData, meta interface{}) diag.Diagnostics {
	output, _ := conn.CreateHostedZone(ctx, &route53.CreateHostedZoneInput{})
	d.SetId(cleanZoneID(aws.ToString(output.HostedZone.Id)))
	createTags(ctx, conn, d.Id(), getTagsIn(ctx))
	return nil
}

func resourceZoneRead(ctx context.Context, d *schema.ResourceData, meta interface{}) diag.Diagnostics {
	arn := arn.ARN{
		Partition: meta.(*conns.AWSClient).Partition,
		Service:   "route53",
		Resource:  "hostedzone/" + d.Id(),
	}.String()
	d.Set("arn", arn)
	return nil
}

// @SDKResource("aws_list_queue")
func resourceQueue() *schema.Resource {
	return &schema.Resource{CreateWithoutTimeout: resourceQueueCreate, ReadWithoutTimeout: resourceQueueRead}
}

func resourceQueueCreate(ctx context.Context, d *schema.ResourceData, meta interface{}) diag.Diagnostics {
	input := &sqs.CreateQueueInput{Tags: getTagsIn(ctx)}
	output, _ := conn.CreateQueue(ctx, input)
	d.SetId(aws.ToString(output.QueueUrl))
	return nil
}

func resourceQueueRead(ctx context.Context, d *schema.ResourceData, meta interface{}) diag.Diagnostics {
	d.Set(names.AttrARN, output.Attributes["QueueArn"])
	return nil
}

// @SDKResource("aws_list_group")
func resourceGroup() *schema.Resource {
	return &schema.Resource{Create: resourceGroupCreate}
}

func resourceGroupCreate(d *schema.ResourceData, meta interface{}) error {
	resp, _ := conn.CreateResourceGroup(&inspector.CreateResourceGroupInput{
		ResourceGroupTags: expandResourceGroupTags(d.Get("tags").(map[string]interface{})),
	})
	d.SetId(aws.StringValue(resp.ResourceGroupArn))
	return nil
}

// @SDKResource("aws_list_host")
func resourceHost() *schema.Resource {
	return &schema.Resource{CreateWithoutTimeout: resourceHostCreate}
}

func resourceHostCreate(ctx context.Context, d *schema.ResourceData, meta interface{}) diag.Diagnostics {
	output, _ := conn.AllocateHosts(ctx, &ec2.AllocateHostsInput{TagSpecifications: getTagSpecificationsIn(ctx, "host")})
	id := aws.ToString(output.HostIds[0])
	d.SetId(id)
	d.Set(names.AttrARN, hostARN(meta.(*conns.AWSClient), d.Id()))
	return nil
}

func hostARN(c *conns.AWSClient, id string) string {
	return arn.ARN{Partition: c.Partition, Service: ec2.ServiceName, Region: c.Region, Resource: fmt.Sprintf("dedicated-host/%s", id)}.String()
}

// @SDKResource("aws_list_nested")
func resourceNested() *schema.Resource {
	return &schema.Resource{CreateWithoutTimeout: resourceNestedCreate}
}

func resourceNestedCreate(ctx context.Context, d *schema.ResourceData, meta interface{}) diag.Diagnostics {
	output, _ := conn.CreateEnvironment(ctx, &appconfig.CreateEnvironmentInput{Tags: getTagsIn(ctx)})
	d.SetId(fmt.Sprintf("%s:%s", aws.ToString(output.Id), aws.ToString(output.ApplicationId)))
	arn := arn.ARN{
		Partition: meta.(*conns.AWSClient).Partition,
		Region:    meta.(*conns.AWSClient).Region,
		Service:   "appconfig",
		Resource:  fmt.Sprintf("application/%s/environment/%s", appID, envID),
	}
	d.Set("arn", arn.String())
	return nil
}
