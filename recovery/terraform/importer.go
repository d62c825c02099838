package terraform

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"
	"go.uber.org/zap"

	"github.com/intentjournal/intentjournal/recovery"
)

// Files the Importer writes into its workspace.
const (
	cliConfigName      = ".intentjournal.tfrc"
	providerConfigName = "intentjournal_provider.tf"
	planName           = ".intentjournal.tfplan"
	// AddressPrefix starts the name of every resource block the Importer
	// generates, so that it never touches the workspace's own resources.
	AddressPrefix = "ij_"
)

// Importer finds and adopts the resources of one Terraform resource type
// through a workspace, with one plan and at most one apply per batch.
// Its methods are safe for concurrent use; CLI runs are serialised.
type Importer struct {
	dir, cli  string
	rt        ResourceType
	o         options
	tf        *tfexec.Terraform
	genFile   string
	cliConfig string // TF_CLI_CONFIG_FILE of every CLI run, or ""

	mu        sync.Mutex // serialises CLI runs and guards the fields below
	initDone  bool
	lastState *tfjson.State       // from the latest show
	schema    *tfjson.SchemaBlock // of rt.Type, read once (resourceSchema)

	finderOnce sync.Once
	finder     *Finder

	// observe, when set (by tests), sees the output of each CLI command.
	observe func(op string, out []byte)
}

// ran logs a CLI command's duration at debug level.
func (im *Importer) ran(op string, began time.Time, n int) {
	im.o.log.Debug("Ran terraform command", zap.String("workspace", im.dir), zap.String("command", op),
		zap.Int("candidates", n), zap.Duration("took", time.Since(began)))
}

func (im *Importer) observed(op string, out []byte) {
	if im.observe != nil {
		im.observe(op, out)
	}
}

// New returns an Importer for the workspace in dir (created if missing)
// run by the tofu or terraform (>= 1.5) binary at cli.
func New(dir, cli string, rt ResourceType, opts ...Option) (*Importer, error) {
	if dir == "" || cli == "" {
		return nil, errors.New("terraform: New needs a workspace directory and a CLI path")
	}
	if rt.Type == "" || !identifier.MatchString(rt.Type) {
		return nil, fmt.Errorf("terraform: invalid resource type %q", rt.Type)
	}
	if rt.ImportID == nil {
		rt.ImportID = DefaultImportID
	}
	if rt.RequiredFromSchema && len(rt.Required) > 0 {
		return nil, fmt.Errorf("terraform: %s: both a Required list and RequiredFromSchema", rt.Type)
	}
	if rt.TagsAttribute == "" {
		rt.TagsAttribute = "tags"
	}
	o := options{log: zap.NewNop(), batchSize: DefaultBatchSize, parallelism: DefaultParallelism, waitDelay: DefaultWaitDelay, linger: DefaultLinger}
	for _, opt := range opts {
		opt(&o)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("terraform: cannot resolve workspace %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("terraform: cannot create workspace %s: %w", abs, err)
	}
	im := &Importer{dir: abs, cli: cli, rt: rt, o: o, genFile: "intentjournal_" + rt.Type + ".tf"}
	cliConfig := o.cliConfig
	if o.mirror != "" {
		cliConfig = filepath.Join(abs, cliConfigName)
		if err := writeFileAtomic(cliConfig, []byte(mirrorConfig(o.mirror))); err != nil {
			return nil, err
		}
	}
	if o.providerConfig != "" {
		if err := writeFileAtomic(filepath.Join(abs, providerConfigName), []byte(o.providerConfig)); err != nil {
			return nil, err
		}
	}
	im.cliConfig = cliConfig
	tf, err := tfexec.NewTerraform(abs, cli)
	if err != nil {
		return nil, fmt.Errorf("terraform: %w", err)
	}
	if err := tf.SetEnv(Env(cliConfig, o.env)); err != nil {
		return nil, fmt.Errorf("terraform: cannot set the CLI's environment: %w", err)
	}
	if err := tf.SetWaitDelay(o.waitDelay); err != nil {
		return nil, fmt.Errorf("terraform: %w", err)
	}
	im.tf = tf
	return im, nil
}

// Dir returns the workspace directory.
func (im *Importer) Dir() string { return im.dir }

// StateFile returns the path of the workspace's local state,
// terraform.tfstate in Dir: what ImportBatch imports into, and what to back
// up before a pass or restore from its .backup after ErrStateCorrupt. With
// a remote backend the state lives elsewhere and this file is not used.
func (im *Importer) StateFile() string { return filepath.Join(im.dir, stateFile) }

// CLIConfigFile returns the CLI configuration (TF_CLI_CONFIG_FILE) that
// every CLI run of the Importer uses: the one WithFilesystemMirror wrote
// into the workspace, else WithCLIConfigFile's path, else "" (the CLI's
// own default). To run the CLI in the workspace by hand as the Importer
// does, for a fix that a WorkspaceError names, give it the environment
// Env(im.CLIConfigFile(), extra), extra being what WithEnv was given.
func (im *Importer) CLIConfigFile() string { return im.cliConfig }

// identifier matches a Terraform identifier.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// Address returns the resource address a candidate is imported to.
func (im *Importer) Address(c *recovery.Candidate) string {
	return im.rt.Type + "." + blockName(c)
}

func blockName(c *recovery.Candidate) string {
	key := c.Intent.Resource.UID
	if key == "" {
		key = c.Intent.ID.String()
	}
	var b strings.Builder
	b.WriteString(AddressPrefix)
	for _, r := range key {
		if r < 0x80 && (r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// entry is a candidate being resolved.
type entry struct {
	res   *Result
	block block
	// found is what the batch's plan read; compared says a comparison
	// plan has set its Args (compare), so a later round does not repeat it.
	found    recovery.ExternalResource
	compared bool
}

// ImportBatch resolves candidates of the Importer's resource type in batches
// of the configured size, and returns a Result per candidate, in order. Each
// batch costs one show, one plan (more when some IDs fail, see doc.go) and at
// most one apply. An error means the workspace itself failed (lock, corrupt
// state, missing provider, cancellation) and carries the fix; no results are
// returned and nothing more is imported. Batches that ran before the failure
// stay imported: the next call reports them AlreadyInState.
func (im *Importer) ImportBatch(ctx context.Context, cands []*recovery.Candidate) ([]Result, error) {
	out := make([]Result, 0, len(cands))
	for start := 0; start < len(cands); start += im.o.batchSize {
		end := min(start+im.o.batchSize, len(cands))
		res, err := im.importBatch(ctx, cands[start:end])
		if err != nil {
			return nil, err
		}
		out = append(out, res...)
	}
	return out, nil
}

func (im *Importer) importBatch(ctx context.Context, cands []*recovery.Candidate) ([]Result, error) {
	im.mu.Lock()
	defer im.mu.Unlock()
	began := time.Now()
	if err := checkLock(im.dir, im.cli); err != nil {
		return nil, err
	}
	if err := im.ensureInit(ctx); err != nil {
		return nil, err
	}
	state, err := im.show(ctx)
	if err != nil {
		return nil, err
	}
	if err := im.ensureRequired(ctx); err != nil {
		return nil, err
	}
	results := make([]Result, len(cands))
	byAddr := map[string]int{}
	var pending []*entry
	for i, c := range cands {
		r := &results[i]
		r.Candidate, r.Address = c, im.Address(c)
		if j, dup := byAddr[r.Address]; dup {
			r.Status, r.Err = StatusError, fmt.Errorf("%s appears twice in the batch (as candidate %d)", c.Intent.Resource, j)
			continue
		}
		byAddr[r.Address] = i
		id, err := im.rt.ImportID(c)
		if err == nil && id == "" {
			err = fmt.Errorf("%s has an empty import ID", c.Intent.Resource)
		}
		if err != nil {
			r.Status, r.Err = StatusError, err
			continue
		}
		r.ImportID = id
		if held, ok := state[r.Address]; ok {
			if held.ID != id {
				r.Status, r.Err = StatusError, fmt.Errorf("%s already holds %s in the state of %s, not %s", r.Address, held.ID, im.dir, id)
				continue
			}
			im.classify(r, held)
			r.AlreadyInState = true
			continue
		}
		attrs, err := im.attributes(c)
		if err != nil {
			r.Status, r.Err = StatusError, err
			continue
		}
		bl := block{address: r.Address, name: blockName(c), importID: id, attrs: attrs}
		if im.rt.RequiredFromSchema {
			im.withSpecArguments(&bl, c)
		}
		pending = append(pending, &entry{res: r, block: bl})
	}
	if len(pending) > 0 {
		budget := planBudget(len(pending))
		err := im.resolve(ctx, pending, &budget)
		im.settleConfig()
		if err != nil {
			return nil, err
		}
	}
	counts := map[Status]int{}
	for _, r := range results {
		counts[r.Status]++
	}
	im.o.log.Info("Resolved batch through terraform", zap.String("workspace", im.dir), zap.String("resource-type", im.rt.Type),
		zap.Int("candidates", len(cands)), zap.Int("imported", counts[StatusImported]), zap.Int("found", counts[StatusFound]),
		zap.Int("not-found", counts[StatusNotFound]), zap.Int("conflicts", counts[StatusConflict]), zap.Int("errors", counts[StatusError]),
		zap.Duration("took", time.Since(began)))
	return results, nil
}

// attributes returns the values of the required arguments for c: the
// ResourceType's Attributes, else its own reading of the spec.
func (im *Importer) attributes(c *recovery.Candidate) (map[string]any, error) {
	if im.rt.Attributes != nil {
		return im.rt.Attributes(c)
	}
	return im.rt.attributes(c)
}

// withSpecArguments adds to a block of a type described by its schema
// alone (RequiredFromSchema) every argument the candidate's spec sets
// that the schema knows, written by the schema: a provider validates
// combinations of arguments (exactly one of rrdatas and routing_policy)
// that the required ones alone do not satisfy. The block still ignores
// every change; what the plan reads is the resource's. Arguments that
// cannot be written leave the block as it was.
func (im *Importer) withSpecArguments(bl *block, c *recovery.Candidate) {
	args, err := c.CreateArgs()
	if err == nil {
		args, err = terraformArgs(im.schema, args, "")
	}
	if err != nil {
		im.o.log.Debug("The import block sets the required arguments alone", zap.String("address", bl.address), zap.Error(err))
		return
	}
	for k, v := range bl.attrs {
		args[k] = v
	}
	bl.attrs, bl.schema = args, im.schema
}

// ensureRequired reads the required arguments from the schema, once,
// under RequiredFromSchema.
func (im *Importer) ensureRequired(ctx context.Context) error {
	if !im.rt.RequiredFromSchema || im.rt.Required != nil {
		return nil
	}
	s, err := im.resourceSchema(ctx)
	if err != nil {
		return err
	}
	im.rt.Required = append([]string{}, requiredOf(s)...)
	im.o.log.Info("Read the required arguments from the schema", zap.String("resource-type", im.rt.Type), zap.Strings("required", im.rt.Required))
	return nil
}

// classify sets a found resource's status by recovery.Judge. A resource of
// a deleted managed resource is an orphan for recovery to report, never
// adopted into the workspace: it is Found, not Imported; so is one proven
// only weakly whose arguments were not found the same as the create's,
// and one proven by untimed crossplane tags unless WithAdoptOnTags. A look-alike, or anything else not
// ours, is a conflict and never imported.
func (im *Importer) classify(r *Result, found recovery.ExternalResource) {
	r.Resource = &found
	if p := recovery.Judge(r.Candidate, found, im.o.clockSkew).Proof; p != "" {
		r.Proof = p
		r.Status = StatusImported
		// A weak proof imports only what matches the create's arguments
		// (recovery.Decide adopts nothing else).
		weakUnchecked := p.Weak() && found.Args != recovery.ArgsSame
		if im.o.reportOnly || r.Candidate.Deleted() || weakUnchecked || p.OnlyOnTagsPolicy() && !im.o.adoptOnTags {
			r.Status = StatusFound
		}
		return
	}
	r.Status = StatusConflict
}
