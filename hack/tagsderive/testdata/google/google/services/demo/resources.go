package demo

func init() {
	registry.Schema{Name: "google_demo_request", Type: registry.SchemaTypeResource, Schema: ResourceRequest()}.Register()
	registry.Schema{Name: "google_demo_after", Type: registry.SchemaTypeResource, Schema: ResourceAfter()}.Register()
	registry.Schema{Name: "google_demo_both", Type: registry.SchemaTypeResource, Schema: ResourceBoth()}.Register()
	registry.Schema{Name: "google_demo_unknown", Type: registry.SchemaTypeResource, Schema: ResourceUnknown()}.Register()
	registry.Schema{Name: "google_demo_typed", Type: registry.SchemaTypeResource, Schema: ResourceTyped()}.Register()
	registry.Schema{Name: "google_demo_request", Type: registry.SchemaTypeDataSource, Schema: DataSourceRequest()}.Register()
}

func ResourceRequest() *schema.Resource { return &schema.Resource{Create: resourceRequestCreate} }

func resourceRequestCreate(d *schema.ResourceData, meta interface{}) error {
	obj := make(map[string]interface{})
	labelsProp, err := expandEffectiveLabels(d.Get("effective_labels"), d, config)
	if err != nil {
		return err
	} else if v, ok := d.GetOkExists("effective_labels"); ok {
		obj["labels"] = labelsProp
	}
	_, err = transport_tpg.SendRequest(transport_tpg.SendRequestOptions{Method: "POST", Body: obj})
	return resourceRequestRead(d, meta)
}

func ResourceAfter() *schema.Resource { return &schema.Resource{Create: resourceAfterCreate} }

func resourceAfterCreate(d *schema.ResourceData, meta interface{}) error {
	obj := make(map[string]interface{})
	_, err := transport_tpg.SendRequest(transport_tpg.SendRequestOptions{Method: "POST", Body: obj})
	if v, ok := d.GetOkExists("effective_labels"); ok {
		obj := make(map[string]interface{})
		obj["labels"] = v
		url, err := tpgresource.ReplaceVars(d, config, "{{BasePath}}projects/{{project}}/things/{{name}}/setLabels")
		_, err = transport_tpg.SendRequest(transport_tpg.SendRequestOptions{Method: "POST", RawURL: url, Body: obj})
	}
	return nil
}

func ResourceBoth() *schema.Resource { return &schema.Resource{Create: resourceBothCreate} }

func resourceBothCreate(d *schema.ResourceData, meta interface{}) error {
	obj := make(map[string]interface{})
	obj["labels"] = d.Get("effective_labels")
	_, err := transport_tpg.SendRequest(transport_tpg.SendRequestOptions{Method: "POST", Body: obj})
	if v, ok := d.GetOkExists("effective_labels"); ok {
		url, err := tpgresource.ReplaceVars(d, config, "{{BasePath}}things/{{name}}/setLabels")
		_, _ = url, err
	}
	return nil
}

func ResourceUnknown() *schema.Resource { return &schema.Resource{Create: resourceUnknownCreate} }

func resourceUnknownCreate(d *schema.ResourceData, meta interface{}) error {
	tpgresource.SetLabels(d.Get("labels"), d, "labels")
	return nil
}

func ResourceTyped() *schema.Resource { return &schema.Resource{Create: resourceTypedCreate} }

func resourceTypedCreate(d *schema.ResourceData, meta interface{}) error {
	project := &cloudresourcemanager.Project{Name: d.Get("name").(string)}
	if _, ok := d.GetOk("effective_labels"); ok {
		project.Labels = tpgresource.ExpandEffectiveLabels(d)
	}
	return nil
}
