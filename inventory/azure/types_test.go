package azure

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResourceType(t *testing.T) {
	cases := map[string]struct {
		reason    string
		tf        string
		wantTable string
		wantType  string
	}{
		"ResourceGroup":  {"resource groups are in ResourceContainers", "azurerm_resource_group", TableResourceContainers, "microsoft.resources/subscriptions/resourcegroups"},
		"VirtualNetwork": {"a tracked resource is in Resources", "azurerm_virtual_network", TableResources, "microsoft.network/virtualnetworks"},
		"StorageAccount": {"a tracked resource is in Resources", "azurerm_storage_account", TableResources, "microsoft.storage/storageaccounts"},
		"KeyVault":       {"a tracked resource is in Resources", "azurerm_key_vault", TableResources, "microsoft.keyvault/vaults"},
		"Unmapped":       {"a type not mapped is looked for in Resources across every type", "azurerm_unmapped_thing", TableResources, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			table, armType := ResourceType(tc.tf)
			if diff := cmp.Diff([]string{tc.wantTable, tc.wantType}, []string{table, armType}); diff != "" {
				t.Errorf("%s\nResourceType(%q) (-want +got):\n%s", tc.reason, tc.tf, diff)
			}
		})
	}
}

// TestResourceTypesWellFormed: every entry names a table a listing reads
// and an ARM type in Resource Graph's form (lower case
// namespace/type[/type...]), so that no entry narrows a listing to nothing
// by a typo of form.
func TestResourceTypesWellFormed(t *testing.T) {
	form := regexp.MustCompile(`^microsoft\.[a-z]+(/[a-z]+)+$`)
	for tf, rt := range resourceTypes {
		if rt.table != TableResources && rt.table != TableResourceContainers {
			t.Errorf("%s: table %q, want %q or %q", tf, rt.table, TableResources, TableResourceContainers)
		}
		if !form.MatchString(rt.armType) {
			t.Errorf("%s: ARM type %q is not of the form %s", tf, rt.armType, form)
		}
		if (rt.table == TableResourceContainers) != (rt.armType == "microsoft.resources/subscriptions/resourcegroups") {
			t.Errorf("%s: %s in %s: only resource groups are in %s among the mapped types", tf, rt.armType, rt.table, TableResourceContainers)
		}
	}
}
