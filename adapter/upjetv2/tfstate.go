package upjetv2

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// frameworkStateID returns the "id" attribute of a Terraform state that
// upjet's framework connector keeps for a terraform-plugin-framework
// resource (AsyncTracker.GetFrameworkTFState): a tfprotov6.DynamicValue
// holding an object, msgpack-encoded as the framework returns it from
// ApplyResourceChange, or JSON-encoded. upjet's GetTfID reads only the
// plugin SDK's InstanceState, so for a framework resource it is always
// empty; this reader is what lets the create callback settle such a
// resource's intent with its ID.
//
// A nil or null state, a state without "id", and an id that is null or
// unknown all give "" and no error: the resource has no ID yet. Bytes that
// are not an object's encoding give an error.
func frameworkStateID(v *tfprotov6.DynamicValue) (string, error) {
	if v == nil {
		return "", nil
	}
	if len(v.MsgPack) > 0 {
		return msgpackStateID(v.MsgPack)
	}
	if len(v.JSON) > 0 {
		return jsonStateID(v.JSON)
	}
	return "", nil
}

// msgpackStateID reads the "id" attribute of a msgpack-encoded object,
// skipping every other attribute without decoding it. Terraform encodes an
// object as a map from attribute names to values, null as nil and an
// unknown value as an extension.
func msgpackStateID(b []byte) (string, error) {
	dec := msgpack.NewDecoder(bytes.NewReader(b))
	n, err := dec.DecodeMapLen()
	if err != nil {
		return "", fmt.Errorf("cannot decode the framework state: not an object: %w", err)
	}
	for i := 0; i < n; i++ { // n is -1 for a null state
		key, err := dec.DecodeString()
		if err != nil {
			return "", fmt.Errorf("cannot decode attribute %d of the framework state: %w", i, err)
		}
		if key != "id" {
			if err := dec.Skip(); err != nil {
				return "", fmt.Errorf("cannot skip attribute %q of the framework state: %w", key, err)
			}
			continue
		}
		c, err := dec.PeekCode()
		if err != nil {
			return "", fmt.Errorf("cannot decode the id of the framework state: %w", err)
		}
		if c == msgpcode.Nil || msgpcode.IsExt(c) {
			return "", nil // null or unknown
		}
		id, err := dec.DecodeString()
		if err != nil {
			return "", fmt.Errorf("cannot decode the id of the framework state: %w", err)
		}
		return id, nil
	}
	return "", nil
}

// jsonStateID reads the "id" attribute of a JSON-encoded object.
func jsonStateID(b []byte) (string, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return "", fmt.Errorf("cannot decode the framework state: not an object: %w", err)
	}
	raw, ok := obj["id"]
	if !ok || string(raw) == "null" {
		return "", nil
	}
	var id string
	if err := json.Unmarshal(raw, &id); err != nil {
		return "", fmt.Errorf("cannot decode the id of the framework state: %w", err)
	}
	return id, nil
}
