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
		"TableOnly":      {"a listing with a table alone lists every type of it", "azurerm_web_pubsub", TableResources, ""},
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
	listings, err := Listings()
	if err != nil {
		t.Fatal(err)
	}
	for tf, x := range listings {
		if len(x.IndexTypes) > 1 {
			t.Errorf("%s: %d index types, a query reads one", tf, len(x.IndexTypes))
		}
		if !x.Listed {
			continue
		}
		table, armType := tableAndType(x)
		if table != TableResources && table != TableResourceContainers {
			t.Errorf("%s: table %q, want %q or %q", tf, table, TableResources, TableResourceContainers)
		}
		if armType != "" && !form.MatchString(armType) {
			t.Errorf("%s: ARM type %q is not of the form %s", tf, armType, form)
		}
		if (table == TableResourceContainers) != (armType == "microsoft.resources/subscriptions/resourcegroups") {
			t.Errorf("%s: %s in %s: only resource groups are in %s among the mapped types", tf, armType, table, TableResourceContainers)
		}
	}
}
