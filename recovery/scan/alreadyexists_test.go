package scan

import "testing"

// TestAlreadyExists holds the matcher to each cloud's own messages, as
// provider-upjet-aws, -gcp and -azure and the fake cloud surface them
// through upjet and crossplane-runtime, and to the 409s that are not
// "already exists".
func TestAlreadyExists(t *testing.T) {
	cases := map[string]struct {
		reason   string
		message  string
		wantRule string // "" when it must not match
	}{
		"GCPAlreadyExists": {
			reason:   "terraform-provider-google's 409 carries googleapi's reason alreadyExists",
			message:  "create failed: async create failed: failed to create the resource: [{0 Error creating DNS RecordSet: googleapi: Error 409: The resource 'entity.change.additions[rec-00001.example.com.][A]' named 'rec-00001.example.com. (A)' already exists, alreadyExists  []}]",
			wantRule: "already-exists",
		},
		"GCPReasonOnly": {
			reason:   "the reason code alone, as some GCP APIs put it",
			message:  "googleapi: Error 409: Requested entity alreadyExists",
			wantRule: "already-exists",
		},
		"AWSEntityAlreadyExists": {
			reason:   "IAM, through aws-sdk-go-v2",
			message:  "create failed: async create failed: failed to create the resource: [{0 creating IAM Role (app): operation error IAM: CreateRole, https response error StatusCode: 409, RequestID: 4d5e, EntityAlreadyExists: Role with name app already exists.  []}]",
			wantRule: "already-exists",
		},
		"AWSBucketAlreadyOwnedByYou": {
			reason:   "S3: the bucket is this account's, most likely the create's own",
			message:  "create failed: async create failed: failed to create the resource: [{0 creating S3 Bucket (logs): operation error S3: CreateBucket, https response error StatusCode: 409, RequestID: 9A, HostID: x, BucketAlreadyOwnedByYou: Your previous request to create the named bucket succeeded and you already own it.  []}]",
			wantRule: "already-owned-by-you",
		},
		"AWSResourceAlreadyExistsException": {
			reason:   "CloudWatch Logs and others",
			message:  "creating CloudWatch Logs Log Group (/app): operation error CloudWatch Logs: CreateLogGroup, https response error StatusCode: 400, ResourceAlreadyExistsException: The specified log group already exists",
			wantRule: "already-exists",
		},
		"AWSEC2Duplicate": {
			reason:   "EC2's duplicate codes say it without the words",
			message:  "creating Security Group (web): operation error EC2: CreateSecurityGroup, https response error StatusCode: 400, RequestID: 1, api error InvalidGroup.Duplicate: The security group 'web' already exists for VPC 'vpc-1'",
			wantRule: "already-exists",
		},
		"AWSEC2DuplicateCodeOnly": {
			reason:   "the code alone",
			message:  "api error InvalidPermission.Duplicate: the specified rule is a duplicate",
			wantRule: "ec2-duplicate",
		},
		"AzureImportAsExists": {
			reason:   "azurerm checks for the resource first and refuses to create over it",
			message:  `create failed: async create failed: failed to create the resource: [{0 A resource with the ID "/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet" already exists - to be managed via Terraform this resource needs to be imported into the State.  []}]`,
			wantRule: "already-exists",
		},
		"AzureAlreadyTaken": {
			reason:   "a globally unique name someone holds",
			message:  `storage.AccountsClient#Create: Failure sending request: StatusCode=409 -- Original Error: Code="StorageAccountAlreadyTaken" Message="The storage account named logs is already taken."`,
			wantRule: "already-taken",
		},
		"EntraObjectConflict": {
			reason:   "azuread's conflict code",
			message:  "Creating group: unexpected status 400 with OData error: ObjectConflict: A conflicting object with one or more of the specified property values is present in the directory.",
			wantRule: "object-conflict",
		},
		"GRPC": {
			reason:   "gRPC's status code name",
			message:  "rpc error: code = ALREADY_EXISTS desc = instance exists",
			wantRule: "already-exists",
		},
		"FakeCloud": {
			reason:   "the fake cloud's 409, as its Terraform provider reports it",
			message:  `create failed: async create failed: failed to create the resource: [{0 recordset "www" already exists in zone "example-com"  []}]`,
			wantRule: "already-exists",
		},
		"S3OperationAborted": {
			reason:  "a 409 for a conditional operation in progress: the key is not taken",
			message: "https response error StatusCode: 409, RequestID: 1, OperationAborted: A conflicting conditional operation is currently in progress against this resource. Please try again.",
		},
		"AzureAnotherOperationInProgress": {
			reason:  "a 409 for an operation in progress",
			message: `StatusCode=409 Code="AnotherOperationInProgress" Message="Another operation on this or dependent resource is in progress."`,
		},
		"GCPResourceNotReady": {
			reason:  "a 409 for a resource not ready",
			message: "googleapi: Error 409: The resource 'projects/p/global/networks/n' is not ready, resourceNotReady",
		},
		"Bare409": {
			reason:  "a status code alone says nothing of a taken key",
			message: "create failed: https response error StatusCode: 409, RequestID: 1",
		},
		"CreateIncomplete": {
			reason:  "crossplane-runtime holding a pending create is no loop on already exists",
			message: "cannot determine creation result - remove the crossplane.io/external-create-pending annotation if it is safe to proceed",
		},
		"Timeout": {
			reason:  "an async create that timed out",
			message: "create failed: async create failed: failed to create the resource: [{0 context deadline exceeded  []}]",
		},
		"NotYet": {
			reason:  "a word that only looks close",
			message: "the zone does not exist yet",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rule, ok := AlreadyExists(tc.message)
			if rule != tc.wantRule || ok != (tc.wantRule != "") {
				t.Errorf("%s\nAlreadyExists(%q) = %q, %v; want %q, %v", tc.reason, tc.message, rule, ok, tc.wantRule, tc.wantRule != "")
			}
		})
	}
}

// TestCreateFailed holds the create prefixes of crossplane-runtime and
// upjet apart from an update's and a delete's.
func TestCreateFailed(t *testing.T) {
	cases := map[string]struct {
		reason  string
		message string
		want    bool
	}{
		"UpjetAsync":       {"upjet's async callback wraps with crossplane-runtime's create failed", "create failed: async create failed: failed to create the resource: [...]", true},
		"AsyncOnly":        {"upjet's own wrapping alone", "async create failed: failed to create the resource", true},
		"RuntimeV1":        {"crossplane-runtime before v1.14", "cannot create external resource: already exists", true},
		"Update":           {"an update that met already exists took no new key", "update failed: async update failed: already exists", false},
		"Delete":           {"a delete", "delete failed: async delete failed: 409", false},
		"Observe":          {"an observe", "observe failed: cannot run refresh", false},
		"RecreateFailedNo": {"a word that contains create", "recreated failedover", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := CreateFailed(tc.message); got != tc.want {
				t.Errorf("%s\nCreateFailed(%q) = %v, want %v", tc.reason, tc.message, got, tc.want)
			}
		})
	}
}
