package upjetv2

import (
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/intentjournal/intentjournal/recovery/sdkschema/tfstate"
)

// frameworkStateID returns the "id" attribute of the framework state upjet
// v2's framework connector keeps (AsyncTracker.GetFrameworkTFState), a
// protocol 6 DynamicValue (tfstate.ID); nil gives "".
func frameworkStateID(v *tfprotov6.DynamicValue) (string, error) {
	if v == nil {
		return "", nil
	}
	return tfstate.ID(v.MsgPack, v.JSON)
}
