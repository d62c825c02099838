package terraform

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"
	"go.uber.org/zap"

	"github.com/intentjournal/intentjournal/recovery"
)

// comparePlanName is the plan file of a comparison: never applied.
const comparePlanName = ".intentjournal.compare.tfplan"

// compareRounds bounds the plans one comparison may take: each failed
// round drops the candidates its errors name.
const compareRounds = 4

// compare decides, for each entry whose found resource only a weak proof
// could make its candidate's, whether applying the arguments its create
// sent to that resource would change it (recovery's meaning of a match):
// it plans those arguments, as a resource block with an import block and
// no ignore_changes, against the state the import reads, with -target on
// those blocks alone. The plan is never applied. A no-op, or changes only
// to sensitive or write-only arguments (named, not compared), is
// recovery.ArgsSame; any other change is ArgsDifferent, naming the
// arguments that change. An entry whose arguments cannot be known or
// written as configuration, or whose comparison plan fails, stays
// ArgsUnchecked, so a weak proof does not adopt it.
func (im *Importer) compare(ctx context.Context, es []*entry) error {
	s, err := im.resourceSchema(ctx)
	if err != nil {
		return err
	}
	var blocks []block
	index := map[string]*entry{}
	for _, e := range es {
		e.compared = true
		args, err := im.arguments(e.res.Candidate, s)
		if err != nil {
			im.unchecked(e, err)
			continue
		}
		// A required argument the spec does not hold (upjet's name field,
		// which the external name sets) is compared at the value the
		// import block gives it.
		for k, v := range e.block.attrs {
			if _, ok := args[k]; !ok {
				args[k] = v
			}
		}
		blocks = append(blocks, block{address: e.block.address, name: e.block.name, importID: e.block.importID, attrs: args, schema: s, compare: true})
		index[e.block.address] = e
	}
	defer func() { _ = os.Remove(filepath.Join(im.dir, comparePlanName)) }()
	for round := 0; len(blocks) > 0; round++ {
		if round == compareRounds {
			for _, b := range blocks {
				im.unchecked(index[b.address], errors.New("its comparison plans kept failing"))
			}
			return nil
		}
		run, err := im.planConfig(ctx, blocks, comparePlanName, true)
		if err != nil {
			return err
		}
		if run.err != nil || len(run.diags) > 0 {
			if err := im.workspaceError("plan", run.diags, run.err); err != nil {
				return err
			}
			failed := map[string]bool{}
			for _, d := range run.diags {
				addr := d.Address
				if addr == "" && filepath.Base(d.File) == im.genFile {
					addr = addressAt(run.ranges, d.Line)
				}
				if e := index[addr]; e != nil && !failed[addr] {
					failed[addr] = true
					im.unchecked(e, diagError(d))
				}
			}
			if len(failed) == 0 {
				err := run.err
				if len(run.diags) > 0 {
					err = diagError(run.diags[0])
				}
				for _, b := range blocks {
					im.unchecked(index[b.address], err)
				}
				return nil
			}
			blocks = slices.DeleteFunc(blocks, func(b block) bool { return failed[b.address] })
			continue
		}
		t0 := time.Now()
		plan, err := im.tf.ShowPlanFile(ctx, comparePlanName)
		im.ran("show compare plan", t0, len(blocks))
		if err := im.cancelled(ctx, err); err != nil {
			return err
		}
		if err != nil {
			return &WorkspaceError{Dir: im.dir, Op: "show plan", Err: err}
		}
		changes := map[string]*tfjson.ResourceChange{}
		for _, rc := range plan.ResourceChanges {
			changes[rc.Address] = rc
		}
		for _, b := range blocks {
			e := index[b.address]
			rc := changes[b.address]
			if rc == nil || rc.Change == nil {
				im.unchecked(e, errors.New("the comparison plan holds no change for it"))
				continue
			}
			e.found.Args, e.found.ArgsDiffer, e.found.ArgsNotCompared = planMatch(s, rc.Change)
		}
		return nil
	}
	return nil
}

// unchecked leaves e's resource uncompared, and says why at debug level.
func (im *Importer) unchecked(e *entry, why error) {
	e.found.Args, e.found.ArgsDiffer, e.found.ArgsNotCompared = recovery.ArgsUnchecked, nil, nil
	im.o.log.Debug("Cannot compare a found resource with its create's arguments", zap.String("workspace", im.dir),
		zap.String("address", e.block.address), zap.Error(why))
}

// planMatch reads a comparison plan's change of one resource: ArgsSame for
// a no-op, or for changes only to arguments that cannot be compared
// (sensitive or write-only: the recorded arguments never hold a secret);
// else ArgsDifferent with the arguments that change, in spec.forProvider's
// spelling.
func planMatch(s *tfjson.SchemaBlock, ch *tfjson.Change) (recovery.ArgsMatch, []string, []string) {
	if ch.Actions.NoOp() {
		return recovery.ArgsSame, nil, nil
	}
	before, _ := ch.Before.(map[string]any)
	after, _ := ch.After.(map[string]any)
	unknown, _ := ch.AfterUnknown.(map[string]any)
	var differ, skipped []string
	for _, name := range argumentNames(s) {
		changed := !reflect.DeepEqual(before[name], after[name]) || unknown[name] == true
		if !changed {
			continue
		}
		if notComparable(s, name) {
			skipped = append(skipped, recovery.LowerCamel(name))
			continue
		}
		differ = append(differ, recovery.LowerCamel(name))
	}
	if len(differ) == 0 && len(skipped) > 0 {
		return recovery.ArgsSame, nil, skipped
	}
	if len(differ) == 0 {
		// Terraform plans a change no argument shows (a replacement
		// forced by the provider): it would change the resource.
		differ = []string{fmt.Sprintf("(Terraform plans %v)", ch.Actions)}
	}
	return recovery.ArgsDifferent, differ, skipped
}

// argumentNames returns the arguments and nested blocks of s, sorted.
func argumentNames(s *tfjson.SchemaBlock) []string {
	var out []string
	for name, a := range s.Attributes {
		if a.Required || a.Optional {
			out = append(out, name)
		}
	}
	for name := range s.NestedBlocks {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// notComparable reports whether the argument name is sensitive or write-only.
func notComparable(s *tfjson.SchemaBlock, name string) bool {
	a := s.Attributes[name]
	return a != nil && (a.Sensitive || a.WriteOnly)
}

// arguments returns the arguments c's create sent, in Terraform's names
// (ResourceType.Arguments, else recovery.Candidate.CreateArgs with upjet's
// lowerCamelCase names resolved on the schema at every depth).
func (im *Importer) arguments(c *recovery.Candidate, s *tfjson.SchemaBlock) (map[string]any, error) {
	if im.rt.Arguments != nil {
		return im.rt.Arguments(c)
	}
	args, err := c.CreateArgs()
	if err != nil {
		return nil, err
	}
	return terraformArgs(s, args, "")
}

// terraformArgs renames args (upjet's spelling, or Terraform's) to the
// names of schema s, at every depth, dropping upjet's reference and
// selector fields and unset values. An argument s does not know is an
// error: what cannot be written cannot be compared.
func terraformArgs(s *tfjson.SchemaBlock, args map[string]any, at string) (map[string]any, error) {
	byName := map[string]string{}
	for name := range s.Attributes {
		byName[name], byName[recovery.LowerCamel(name)] = name, name
	}
	for name := range s.NestedBlocks {
		byName[name], byName[recovery.LowerCamel(name)] = name, name
	}
	out := make(map[string]any, len(args))
	for _, k := range slices.Sorted(maps.Keys(args)) {
		v := args[k]
		name, ok := byName[k]
		switch {
		case ok:
		case strings.HasSuffix(k, "Ref") || strings.HasSuffix(k, "Refs") || strings.HasSuffix(k, "Selector"):
			continue
		default:
			return nil, fmt.Errorf("the argument %s%s is not in the schema of the resource type", at, k)
		}
		if v == nil {
			continue
		}
		nb, isBlock := s.NestedBlocks[name]
		if !isBlock {
			out[name] = v
			continue
		}
		var elems []any
		switch o := v.(type) {
		case []any:
			elems = o
		case map[string]any:
			elems = []any{o} // upjet's embedded singleton block
		default:
			return nil, fmt.Errorf("the block %s%s is a %T, not a list of objects", at, k, v)
		}
		conv := make([]any, 0, len(elems))
		for i, el := range elems {
			m, ok := el.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("the block %s%s[%d] is a %T, not an object", at, k, i, el)
			}
			cm, err := terraformArgs(nb.Block, m, fmt.Sprintf("%s%s[%d].", at, k, i))
			if err != nil {
				return nil, err
			}
			conv = append(conv, cm)
		}
		if len(conv) > 0 {
			out[name] = conv
		}
	}
	return out, nil
}

// resourceSchema returns the schema of the Importer's resource type, as
// the CLI reports it (providers schema -json), read once.
func (im *Importer) resourceSchema(ctx context.Context) (*tfjson.SchemaBlock, error) {
	if im.schema != nil {
		return im.schema, nil
	}
	t0 := time.Now()
	ps, err := im.tf.ProvidersSchema(ctx)
	im.ran("providers schema", t0, 0)
	if err := im.cancelled(ctx, err); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, &WorkspaceError{Dir: im.dir, Op: "providers schema", Err: err,
			Fix: fmt.Sprintf("run %s -chdir=%s providers schema -json and fix what it reports", im.cli, im.dir)}
	}
	for _, p := range ps.Schemas {
		if rs := p.ResourceSchemas[im.rt.Type]; rs != nil && rs.Block != nil {
			im.schema = rs.Block
			return im.schema, nil
		}
	}
	return nil, &WorkspaceError{Dir: im.dir, Op: "providers schema", Err: fmt.Errorf("no provider of the workspace serves the resource type %s", im.rt.Type),
		Fix: "configure the provider that serves " + im.rt.Type + " in the workspace"}
}

// planConfig writes the configuration of held blocks plus blocks and plans
// it into planFile; with target, only blocks are planned.
func (im *Importer) planConfig(ctx context.Context, blocks []block, planFile string, target bool) (planRun, error) {
	all := append(im.heldBlocks(), blocks...)
	content, ranges, err := renderConfig(im.rt.Type, all)
	if err != nil {
		return planRun{}, fmt.Errorf("terraform: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(im.dir, im.genFile), []byte(content)); err != nil {
		return planRun{}, err
	}
	_ = os.Remove(filepath.Join(im.dir, planFile))
	var out strings.Builder
	opts := []tfexec.PlanOption{tfexec.Out(planFile), tfexec.Parallelism(im.o.parallelism), tfexec.LockTimeout("0s")}
	for _, b := range blocks {
		if target {
			opts = append(opts, tfexec.Target(b.address))
		}
	}
	t0 := time.Now()
	_, planErr := im.tf.PlanJSON(ctx, &out, opts...)
	im.ran("plan", t0, len(blocks))
	im.observed("plan", []byte(out.String()))
	if err := im.cancelled(ctx, planErr); err != nil {
		return planRun{}, err
	}
	diags := errorsOf(ParseJSONDiagnostics([]byte(out.String())))
	if planErr != nil && len(diags) == 0 {
		diags = errorsOf(ParseTextDiagnostics(planErr.Error()))
	}
	return planRun{ranges: ranges, diags: diags, err: planErr}, nil
}
