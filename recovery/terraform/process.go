package terraform

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"
)

// How a cancelled command is cleaned up.
//
// On Linux tfexec (v0.25.2, tfexec/cmd_linux.go) starts the CLI with
// Setpgid, so the CLI leads a process group of its own whose ID is its PID,
// and with Pdeathsig SIGKILL, so the CLI dies if the thread that started it
// dies. The provider plugins the CLI starts inherit its group. On
// cancellation tfexec sends SIGINT to the CLI alone and, after the wait
// delay, SIGKILL, again to the CLI alone. The CLI stops its plugins when it
// exits cleanly, but a CLI killed mid-operation leaves them running, still
// in its group. cancelled ends that group: it gives the processes a grace to
// exit, then sends SIGKILL to the whole group and waits until the group is
// gone. Nothing outside the CLI's group is signalled.
//
// Elsewhere tfexec (tfexec/cmd_default.go) starts the CLI in our own process
// group; there is no group of the CLI's to end, so cancelled signals nothing.

// Bounds of the clean-up after a cancelled command.
const (
	// maxReapGrace caps the grace (the wait delay, if shorter) that the
	// CLI's processes get to exit by themselves.
	maxReapGrace = 2 * time.Second
	// reapWait bounds the wait for the group to be gone after SIGKILL.
	reapWait = 5 * time.Second
	// reapPoll is how often the group is checked.
	reapPoll = 20 * time.Millisecond
)

// cancelled returns ctx's error after making sure no CLI or plugin process
// of the run that ended with runErr survives. Call it right after each CLI
// command with the command's error.
func (im *Importer) cancelled(ctx context.Context, runErr error) error {
	if ctx.Err() == nil {
		return nil
	}
	if pgid := cliGroup(runErr); pgid > 0 {
		killed, err := endGroup(pgid, min(im.o.waitDelay, maxReapGrace), reapWait)
		switch {
		case err != nil:
			im.o.log.Warn("Cannot end the processes left by a cancelled terraform run", zap.String("workspace", im.dir),
				zap.Int("process-group", pgid), zap.Error(err))
		case killed:
			im.o.log.Warn("Killed processes left by a cancelled terraform run", zap.String("workspace", im.dir),
				zap.Int("process-group", pgid))
		}
	}
	return fmt.Errorf("terraform: run in %s cancelled: %w", im.dir, ctx.Err())
}
