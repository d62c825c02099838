package list

func init() {
	registry.Schema{Name: "google_list_network", Type: registry.SchemaTypeResource, Schema: ResourceNetwork()}.Register()
	registry.Schema{Name: "google_list_policy", Type: registry.SchemaTypeResource, Schema: ResourcePolicy()}.Register()
	registry.Schema{Name: "google_list_template", Type: registry.SchemaTypeResource, Schema: ResourceTemplate()}.Register()
	registry.Schema{Name: "google_list_client", Type: registry.SchemaTypeResource, Schema: ResourceClient()}.Register()
}

func ResourceNetwork() *schema.Resource { return &schema.Resource{Create: resourceNetworkCreate} }

func resourceNetworkCreate(d *schema.ResourceData, meta interface{}) error {
	obj := make(map[string]interface{})
	obj["labels"] = labelsProp
	url, err := tpgresource.ReplaceVars(d, config, "{{ComputeBasePath}}projects/{{project}}/global/networks")
	_, err = transport_tpg.SendRequest(transport_tpg.SendRequestOptions{Method: "POST", RawURL: url, Body: obj})
	id, err := tpgresource.ReplaceVars(d, config, "projects/{{project}}/global/networks/{{name}}")
	d.SetId(id)
	return nil
}

func ResourcePolicy() *schema.Resource { return &schema.Resource{Create: resourcePolicyCreate} }

func resourcePolicyCreate(d *schema.ResourceData, meta interface{}) error {
	obj := make(map[string]interface{})
	obj["userLabels"] = userLabelsProp
	url, err := tpgresource.ReplaceVars(d, config, transport_tpg.BaseUrl(Product, config)+"projects/{{project}}/alertPolicies?policyId={{name}}")
	_, err = transport_tpg.SendRequest(transport_tpg.SendRequestOptions{Method: "POST", RawURL: url, Body: obj})
	id, err := tpgresource.ReplaceVars(d, config, "{{name}}")
	d.SetId(id)
	return nil
}

func ResourceTemplate() *schema.Resource { return &schema.Resource{Create: resourceTemplateCreate} }

func resourceTemplateCreate(d *schema.ResourceData, meta interface{}) error {
	properties, err := expandProperties(d)
	url, err := tpgresource.ReplaceVars(d, config, "{{ComputeBasePath}}projects/{{project}}/global/instanceTemplates")
	_, err = transport_tpg.SendRequest(transport_tpg.SendRequestOptions{Method: "POST", RawURL: url, Body: properties})
	return nil
}

func expandProperties(d *schema.ResourceData) (*compute.InstanceProperties, error) {
	instanceProperties := &compute.InstanceProperties{}
	instanceProperties.Labels = tpgresource.ExpandEffectiveLabels(d)
	return instanceProperties, nil
}

func ResourceClient() *schema.Resource { return &schema.Resource{Create: resourceClientCreate} }

func resourceClientCreate(d *schema.ResourceData, meta interface{}) error {
	cluster := &dataproc.Cluster{Labels: tpgresource.ExpandEffectiveLabels(d)}
	_, err := config.NewDataprocClient(userAgent).Projects.Regions.Clusters.Create(project, region, cluster).Do()
	return err
}
