package terraform

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"path/filepath"
	"slices"
	"time"

	tfjson "github.com/hashicorp/terraform-json"
	"go.uber.org/zap"

	"github.com/intentjournal/intentjournal/recovery"
)

// resolve imports pending, splitting it when an error names no candidate.
// Each round plans the batch; a plan that fails drops the candidates its
// errors name and plans the rest again, or splits the batch when no error
// names a candidate; a plan that succeeds drops conflicts and unsafe
// changes, and once nothing drops, the batch is applied.
func (im *Importer) resolve(ctx context.Context, pending []*entry, budget *int) error {
	for len(pending) > 0 {
		if *budget <= 0 {
			for _, e := range pending {
				e.res.Status, e.res.Err = StatusError, fmt.Errorf("not resolved: the batch's plans kept failing with errors that name no resource (plan budget spent); the last batch error was logged")
			}
			return nil
		}
		*budget--
		run, err := im.plan(ctx, pending)
		if err != nil {
			return err
		}
		if run.err != nil || len(run.diags) > 0 {
			if err := im.workspaceError("plan", run.diags, run.err); err != nil {
				return err
			}
			failed, unattributed := im.attribute(pending, run)
			if len(failed) > 0 {
				pending = slices.DeleteFunc(pending, func(e *entry) bool { return failed[e] })
				continue
			}
			return im.isolate(ctx, pending, run.err, unattributed, budget)
		}
		plan, err := im.showPlan(ctx, len(pending))
		if err != nil {
			return err
		}
		removed, err := im.checkPlan(ctx, plan, pending)
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

// planRun is what one plan of a batch left: the lines each generated block
// spans, the plan's error diagnostics and the CLI's error.
type planRun struct {
	ranges []lineRange
	diags  []Diagnostic
	err    error
}

// plan writes the configuration for the blocks in state plus pending and
// plans it into planName. An error means the run could not be attempted
// or was cancelled; a failed plan is in the planRun.
func (im *Importer) plan(ctx context.Context, pending []*entry) (planRun, error) {
	blocks := make([]block, len(pending))
	for i, e := range pending {
		blocks[i] = e.block
	}
	return im.planConfig(ctx, blocks, planName, im.o.targets)
}

// attribute gives each error diagnostic of a failed plan to the candidate
// it names, by address or by a line of the generated file: not found, or
// failed with the diagnostic. It returns the candidates it failed and the
// diagnostics that name none.
func (im *Importer) attribute(pending []*entry, run planRun) (failed map[*entry]bool, unattributed []Diagnostic) {
	failed = map[*entry]bool{}
	index := byAddress(pending)
	for _, d := range run.diags {
		addr := d.Address
		if addr == "" && filepath.Base(d.File) == im.genFile {
			addr = addressAt(run.ranges, d.Line)
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
	return failed, unattributed
}

// isolate handles a plan that failed with errors that name no candidate
// (planErr when there is no diagnostic at all). A lone candidate, or one
// of a batch whose plan budget is spent, fails with the first of them; a
// larger batch is split in two and each half resolved on its own.
func (im *Importer) isolate(ctx context.Context, pending []*entry, planErr error, unattributed []Diagnostic, budget *int) error {
	if len(unattributed) == 0 {
		unattributed = []Diagnostic{{Severity: "error", Summary: fmt.Sprint(planErr), Kind: KindOther}}
	}
	if len(pending) == 1 || *budget <= 0 {
		for _, e := range pending {
			e.res.Status, e.res.Err = StatusError, diagError(unattributed[0])
		}
		return nil
	}
	mid := len(pending) / 2
	im.o.log.Warn("Splitting batch after an error that names no resource", zap.String("workspace", im.dir),
		zap.Int("size", len(pending)), zap.String("error", truncate(unattributed[0].Summary)))
	if err := im.resolve(ctx, pending[:mid], budget); err != nil {
		return err
	}
	return im.resolve(ctx, pending[mid:], budget)
}

// showPlan reads back the saved plan of a batch of n candidates.
func (im *Importer) showPlan(ctx context.Context, n int) (*tfjson.Plan, error) {
	t0 := time.Now()
	plan, err := im.tf.ShowPlanFile(ctx, planName)
	im.ran("show plan", t0, n)
	if err := im.cancelled(ctx, err); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, &WorkspaceError{Dir: im.dir, Op: "show plan", Err: err}
	}
	return plan, nil
}

// byAddress indexes pending by the address of its generated block.
func byAddress(pending []*entry) map[string]*entry {
	index := make(map[string]*entry, len(pending))
	for _, e := range pending {
		index[e.block.address] = e
	}
	return index
}

// planBudget bounds the plans one batch of n may take. Isolating one bad
// ID by bisection takes about 2*log2(n) plans; a failure that hits every
// resource (an unreachable endpoint) would take 2n without a bound, so the
// budget allows a few bad IDs and then fails the rest of the batch.
func planBudget(n int) int {
	return 8 + 8*bits.Len(uint(n))
}

// checkPlan classifies the planned imports. A resource only a weak proof
// makes its candidate's is first compared with the create's arguments
// (compare: a plan of its own, once per entry). It returns the entries
// that must leave the batch (conflicts, unsafe changes), and an error
// when the plan would change anything outside the batch.
func (im *Importer) checkPlan(ctx context.Context, plan *tfjson.Plan, pending []*entry) (map[*entry]bool, error) {
	changes := map[string]*tfjson.ResourceChange{}
	for _, rc := range plan.ResourceChanges {
		changes[rc.Address] = rc
	}
	index := byAddress(pending)
	for _, rc := range plan.ResourceChanges {
		if index[rc.Address] == nil && rc.Change != nil && !rc.Change.Actions.NoOp() && !rc.Change.Actions.Read() {
			return nil, &WorkspaceError{Dir: im.dir, Op: "plan", Err: ErrUnsafePlan,
				Fix: fmt.Sprintf("the plan would %v %s, which recovery never does; review the workspace with: %s -chdir=%s plan (if %s was deleted outside Terraform: %s -chdir=%s state rm %s), or confine plans to the batch with WithTargets",
					rc.Change.Actions, rc.Address, im.cli, im.dir, rc.Address, im.cli, im.dir, rc.Address)}
		}
	}
	removed := map[*entry]bool{}
	var toCompare []*entry
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
		if im.rt.ExternalName != nil {
			attrs, _ := rc.Change.After.(map[string]any)
			name, err := im.rt.ExternalName(e.res.Candidate, attrs)
			if err == nil && name == "" {
				err = errors.New("it is empty")
			}
			if err != nil {
				e.res.Status, e.res.Err = StatusError, fmt.Errorf("cannot derive the external name of %s from what the plan read: %w", e.block.address, err)
				removed[e] = true
				continue
			}
			found.ID = name
		}
		if e.compared {
			found.Args, found.ArgsDiffer, found.ArgsNotCompared = e.found.Args, e.found.ArgsDiffer, e.found.ArgsNotCompared
		}
		e.found = found
		if !e.compared && (im.o.compareAll || recovery.NeedsArgsCheck(e.res.Candidate, found)) {
			toCompare = append(toCompare, e)
			continue
		}
		im.decideEntry(e, removed)
	}
	if len(toCompare) > 0 {
		if err := im.compare(ctx, toCompare); err != nil {
			return nil, err
		}
		for _, e := range toCompare {
			im.decideEntry(e, removed)
		}
	}
	return removed, nil
}

// decideEntry classifies e's found resource, and marks in removed an entry
// that leaves the batch: a conflict, or one found but not to be imported.
func (im *Importer) decideEntry(e *entry, removed map[*entry]bool) {
	im.classify(e.res, e.found)
	if e.res.Status == StatusConflict || e.res.Status == StatusFound && !im.o.reportOnly {
		removed[e] = true
	}
}
