package scan

import "regexp"

// A rule of the "already exists" matcher: a cloud's way of saying that a
// create found its key taken.
type existsRule struct {
	// name is the rule's name, as AlreadyExists returns it.
	name string
	re   *regexp.Regexp
}

// existsRules are the messages that say a create met "already exists",
// from the clouds of provider-upjet-aws, -gcp and -azure and the fake
// cloud, through upjet's and crossplane-runtime's wrapping. The table is
// tested on each cloud's own messages (alreadyexists_test.go), and on the
// 409s that are not "already exists": those are left out on purpose.
//
// A bare "409" is not enough: AWS S3 answers 409 OperationAborted to a
// conditional operation in progress, Azure 409 AnotherOperationInProgress,
// GCP 409 resourceNotReady. None means the key is taken, and pausing such a
// managed resource would stop it for nothing; it is still a candidate when
// its async create failed (AsyncCreateFailed).
var existsRules = []existsRule{
	// "already exists" in words or as a code: GCP's googleapi reason
	// alreadyExists, gRPC's ALREADY_EXISTS, AWS's EntityAlreadyExists,
	// BucketAlreadyExists, ResourceAlreadyExistsException,
	// DBInstanceAlreadyExists, Azure's 409 "... already exists" and
	// azurerm's "A resource with the ID ... already exists - to be managed
	// via Terraform this resource needs to be imported into the State".
	{name: "already-exists", re: regexp.MustCompile(`(?i)already[ _-]?exists`)},
	// AWS S3: the bucket exists and this account owns it: the create's
	// own bucket, most likely.
	{name: "already-owned-by-you", re: regexp.MustCompile(`(?i)already[ _-]?owned[ _-]?by[ _-]?you`)},
	// AWS EC2's duplicate codes: InvalidGroup.Duplicate,
	// InvalidPermission.Duplicate, InvalidKeyPair.Duplicate, ...
	{name: "ec2-duplicate", re: regexp.MustCompile(`\b[A-Za-z]+\.Duplicate\b`)},
	// Azure: a globally unique name taken (StorageAccountAlreadyTaken,
	// "The storage account named x is already taken").
	{name: "already-taken", re: regexp.MustCompile(`(?i)already[ _-]?taken`)},
	// Microsoft Entra ID (azuread): ObjectConflict, "Another object with
	// the same value for property ... already exists" is matched above;
	// the code alone is matched here.
	{name: "object-conflict", re: regexp.MustCompile(`\bObjectConflict\b`)},
}

// AlreadyExists reports whether message, the message of a managed
// resource's condition, says that a create met "already exists", and which
// rule of the table said so. See existsRules for what counts and what is
// left out.
func AlreadyExists(message string) (rule string, ok bool) {
	for _, r := range existsRules {
		if r.re.MatchString(message) {
			return r.name, true
		}
	}
	return "", false
}

// createFailed matches the prefixes crossplane-runtime and upjet give a
// failed create in the Synced condition: "create failed" (crossplane-runtime
// v1.14 and later, v2; upjet's async callback), "cannot create external
// resource" (earlier crossplane-runtime), and upjet's "async create
// failed". An update's or a delete's failure ("update failed", "async
// delete failed") does not match: its key was taken long ago, by this
// managed resource.
var createFailed = regexp.MustCompile(`(?i)(\bcreate failed\b|cannot create external resource)`)

// CreateFailed reports whether message, the message of a Synced
// condition, is that of a failed create.
func CreateFailed(message string) bool { return createFailed.MatchString(message) }
