package terraform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/intentjournal/intentjournal/internal/atomicfile"
	"math/bits"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

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
	dir, cli string
	rt       ResourceType
	o        options
	tf       *tfexec.Terraform
	genFile  string

	mu        sync.Mutex // serialises CLI runs and guards the fields below
	initDone  bool
	lastState *tfjson.State // from the latest show

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
	if rt.Attributes == nil {
		rt.Attributes = DefaultAttributes(rt.Required)
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

// identifier matches a Terraform identifier.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// Env returns the CLI's environment: a full copy of os.Environ() without
// the variables tfexec.SetEnv refuses (TF_IN_AUTOMATION, TF_LOG*,
// TF_CLI_ARGS*, TF_VAR_*, ...), with TF_CLI_CONFIG_FILE (when cliConfig is
// set) and CHECKPOINT_DISABLE=1, then extra on top.
func Env(cliConfig string, extra map[string]string) map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	env = tfexec.CleanEnv(env)
	if cliConfig != "" {
		env["TF_CLI_CONFIG_FILE"] = cliConfig
	}
	env["CHECKPOINT_DISABLE"] = "1"
	for k, v := range tfexec.CleanEnv(extra) {
		env[k] = v
	}
	return env
}

// mirrorConfig is a CLI configuration that installs every provider from the
// filesystem mirror at dir and never from a registry.
func mirrorConfig(dir string) string {
	return fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path    = %s\n    include = [\"*/*/*\"]\n  }\n}\n", hclString(dir))
}

// writeFileAtomic replaces a file of the workspace durably (mode 0644, as
// Terraform writes them): a crash leaves the old file or the new one.
func writeFileAtomic(path string, data []byte) error {
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("terraform: cannot write %s: %w", path, err)
	}
	return nil
}

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
		attrs, err := im.rt.Attributes(c)
		if err != nil {
			r.Status, r.Err = StatusError, err
			continue
		}
		pending = append(pending, &entry{res: r, block: block{address: r.Address, name: blockName(c), importID: id, attrs: attrs}})
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

// classify sets a found resource's status by recovery.Judge. A resource of
// a deleted managed resource is an orphan for recovery to report, never
// adopted into the workspace: it is Found, not Imported; so is one proven
// only weakly, unless WithAdoptOnTags. A look-alike, or anything else not
// ours, is a conflict and never imported.
func (im *Importer) classify(r *Result, found recovery.ExternalResource) {
	r.Resource = &found
	if p := recovery.Judge(r.Candidate, found, im.o.clockSkew).Proof; p != "" {
		r.Proof = p
		r.Status = StatusImported
		if im.o.reportOnly || r.Candidate.Deleted() || p.Weak() && !im.o.adoptOnTags {
			r.Status = StatusFound
		}
		return
	}
	r.Status = StatusConflict
}

// stateResource is one resource of the Importer's type in the state.
type stateResource = recovery.ExternalResource

// heldState maps the addresses of generated blocks in state to what they hold.
type heldState map[string]stateResource

// resolve imports pending, splitting it when an error names no candidate.
func (im *Importer) resolve(ctx context.Context, pending []*entry, budget *int) error {
	for len(pending) > 0 {
		if *budget <= 0 {
			for _, e := range pending {
				e.res.Status, e.res.Err = StatusError, fmt.Errorf("not resolved: the batch's plans kept failing with errors that name no resource (plan budget spent); the last batch error was logged")
			}
			return nil
		}
		*budget--
		held := im.heldBlocks()
		blocks := make([]block, 0, len(held)+len(pending))
		blocks = append(blocks, held...)
		for _, e := range pending {
			blocks = append(blocks, e.block)
		}
		content, ranges, err := renderConfig(im.rt.Type, blocks)
		if err != nil {
			return fmt.Errorf("terraform: %w", err)
		}
		if err := writeFileAtomic(filepath.Join(im.dir, im.genFile), []byte(content)); err != nil {
			return err
		}
		planPath := filepath.Join(im.dir, planName)
		_ = os.Remove(planPath)
		var out bytes.Buffer
		opts := []tfexec.PlanOption{tfexec.Out(planName), tfexec.Parallelism(im.o.parallelism), tfexec.LockTimeout("0s")}
		for _, e := range pending {
			if im.o.targets {
				opts = append(opts, tfexec.Target(e.block.address))
			}
		}
		t0 := time.Now()
		_, planErr := im.tf.PlanJSON(ctx, &out, opts...)
		im.ran("plan", t0, len(pending))
		im.observed("plan", out.Bytes())
		if err := im.cancelled(ctx); err != nil {
			return err
		}
		diags := errorsOf(ParseJSONDiagnostics(out.Bytes()))
		if planErr != nil && len(diags) == 0 {
			diags = errorsOf(ParseTextDiagnostics(planErr.Error()))
		}
		if planErr != nil || len(diags) > 0 {
			if err := im.workspaceError("plan", diags, planErr); err != nil {
				return err
			}
			var unattributed []Diagnostic
			failed := map[*entry]bool{}
			index := map[string]*entry{}
			for _, e := range pending {
				index[e.block.address] = e
			}
			for _, d := range diags {
				addr := d.Address
				if addr == "" && filepath.Base(d.File) == im.genFile {
					addr = addressAt(ranges, d.Line)
				}
				e := index[addr]
				if e == nil {
					unattributed = append(unattributed, d)
					continue
				}
				failed[e] = true
				if d.Kind == KindNotFound {
					e.res.Status = StatusNotFound
				} else {
					e.res.Status, e.res.Err = StatusError, diagError(d)
				}
			}
			pending = slices.DeleteFunc(pending, func(e *entry) bool { return failed[e] })
			if len(failed) > 0 {
				continue
			}
			if len(unattributed) == 0 {
				unattributed = []Diagnostic{{Severity: "error", Summary: fmt.Sprint(planErr), Kind: KindOther}}
			}
			if len(pending) == 1 || *budget <= 0 {
				for _, e := range pending {
					e.res.Status, e.res.Err = StatusError, diagError(unattributed[0])
				}
				return nil
			}
			// An error that names no block: split the batch to isolate it.
			mid := len(pending) / 2
			im.o.log.Warn("Splitting batch after an error that names no resource", zap.String("workspace", im.dir),
				zap.Int("size", len(pending)), zap.String("error", truncate(unattributed[0].Summary)))
			if err := im.resolve(ctx, pending[:mid], budget); err != nil {
				return err
			}
			return im.resolve(ctx, pending[mid:], budget)
		}
		t0 = time.Now()
		plan, err := im.tf.ShowPlanFile(ctx, planName)
		im.ran("show plan", t0, len(pending))
		if err := im.cancelled(ctx); err != nil {
			return err
		}
		if err != nil {
			return &WorkspaceError{Dir: im.dir, Op: "show plan", Err: err}
		}
		removed, err := im.checkPlan(plan, pending)
		if err != nil {
			return err
		}
		if len(removed) > 0 {
			pending = slices.DeleteFunc(pending, func(e *entry) bool { return removed[e] })
			continue
		}
		if im.o.reportOnly {
			return nil
		}
		return im.apply(ctx, pending)
	}
	return nil
}

// planBudget bounds the plans one batch of n may take. Isolating one bad
// ID by bisection takes about 2*log2(n) plans; a failure that hits every
// resource (an unreachable endpoint) would take 2n without a bound, so the
// budget allows a few bad IDs and then fails the rest of the batch.
func planBudget(n int) int {
	return 8 + 8*bits.Len(uint(n))
}

// settleConfig rewrites the generated file without import blocks, so that
// a later plan or apply in the workspace, by anyone, imports nothing that
// this package did not prove ours. It runs after every batch.
func (im *Importer) settleConfig() {
	_ = os.Remove(filepath.Join(im.dir, planName))
	content, _, err := renderConfig(im.rt.Type, im.heldBlocks())
	if err == nil {
		err = writeFileAtomic(filepath.Join(im.dir, im.genFile), []byte(content))
	}
	if err != nil {
		im.o.log.Warn("Cannot remove the import blocks from the generated configuration", zap.String("workspace", im.dir), zap.Error(err))
	}
}

// checkPlan classifies the planned imports. It returns the entries that
// must leave the batch (conflicts, unsafe changes), and an error when the
// plan would change anything outside the batch.
func (im *Importer) checkPlan(plan *tfjson.Plan, pending []*entry) (map[*entry]bool, error) {
	changes := map[string]*tfjson.ResourceChange{}
	for _, rc := range plan.ResourceChanges {
		changes[rc.Address] = rc
	}
	index := map[string]*entry{}
	for _, e := range pending {
		index[e.block.address] = e
	}
	for _, rc := range plan.ResourceChanges {
		if index[rc.Address] == nil && rc.Change != nil && !rc.Change.Actions.NoOp() && !rc.Change.Actions.Read() {
			return nil, &WorkspaceError{Dir: im.dir, Op: "plan", Err: ErrUnsafePlan,
				Fix: fmt.Sprintf("the plan would %v %s, which recovery never does; review the workspace with: %s -chdir=%s plan (if %s was deleted outside Terraform: %s -chdir=%s state rm %s), or confine plans to the batch with WithTargets",
					rc.Change.Actions, rc.Address, im.cli, im.dir, rc.Address, im.cli, im.dir, rc.Address)}
		}
	}
	removed := map[*entry]bool{}
	for _, e := range pending {
		rc := changes[e.block.address]
		switch {
		case rc == nil || rc.Change == nil || rc.Change.Importing == nil:
			e.res.Status, e.res.Err = StatusError, fmt.Errorf("the plan holds no import for %s", e.block.address)
			removed[e] = true
			continue
		case !rc.Change.Actions.NoOp():
			e.res.Status, e.res.Err = StatusError, fmt.Errorf("%w: importing %s would %v it", ErrUnsafePlan, e.block.address, rc.Change.Actions)
			removed[e] = true
			continue
		}
		found := im.external(rc.Change.After, e.res.ImportID)
		im.classify(e.res, found)
		if e.res.Status == StatusConflict || e.res.Status == StatusFound && !im.o.reportOnly {
			removed[e] = true
		}
	}
	return removed, nil
}

// apply applies the saved plan and reads back what it imported.
func (im *Importer) apply(ctx context.Context, pending []*entry) error {
	t0 := time.Now()
	applyErr := im.tf.Apply(ctx, tfexec.DirOrPlan(planName), tfexec.Parallelism(im.o.parallelism), tfexec.LockTimeout("0s"))
	im.ran("apply", t0, len(pending))
	if err := im.cancelled(ctx); err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(im.dir, planName))
	if applyErr != nil {
		if err := im.workspaceError("apply", errorsOf(ParseTextDiagnostics(applyErr.Error())), applyErr); err != nil {
			return err
		}
	}
	state, err := im.show(ctx)
	if err != nil {
		return err
	}
	for _, e := range pending {
		if got, ok := state[e.block.address]; ok && got.ID == e.res.ImportID {
			continue // classified from the plan, and now in state
		}
		e.res.Status, e.res.Err = StatusError, fmt.Errorf("%s was not imported: %v", e.block.address, applyErr)
		e.res.Proof = ""
	}
	return nil
}

// external converts a resource's attribute values.
func (im *Importer) external(values any, fallbackID string) recovery.ExternalResource {
	m, _ := values.(map[string]any)
	r := recovery.ExternalResource{ID: fallbackID}
	if id, ok := m["id"].(string); ok && id != "" {
		r.ID = id
	}
	if tags, ok := m[im.rt.TagsAttribute].(map[string]any); ok {
		r.Tags = make(map[string]string, len(tags))
		for k, v := range tags {
			if s, ok := v.(string); ok {
				r.Tags[k] = s
			}
		}
	}
	return r
}

// ensureInit runs init once per Importer.
func (im *Importer) ensureInit(ctx context.Context) error {
	if im.initDone {
		return nil
	}
	err := im.tf.Init(ctx, tfexec.Upgrade(false))
	if err := im.cancelled(ctx); err != nil {
		return err
	}
	if err != nil {
		im.observed("init", []byte(err.Error()))
		diags := errorsOf(ParseTextDiagnostics(err.Error()))
		if werr := im.workspaceError("init", diags, err); werr != nil {
			return werr
		}
		return &WorkspaceError{Dir: im.dir, Op: "init", Err: err, Diagnostics: diags,
			Fix: fmt.Sprintf("run %s -chdir=%s init and fix what it reports", im.cli, im.dir)}
	}
	im.initDone = true
	return nil
}

// show reads the state and returns the generated blocks' resources.
func (im *Importer) show(ctx context.Context) (heldState, error) {
	if raw, err := os.ReadFile(filepath.Join(im.dir, stateFile)); err == nil && len(bytes.TrimSpace(raw)) > 0 && !json.Valid(raw) {
		return nil, im.corrupt("show", nil)
	}
	t0 := time.Now()
	st, err := im.tf.Show(ctx)
	im.ran("show", t0, 0)
	if err := im.cancelled(ctx); err != nil {
		return nil, err
	}
	if err != nil {
		im.observed("show", []byte(err.Error()))
		diags := errorsOf(ParseTextDiagnostics(err.Error()))
		if werr := im.workspaceError("show", diags, err); werr != nil {
			return nil, werr
		}
		return nil, &WorkspaceError{Dir: im.dir, Op: "show", Err: err, Diagnostics: diags}
	}
	im.lastState = st
	out := heldState{}
	if st == nil || st.Values == nil || st.Values.RootModule == nil {
		return out, nil
	}
	for _, r := range st.Values.RootModule.Resources {
		if r.Mode == tfjson.ManagedResourceMode && r.Type == im.rt.Type && strings.HasPrefix(r.Name, AddressPrefix) {
			out[r.Address] = im.external(r.AttributeValues, "")
		}
	}
	return out, nil
}

// heldBlocks returns resource blocks (without import) for the generated
// resources already in state, so that a new configuration keeps them.
func (im *Importer) heldBlocks() []block {
	st := im.lastState
	var out []block
	if st == nil || st.Values == nil || st.Values.RootModule == nil {
		return out
	}
	for _, r := range st.Values.RootModule.Resources {
		if r.Mode != tfjson.ManagedResourceMode || r.Type != im.rt.Type || !strings.HasPrefix(r.Name, AddressPrefix) {
			continue
		}
		attrs := map[string]any{}
		for _, k := range im.rt.Required {
			attrs[k] = r.AttributeValues[k]
		}
		out = append(out, block{address: r.Address, name: r.Name, attrs: attrs})
	}
	return out
}

// workspaceError returns the workspace-level error among diags, or nil.
func (im *Importer) workspaceError(op string, diags []Diagnostic, cliErr error) error {
	for _, d := range diags {
		switch d.Kind {
		case KindStateCorrupt:
			return im.corrupt(op, []Diagnostic{d})
		case KindLocked:
			if err := checkLock(im.dir, im.cli); err != nil {
				return err
			}
			return &WorkspaceError{Dir: im.dir, Op: op, Err: ErrStateLocked, Diagnostics: []Diagnostic{d},
				Fix: fmt.Sprintf("wait for the other %s run in %s to finish, then rerun", filepath.Base(im.cli), im.dir)}
		case KindProviderMissing:
			where := "the plugin directories of the CLI configuration"
			if im.o.mirror != "" {
				where = "the filesystem mirror " + im.o.mirror
			}
			return &WorkspaceError{Dir: im.dir, Op: op, Err: ErrProviderMissing, Diagnostics: []Diagnostic{d},
				Fix: fmt.Sprintf("install the provider into %s (layout <host>/<namespace>/<type>/<version>/<os>_<arch>/terraform-provider-<type>_v<version>; for the fake cloud: make tools), then rerun", where)}
		}
	}
	return nil
}

func (im *Importer) corrupt(op string, diags []Diagnostic) error {
	state := filepath.Join(im.dir, stateFile)
	return &WorkspaceError{Dir: im.dir, Op: op, Err: ErrStateCorrupt, Diagnostics: diags,
		Fix: fmt.Sprintf("restore %s from %s.backup or your own backup (keep the damaged file for inspection), then rerun; nothing was imported", state, state)}
}

// cancelled returns ctx's error after making sure no CLI or plugin
// process of the workspace survives.
func (im *Importer) cancelled(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	if left := reap(im.dir, min(im.o.waitDelay, 2*time.Second)); len(left) > 0 {
		im.o.log.Warn("Killed processes left by a cancelled terraform run", zap.String("workspace", im.dir), zap.Ints("pids", left))
	}
	return fmt.Errorf("terraform: run in %s cancelled: %w", im.dir, ctx.Err())
}

// diagError converts a diagnostic to an error.
func diagError(d Diagnostic) error {
	if d.Detail == "" {
		return errors.New(truncate(d.Summary))
	}
	return fmt.Errorf("%s: %s", truncate(d.Summary), truncate(firstLine(d.Detail)))
}

// maxMessage bounds an error message taken from CLI output: a summary can
// quote an import ID of any length.
const maxMessage = 1024

func truncate(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	head, tail := maxMessage*3/4, maxMessage/4
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return fmt.Sprintf("%s...(%d bytes cut)...%s", s[:head], start-head, s[start:])
}
