package terraform

import (
	"bytes"
	"context"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"
	"go.uber.org/zap"
)

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
