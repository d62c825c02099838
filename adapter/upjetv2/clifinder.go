package upjetv2

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	xpresource "github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/pkg/config"
	ujresource "github.com/crossplane/upjet/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/pkg/terraform"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/recovery"
	tfrecovery "github.com/intentjournal/intentjournal/recovery/terraform"
)

// setupFileName is the file of a finder workspace that configures the
// provider, as upjet's main.tf.json does.
const setupFileName = "intentjournal_setup.tf.json"

// staleFiles are what a finder workspace's last process may have left:
// its import plans are report-only, so nothing lives in its state, and a
// lock info left by a killed plan would refuse every later one.
var staleFiles = []string{"terraform.tfstate", "terraform.tfstate.backup", ".terraform.tfstate.lock.info"}

// WithTerraformCLI lets NewFinders look up the kinds reconciled through
// upjet's Terraform CLI connector (neither r.ShouldUseTerraformPluginSDKClient()
// nor ...FrameworkClient()), which no in-process connector serves, through
// the Terraform CLI at cli (tofu, or terraform >= 1.5): their observe-by-name
// and observe-by-template strategies, and the key probe (WithVacantKeys),
// read through it instead of being report-only.
//
// Lookups are grouped by Terraform resource type and provider setup (the
// Requirement and Configuration the provider's terraform.SetupFn returns for
// the managed resource, what upjet writes into its main.tf.json). Each group
// is served by a recovery/terraform Importer of its own, made at its first
// lookup in a workspace under dir, through its batching Finder: concurrent
// lookups share one `plan` with an import block each (one per batch of
// WithBatchSize, after WithLinger), not one CLI run per intent. The plans
// are report-only (WithReportOnly(true) is always added): nothing is
// imported, the finder only reads. What a plan read becomes the resource
// found: its external name upjet's GetExternalNameFn makes of the
// attributes, its tags, and, where only a weak proof could make it the
// create's, whether applying the create's arguments (every one, as upjet
// writes main.tf.json) would change it: a second plan of those arguments
// against the imported state, never applied (recovery/terraform).
//
// dir must be this process's own, never upjet's per-UID workspaces
// ($TMPDIR/<uid>): the plans run there with locking, and a group's
// workspace starts each process with no state or lock left by the last.
// Credentials in the setup's Configuration are written there (mode 0600),
// as upjet writes them into main.tf.json. The CLI runs with this process's
// environment, as upjet's own runs do, so the provider's CLI configuration
// (TF_CLI_CONFIG_FILE: its filesystem mirror or plugin cache) installs the
// provider; opts may override it (WithFilesystemMirror, WithCLIConfigFile)
// and tune the batches and the log. Do not pass WithProviderConfig: the
// setup configures the provider.
//
// A lookup needs the create's arguments for every required top-level
// argument of the resource (the import block's resource block sets them);
// a sensitive one, which upjet reads from a secret, fails the lookup.
func WithTerraformCLI(cli, dir string, opts ...tfrecovery.Option) FindersOption {
	return adapter.WithLineOption(&terraformCLI{cli: cli, dir: dir, opts: opts})
}

// terraformCLI is what WithTerraformCLI sets up: the groups of the CLI
// kinds' lookups, each made at its first lookup.
type terraformCLI struct {
	cli, dir string
	opts     []tfrecovery.Option

	mu     sync.Mutex
	groups map[string]*cliGroup // by groupKey
}

// terraformCLIOf returns the WithTerraformCLI in opts (the last one given),
// or nil.
func terraformCLIOf(opts []FindersOption) (*terraformCLI, error) {
	var out *terraformCLI
	for _, v := range adapter.LineOptions(opts) {
		if t, ok := v.(*terraformCLI); ok {
			out = t
		}
	}
	if out != nil && (out.cli == "" || out.dir == "") {
		return nil, errors.New("cannot derive the finders: WithTerraformCLI needs the path of the CLI and a directory for its workspaces")
	}
	return out, nil
}

// lookup returns the adapter.LookupFunc of r, a kind reconciled through the
// CLI: the managed resource's setup and Terraform parameters give the
// group, the Terraform ID (r's GetIDFn of the external name) and the
// required arguments of its import block.
func (t *terraformCLI) lookup(kube client.Client, setup terraform.SetupFn, r *config.Resource, newManaged func() xpresource.Managed) adapter.LookupFunc {
	required := requiredArguments(r.TerraformResource)
	tags := tagsAttribute(r.TerraformResource)
	return func(ctx context.Context, c *recovery.Candidate, obj *unstructured.Unstructured, name string) ([]recovery.ExternalResource, error) {
		mg := newManaged()
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.UnstructuredContent(), mg); err != nil {
			return nil, fmt.Errorf("cannot convert the managed resource: %w", err)
		}
		tr, ok := mg.(ujresource.Terraformed)
		if !ok {
			return nil, fmt.Errorf("cannot look up %T: not an upjet Terraformed resource", mg)
		}
		ts, err := setup(ctx, kube, mg)
		if err != nil {
			return nil, fmt.Errorf("cannot build the Terraform setup: %w", err)
		}
		params, err := tr.GetMergedParameters(true)
		if err != nil {
			return nil, fmt.Errorf("cannot get the Terraform parameters: %w", err)
		}
		// As upjet's FileProducer builds main.tf.json (initProvider
		// merged, management policies on): the external name
		// set as the identifier argument, then the conversions.
		if fn := r.ExternalName.SetIdentifierArgumentFn; fn != nil {
			fn(params, name)
		}
		if params, err = r.ApplyTFConversions(params, config.ToTerraform); err != nil {
			return nil, fmt.Errorf("cannot apply the Terraform conversions: %w", err)
		}
		q := cliQuery{externalName: r.ExternalName.GetExternalNameFn}
		if q.importID, err = r.ExternalName.GetIDFn(ctx, name, params, ts.Map()); err != nil {
			return nil, fmt.Errorf("cannot build the Terraform ID of external name %q: %w", name, err)
		}
		if q.attrs, err = requiredValues(required, params); err != nil {
			return nil, fmt.Errorf("cannot look up %s: %w", c.Intent.Resource, err)
		}
		// Every argument, as upjet writes main.tf.json: what a
		// comparison plans against a resource only a weak proof makes
		// the create's.
		q.args = params
		g, err := t.group(r.Name, required, tags, ts)
		if err != nil {
			return nil, err
		}
		return g.find(ctx, c, q)
	}
}

// group returns the group of tfType under setup ts, made at its first
// lookup.
func (t *terraformCLI) group(tfType string, required []string, tags string, ts terraform.Setup) (*cliGroup, error) {
	key, err := groupKey(tfType, ts)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if g := t.groups[key]; g != nil {
		return g, nil
	}
	setupFile, err := setupConfig(ts)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(t.dir, key)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the finder workspace %s: %w", dir, err)
	}
	for _, f := range staleFiles {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("cannot clear the finder workspace %s: %w", dir, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, setupFileName), setupFile, 0o600); err != nil {
		return nil, fmt.Errorf("cannot write the provider setup of the finder workspace %s: %w", dir, err)
	}
	g := &cliGroup{queries: map[*recovery.Candidate]cliQuery{}}
	rt := tfrecovery.ResourceType{Type: tfType, Required: required, TagsAttribute: tags,
		ImportID: g.importID, Attributes: g.attributes, Arguments: g.arguments, ExternalName: g.externalName}
	opts := append(slices.Clip(t.opts), tfrecovery.WithReportOnly(true))
	if g.im, err = tfrecovery.New(dir, t.cli, rt, opts...); err != nil {
		return nil, err
	}
	if t.groups == nil {
		t.groups = map[string]*cliGroup{}
	}
	t.groups[key] = g
	return g, nil
}

// cliGroup is the lookups of one Terraform resource type under one
// provider setup, served by one Importer.
type cliGroup struct {
	im *tfrecovery.Importer

	mu      sync.Mutex
	queries map[*recovery.Candidate]cliQuery // of the lookups under way
}

// cliQuery is what one lookup asks the Importer, beyond its candidate.
type cliQuery struct {
	importID     string
	attrs        map[string]any
	args         map[string]any
	externalName config.GetExternalNameFn
}

// find looks c up through the group's batching Finder. c is copied, so
// that two lookups on behalf of one candidate each have their own query.
func (g *cliGroup) find(ctx context.Context, c *recovery.Candidate, q cliQuery) ([]recovery.ExternalResource, error) {
	own := *c
	g.mu.Lock()
	g.queries[&own] = q
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		delete(g.queries, &own)
		g.mu.Unlock()
	}()
	return g.im.Finder().Find(ctx, &own)
}

func (g *cliGroup) query(c *recovery.Candidate) (cliQuery, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	q, ok := g.queries[c]
	if !ok {
		return q, fmt.Errorf("%s: its lookup was abandoned", c.Intent.Resource)
	}
	return q, nil
}

func (g *cliGroup) importID(c *recovery.Candidate) (string, error) {
	q, err := g.query(c)
	return q.importID, err
}

func (g *cliGroup) attributes(c *recovery.Candidate) (map[string]any, error) {
	q, err := g.query(c)
	return q.attrs, err
}

func (g *cliGroup) arguments(c *recovery.Candidate) (map[string]any, error) {
	q, err := g.query(c)
	return q.args, err
}

// externalName is upjet's GetExternalNameFn of the kind on the attributes
// the plan read: the external name upjet itself would set.
func (g *cliGroup) externalName(c *recovery.Candidate, attrs map[string]any) (string, error) {
	q, err := g.query(c)
	if err != nil {
		return "", err
	}
	if q.externalName == nil {
		id, _ := attrs["id"].(string)
		return id, nil
	}
	return q.externalName(attrs)
}

// groupKey names the group of tfType under setup ts, and its workspace
// directory: the type and a digest of the provider requirement and
// configuration, the parts of the setup the workspace's files hold.
func groupKey(tfType string, ts terraform.Setup) (string, error) {
	b, err := json.Marshal(struct {
		Requirement   terraform.ProviderRequirement
		Configuration terraform.ProviderConfiguration
	}{ts.Requirement, ts.Configuration})
	if err != nil {
		return "", fmt.Errorf("cannot encode the Terraform setup: %w", err)
	}
	sum := sha256.Sum256(append([]byte(tfType+"\x00"), b...))
	return tfType + "-" + hex.EncodeToString(sum[:8]), nil
}

// setupConfig returns the terraform and provider blocks of ts in Terraform's
// JSON syntax, as upjet's FileProducer writes them into main.tf.json: the
// provider's local name is Requirement.LocalName, else the last segment of
// its source. JSON leaves Terraform to tell a nested block from a map
// attribute by the provider's schema, as it does for upjet's file.
func setupConfig(ts terraform.Setup) ([]byte, error) {
	source := ts.Requirement.Source
	if source == "" {
		return nil, errors.New("cannot configure the finder workspace: the Terraform setup names no provider source (Requirement.Source)")
	}
	name := ts.Requirement.LocalName
	if name == "" {
		name = source[strings.LastIndex(source, "/")+1:]
	}
	req := map[string]string{"source": source}
	if ts.Requirement.Version != "" {
		req["version"] = ts.Requirement.Version
	}
	conf := ts.Configuration
	if conf == nil {
		conf = terraform.ProviderConfiguration{}
	}
	b, err := json.MarshalIndent(map[string]any{
		"terraform": map[string]any{"required_providers": map[string]any{name: req}},
		"provider":  map[string]any{name: conf},
	}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("cannot encode the provider configuration: %w", err)
	}
	return append(b, '\n'), nil
}

// requiredArguments returns the required top-level arguments of a
// Terraform resource schema that are not blocks, sorted: what an import
// block's resource block must set.
func requiredArguments(r *schema.Resource) []string {
	if r == nil {
		return nil
	}
	var out []string
	for k, s := range r.Schema {
		if s == nil || !s.Required {
			continue
		}
		if _, block := s.Elem.(*schema.Resource); block {
			continue
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// requiredValues returns the values of the required arguments in params,
// the Terraform parameters of the create.
func requiredValues(required []string, params map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(required))
	for _, k := range required {
		v, ok := params[k]
		if !ok || v == nil {
			return nil, fmt.Errorf("its create's arguments lack the required argument %s", k)
		}
		out[k] = v
	}
	return out, nil
}

// tagsAttribute returns the attribute that holds a resource's tags: tags,
// else labels, as the in-process observations are read (adapter's
// ObservedResource).
func tagsAttribute(r *schema.Resource) string {
	if r != nil {
		for _, k := range []string{"tags", "labels"} {
			if _, ok := r.Schema[k]; ok {
				return k
			}
		}
	}
	return "tags"
}
