package adapter

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

// CLISetup is the provider setup a finder workspace is configured with:
// the parts of upjet's terraform.Setup that its FileProducer writes into
// main.tf.json (the requirement and the provider configuration).
type CLISetup struct {
	// Source, Version and LocalName are the provider requirement's; an
	// empty LocalName is the last segment of Source.
	Source, Version, LocalName string
	// Configuration is the provider block.
	Configuration map[string]any
}

// CLIResource is a Terraform resource type looked up through the CLI.
type CLIResource struct {
	// Type is the Terraform resource type.
	Type string
	// Required are its required top-level arguments that are not blocks
	// (sdkschema.RequiredArguments): what an import block's resource
	// block must set.
	Required []string
	// TagsAttribute is the attribute that holds its tags
	// (sdkschema.TagsAttribute).
	TagsAttribute string
}

// CLIQuery is what one lookup asks, beyond its candidate.
type CLIQuery struct {
	// ImportID is the Terraform ID the import block imports.
	ImportID string
	// Attributes are the values of CLIResource.Required (RequiredValues).
	Attributes map[string]any
	// Arguments are every argument of the create, as upjet writes
	// main.tf.json: what a comparison plans against a resource only a
	// weak proof makes the create's.
	Arguments map[string]any
	// ExternalName is the kind's GetExternalNameFn, which makes the
	// external name of the attributes the plan read; nil takes "id".
	ExternalName func(attrs map[string]any) (string, error)
}

// CLILookups looks up the kinds a line reconciles through upjet's
// Terraform CLI connector, which no in-process connector serves, through
// the Terraform CLI (tofu, or terraform >= 1.5).
//
// Lookups are grouped by Terraform resource type and provider setup. Each
// group is served by a recovery/terraform Importer of its own, made at its
// first lookup in a workspace under the directory, through its batching
// Finder: concurrent lookups share one plan with an import block each, not
// one CLI run per intent. The plans are report-only
// (tfrecovery.WithReportOnly(true) is always added): nothing is imported.
// What a plan read becomes the resource found: its external name
// (CLIQuery.ExternalName), its tags, and, where only a weak proof could
// make it the create's, whether applying the create's arguments would
// change it.
//
// The directory must be this process's own, never upjet's per-UID
// workspaces: the plans run there with locking, and a group's workspace
// starts each process with no state or lock left by the last. The
// setup's Configuration is written there (mode 0600), as upjet writes it
// into main.tf.json. The CLI runs with this process's environment, as
// upjet's own runs do.
type CLILookups struct {
	cli, dir string
	opts     []tfrecovery.Option

	mu     sync.Mutex
	groups map[string]*cliGroup // by groupKey
}

// NewCLILookups returns the lookups through the CLI at cli, in workspaces
// under dir, with the Importers' opts. Both cli and dir are needed.
func NewCLILookups(cli, dir string, opts ...tfrecovery.Option) (*CLILookups, error) {
	if cli == "" || dir == "" {
		return nil, errors.New("cannot derive the finders: the Terraform CLI lookups need the path of the CLI and a directory for its workspaces")
	}
	return &CLILookups{cli: cli, dir: dir, opts: opts}, nil
}

// Find looks c up as a resource of r, under the provider setup s, with q.
func (t *CLILookups) Find(ctx context.Context, c *recovery.Candidate, r CLIResource, s CLISetup, q CLIQuery) ([]recovery.ExternalResource, error) {
	g, err := t.group(r, s)
	if err != nil {
		return nil, err
	}
	return g.find(ctx, c, q)
}

// group returns the group of r under s, made at its first lookup.
func (t *CLILookups) group(r CLIResource, s CLISetup) (*cliGroup, error) {
	key, err := groupKey(r.Type, s)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if g := t.groups[key]; g != nil {
		return g, nil
	}
	setupFile, err := setupConfig(s)
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
	g := &cliGroup{queries: map[*recovery.Candidate]CLIQuery{}}
	rt := tfrecovery.ResourceType{Type: r.Type, Required: r.Required, TagsAttribute: r.TagsAttribute,
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
	queries map[*recovery.Candidate]CLIQuery // of the lookups under way
}

// find looks c up through the group's batching Finder. c is copied, so
// that two lookups on behalf of one candidate each have their own query.
func (g *cliGroup) find(ctx context.Context, c *recovery.Candidate, q CLIQuery) ([]recovery.ExternalResource, error) {
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

func (g *cliGroup) query(c *recovery.Candidate) (CLIQuery, error) {
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
	return q.ImportID, err
}

func (g *cliGroup) attributes(c *recovery.Candidate) (map[string]any, error) {
	q, err := g.query(c)
	return q.Attributes, err
}

func (g *cliGroup) arguments(c *recovery.Candidate) (map[string]any, error) {
	q, err := g.query(c)
	return q.Arguments, err
}

// externalName is the kind's GetExternalNameFn on the attributes the plan
// read: the external name upjet itself would set.
func (g *cliGroup) externalName(c *recovery.Candidate, attrs map[string]any) (string, error) {
	q, err := g.query(c)
	if err != nil {
		return "", err
	}
	if q.ExternalName == nil {
		id, _ := attrs["id"].(string)
		return id, nil
	}
	return q.ExternalName(attrs)
}

// groupKey names the group of tfType under setup s, and its workspace
// directory: the type and a digest of the provider requirement and
// configuration, what the workspace's files hold.
func groupKey(tfType string, s CLISetup) (string, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("cannot encode the Terraform setup: %w", err)
	}
	sum := sha256.Sum256(append([]byte(tfType+"\x00"), b...))
	return tfType + "-" + hex.EncodeToString(sum[:8]), nil
}

// setupConfig returns the terraform and provider blocks of s in
// Terraform's JSON syntax, as upjet's FileProducer writes them into
// main.tf.json: the provider's local name is LocalName, else the last
// segment of its source. JSON leaves Terraform to tell a nested block from
// a map attribute by the provider's schema, as it does for upjet's file.
func setupConfig(s CLISetup) ([]byte, error) {
	if s.Source == "" {
		return nil, errors.New("cannot configure the finder workspace: the Terraform setup names no provider source (Requirement.Source)")
	}
	name := s.LocalName
	if name == "" {
		name = s.Source[strings.LastIndex(s.Source, "/")+1:]
	}
	req := map[string]string{"source": s.Source}
	if s.Version != "" {
		req["version"] = s.Version
	}
	conf := s.Configuration
	if conf == nil {
		conf = map[string]any{}
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

// RequiredValues returns the values of the required arguments in params,
// the Terraform parameters of the create: CLIQuery.Attributes.
func RequiredValues(required []string, params map[string]any) (map[string]any, error) {
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
