package terraform

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
)

// apply applies the saved plan and reads back what it imported.
func (im *Importer) apply(ctx context.Context, pending []*entry) error {
	t0 := time.Now()
	applyErr := im.tf.Apply(ctx, tfexec.DirOrPlan(planName), tfexec.Parallelism(im.o.parallelism), tfexec.LockTimeout("0s"))
	im.ran("apply", t0, len(pending))
	if err := im.cancelled(ctx, applyErr); err != nil {
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
