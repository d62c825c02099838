package demo

// @SDKResource("aws_demo_interceptor_after", name="Interceptor After")
// @Tags(identifierAttribute="arn")
func resourceInterceptorAfter() *schema.Resource {
	return &schema.Resource{CreateWithoutTimeout: resourceInterceptorAfterCreate}
}

func resourceInterceptorAfterCreate(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	_, err := conn.CreateThing(ctx, &demo.CreateThingInput{Name: aws.String("x")})
	return diags
}
