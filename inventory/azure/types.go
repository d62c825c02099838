package azure

// The Resource Graph tables a listing reads. Resources holds the tracked
// resources of every resource provider; ResourceContainers holds
// subscriptions, resource groups and management groups, which Resources
// does not.
const (
	TableResources          = "Resources"
	TableResourceContainers = "ResourceContainers"
)

// resourceType is where Resource Graph keeps the resources of one
// Terraform type: its table and its ARM type, lower case as Resource
// Graph reports it.
type resourceType struct {
	table, armType string
}

// resourceTypes maps a terraform-provider-azurerm resource type to its
// table and ARM type, for common kinds that carry tags: what narrows a
// listing to the kind. A wrong entry here would hide a resource and let a
// second create run, so only types whose ARM type is certain are listed. A
// type not here is listed across every type of Resources; the
// crossplane-kind tag still narrows it.
var resourceTypes = map[string]resourceType{
	"azurerm_resource_group":             {TableResourceContainers, "microsoft.resources/subscriptions/resourcegroups"},
	"azurerm_virtual_network":            {TableResources, "microsoft.network/virtualnetworks"},
	"azurerm_storage_account":            {TableResources, "microsoft.storage/storageaccounts"},
	"azurerm_key_vault":                  {TableResources, "microsoft.keyvault/vaults"},
	"azurerm_network_security_group":     {TableResources, "microsoft.network/networksecuritygroups"},
	"azurerm_public_ip":                  {TableResources, "microsoft.network/publicipaddresses"},
	"azurerm_network_interface":          {TableResources, "microsoft.network/networkinterfaces"},
	"azurerm_route_table":                {TableResources, "microsoft.network/routetables"},
	"azurerm_dns_zone":                   {TableResources, "microsoft.network/dnszones"},
	"azurerm_private_dns_zone":           {TableResources, "microsoft.network/privatednszones"},
	"azurerm_linux_virtual_machine":      {TableResources, "microsoft.compute/virtualmachines"},
	"azurerm_windows_virtual_machine":    {TableResources, "microsoft.compute/virtualmachines"},
	"azurerm_managed_disk":               {TableResources, "microsoft.compute/disks"},
	"azurerm_kubernetes_cluster":         {TableResources, "microsoft.containerservice/managedclusters"},
	"azurerm_container_registry":         {TableResources, "microsoft.containerregistry/registries"},
	"azurerm_user_assigned_identity":     {TableResources, "microsoft.managedidentity/userassignedidentities"},
	"azurerm_log_analytics_workspace":    {TableResources, "microsoft.operationalinsights/workspaces"},
	"azurerm_servicebus_namespace":       {TableResources, "microsoft.servicebus/namespaces"},
	"azurerm_eventhub_namespace":         {TableResources, "microsoft.eventhub/namespaces"},
	"azurerm_cosmosdb_account":           {TableResources, "microsoft.documentdb/databaseaccounts"},
	"azurerm_mssql_server":               {TableResources, "microsoft.sql/servers"},
	"azurerm_postgresql_flexible_server": {TableResources, "microsoft.dbforpostgresql/flexibleservers"},
}

// ResourceType returns the Resource Graph table that holds the resources
// of the terraform-provider-azurerm resource type tfResource and their
// ARM type (microsoft.network/virtualnetworks), or TableResources and ""
// (every type) for a type this package does not map.
func ResourceType(tfResource string) (table, armType string) {
	if t, ok := resourceTypes[tfResource]; ok {
		return t.table, t.armType
	}
	return TableResources, ""
}
