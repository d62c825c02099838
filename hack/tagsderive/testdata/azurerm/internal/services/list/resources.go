package list

import (
	"github.com/hashicorp/go-azure-sdk/resource-manager/web/2023-12-01/webapps"
	"github.com/hashicorp/terraform-provider-azurerm/internal/services/list/parse"
)

func (r Registration) SupportedResources() map[string]*pluginsdk.Resource {
	return map[string]*pluginsdk.Resource{
		"azurerm_list_widget": resourceWidget(),
		"azurerm_list_secret": resourceSecret(),
		"azurerm_list_parent": resourceParent(),
	}
}

func resourceWidget() *pluginsdk.Resource {
	return &pluginsdk.Resource{Create: resourceWidgetCreate}
}

func resourceWidgetCreate(d *pluginsdk.ResourceData, meta interface{}) error {
	id := parse.NewWidgetID(subscriptionId, d.Get("resource_group_name").(string), d.Get("name").(string))
	payload := widgets.Widget{Tags: tags.Expand(d.Get("tags").(map[string]interface{}))}
	if err := client.CreateOrUpdateThenPoll(ctx, id, payload); err != nil {
		return err
	}
	d.SetId(id.ID())
	return nil
}

func resourceSecret() *pluginsdk.Resource { return &pluginsdk.Resource{Create: resourceSecretCreate} }

func resourceSecretCreate(d *pluginsdk.ResourceData, meta interface{}) error {
	parameters := keyvault.SecretSetParameters{Tags: tags.Expand(d.Get("tags").(map[string]interface{}))}
	read, _ := client.SetSecret(ctx, vaultURI, name, parameters)
	d.SetId(*read.ID)
	return nil
}

func resourceParent() *pluginsdk.Resource { return &pluginsdk.Resource{Create: resourceParentCreate} }

func resourceParentCreate(d *pluginsdk.ResourceData, meta interface{}) error {
	appID := parse.NewWidgetID(subscriptionId, rg, app)
	certID := parse.NewCertID(subscriptionId, rg, name)
	_ = appID
	d.SetId(certID.ID())
	return nil
}

type SlotResource struct{}

func (r SlotResource) ResourceType() string { return "azurerm_list_slot" }

func (r SlotResource) Create() sdk.ResourceFunc {
	return sdk.ResourceFunc{
		Func: func(ctx context.Context, metadata sdk.ResourceMetaData) error {
			id := webapps.NewSlotID(subscriptionId, model.ResourceGroup, model.AppName, model.Name)
			slot := webapps.Site{Tags: pointer.To(model.Tags)}
			if err := client.CreateOrUpdateSlotThenPoll(ctx, id, slot); err != nil {
				return err
			}
			metadata.SetID(id)
			return nil
		},
	}
}
