package demo

func (r Registration) SupportedResources() map[string]*pluginsdk.Resource {
	return map[string]*pluginsdk.Resource{
		"azurerm_demo_request": resourceRequest(),
		"azurerm_demo_after":   resourceAfter(),
		"azurerm_demo_unknown": resourceUnknown(),
		"azurerm_demo_dns":     resourceDNS(),
	}
}

func (r Registration) Resources() []sdk.Resource { return []sdk.Resource{TypedResource{}} }

func resourceRequest() *pluginsdk.Resource {
	return &pluginsdk.Resource{Create: resourceRequestCreateUpdate}
}

func resourceRequestCreateUpdate(d *pluginsdk.ResourceData, meta interface{}) error {
	payload := things.Thing{
		Location: location.Normalize(d.Get("location").(string)),
		Tags:     tags.Expand(d.Get("tags").(map[string]interface{})),
	}
	return client.CreateOrUpdateThenPoll(ctx, id, payload)
}

func resourceAfter() *pluginsdk.Resource { return &pluginsdk.Resource{Create: resourceAfterCreate} }

func resourceAfterCreate(d *pluginsdk.ResourceData, meta interface{}) error {
	if err := client.CreateThenPoll(ctx, id, things.Thing{}); err != nil {
		return err
	}
	_, err := client.UpdateTags(ctx, id, things.TagsObject{Tags: tags.Expand(d.Get("tags").(map[string]interface{}))})
	return err
}

func resourceUnknown() *pluginsdk.Resource { return &pluginsdk.Resource{Create: resourceUnknownCreate} }

func resourceUnknownCreate(d *pluginsdk.ResourceData, meta interface{}) error {
	return client.CreateThenPoll(ctx, id, things.Thing{Location: "x"})
}

func resourceDNS() *pluginsdk.Resource { return &pluginsdk.Resource{Create: resourceDNSCreate} }

func resourceDNSCreate(d *pluginsdk.ResourceData, meta interface{}) error {
	t := d.Get("tags").(map[string]interface{})
	parameters := recordsets.RecordSet{Properties: &recordsets.RecordSetProperties{Metadata: tags.Expand(t)}}
	return client.CreateOrUpdate(ctx, id, parameters)
}

type TypedResource struct{}

func (r TypedResource) ResourceType() string { return "azurerm_demo_typed" }

func (r TypedResource) Create() sdk.ResourceFunc {
	return sdk.ResourceFunc{
		Func: func(ctx context.Context, metadata sdk.ResourceMetaData) error {
			var model TypedModel
			properties := things.Thing{Location: model.Location}
			properties.Tags = pointer.To(model.Tags)
			return client.CreateThenPoll(ctx, id, properties)
		},
	}
}

type TypedDataSource struct{}

func (r TypedDataSource) ResourceType() string { return "azurerm_demo_datasource" }
