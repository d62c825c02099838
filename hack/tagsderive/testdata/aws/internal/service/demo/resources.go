package demo

// @SDKResource("aws_demo_request", name="Request")
// @Tags(identifierAttribute="arn")
func resourceRequest() *schema.Resource {
	return &schema.Resource{CreateWithoutTimeout: resourceRequestCreate}
}

func resourceRequestCreate(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	input := &demo.CreateThingInput{
		Name: aws.String(d.Get("name").(string)),
		Tags: getTagsIn(ctx),
	}
	_, err := conn.CreateThing(ctx, input)
	return append(diags, resourceRequestRead(ctx, d, meta)...)
}

// @SDKResource("aws_demo_after", name="After")
func resourceAfter() *schema.Resource {
	return &schema.Resource{CreateWithoutTimeout: resourceAfterCreate}
}

func resourceAfterCreate(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	out, err := conn.CreateThing(ctx, &demo.CreateThingInput{})
	if tags := getTagsIn(ctx); len(tags) > 0 {
		if err := createTags(ctx, conn, aws.ToString(out.Arn), tags); err != nil {
			return diags
		}
	}
	return diags
}

// @SDKResource("aws_demo_partition", name="Partition")
func resourcePartition() *schema.Resource {
	return &schema.Resource{CreateWithoutTimeout: resourcePartitionCreate}
}

func resourcePartitionCreate(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	input := &demo.CreateThingInput{}
	input.Tags = getTagsIn(ctx)
	out, err := conn.CreateThing(ctx, input)
	if input.Tags != nil && errs.IsUnsupportedOperationInPartitionError(meta.(*conns.AWSClient).Partition, err) {
		input.Tags = nil
		out, err = conn.CreateThing(ctx, input)
	}
	if tags := getTagsIn(ctx); input.Tags == nil && len(tags) > 0 {
		err := createTags(ctx, conn, aws.ToString(out.Arn), tags)
		_ = err
	}
	return diags
}

// @SDKResource("aws_demo_unknown", name="Unknown")
func resourceUnknown() *schema.Resource {
	return &schema.Resource{CreateWithoutTimeout: resourceUnknownCreate}
}

func resourceUnknownCreate(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	_, err := conn.CreateThing(ctx, &demo.CreateThingInput{Name: aws.String("x")})
	return diags
}

// @SDKResource("aws_demo_interceptor", name="Interceptor")
// @Tags(identifierAttribute="arn")
func resourceInterceptor() *schema.Resource {
	return &schema.Resource{CreateWithoutTimeout: resourceInterceptorCreate}
}

func resourceInterceptorCreate(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	_, err := conn.CreateThing(ctx, &demo.CreateThingInput{Name: aws.String("x")})
	return diags
}

// @SDKResource("aws_demo_helper", name="Helper")
func resourceHelper() *schema.Resource {
	return &schema.Resource{CreateWithoutTimeout: resourceHelperCreate}
}

func resourceHelperCreate(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	_, err := createThing(ctx, conn, d.Get("name").(string), getTagsIn(ctx))
	return diags
}

// @FrameworkResource("aws_demo_framework", name="Framework")
func newFrameworkResource(context.Context) (resource.ResourceWithConfigure, error) {
	r := &frameworkResource{}
	return r, nil
}

type frameworkResource struct {
	framework.ResourceWithConfigure
}

func (r *frameworkResource) Create(ctx context.Context, request resource.CreateRequest, response *resource.CreateResponse) {
	var input demo.CreateThingInput
	input.Tags = getTagsIn(ctx)
	conn.CreateThing(ctx, &input)
}

// @SDKResource("aws_default_demo", name="Default")
func resourceDefault() *schema.Resource {
	return &schema.Resource{CreateWithoutTimeout: resourceDefaultCreate}
}

func resourceDefaultCreate(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	return resourceDefaultUpdate(ctx, d, meta)
}
