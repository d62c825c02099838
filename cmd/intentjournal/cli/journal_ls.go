package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/intentjournal/intentjournal/internal/tabular"
	"github.com/intentjournal/intentjournal/journal"
)

// lsOptions are the options of `journal ls`.
type lsOptions struct {
	journalFile `embed:""`
	outputFlag  `embed:""`

	State     []string `name:"state" sep:"none" placeholder:"STATE" help:"Only intents in this state (repeatable): pending, dispatched, succeeded, failed, settled, cleared, adopted, reported."`
	Unsettled bool     `name:"unsettled" help:"Only unsettled intents (pending, dispatched, succeeded, failed)."`

	log *zap.Logger
	now func() time.Time
}

// Run runs `journal ls`.
func (o *lsOptions) Run(e *Env) error {
	o.log = e.Log
	return runJournalLs(e.Ctx, e.Stdout, *o)
}

// lsOutput is the json and yaml form of `journal ls`.
type lsOutput struct {
	Journal string           `json:"journal"`
	Intents []journal.Intent `json:"intents"`
	// Unreadable lists records that are corrupt, quarantined or of a newer
	// format. They are listed whatever the filters: what their creates did
	// is unknown.
	Unreadable []unreadableRecord `json:"unreadable,omitempty"`
}

// unreadableRecord is a record ls could not decode.
type unreadableRecord struct {
	UID    string `json:"uid,omitempty"`
	Reason string `json:"reason"`
}

// runJournalLs lists the intents of a journal, opened read-only.
func runJournalLs(ctx context.Context, out io.Writer, o lsOptions) error {
	format, err := o.format()
	if err != nil {
		return err
	}
	var states []journal.State
	for _, s := range o.State {
		st := journal.State(s)
		if !st.Valid() {
			return UsageError("unknown --state %q: want one of %v", s, journal.States)
		}
		states = append(states, st)
	}
	if o.now == nil {
		o.now = time.Now
	}
	j, err := o.open(o.log, false)
	if err != nil {
		return err
	}
	defer j.Close()

	res := lsOutput{Journal: o.Path, Intents: []journal.Intent{}}
	for in, err := range j.All(ctx) {
		var ce *journal.CorruptError
		switch {
		case errors.As(err, &ce):
			res.Unreadable = append(res.Unreadable, unreadableRecord{UID: ce.Key, Reason: ce.Reason})
			continue
		case errors.Is(err, journal.ErrUnsupportedVersion):
			res.Unreadable = append(res.Unreadable, unreadableRecord{Reason: err.Error()})
			continue
		case err != nil:
			return fmt.Errorf("cannot list journal %s: %w", o.Path, err)
		}
		if o.Unsettled && !in.Unsettled() {
			continue
		}
		if len(states) > 0 && !slices.Contains(states, in.State) {
			continue
		}
		res.Intents = append(res.Intents, in)
	}
	if format != formatTable {
		return writeData(out, format, res)
	}
	now := o.now()
	t := tabular.New(out, "UID", "KIND/NAME", "STATE", "ATTEMPT", "AGE", "OWNER")
	for _, in := range res.Intents {
		t.Row(in.Resource.UID, kindName(in.Resource), string(in.State), strconv.Itoa(in.Attempt),
			tabular.Age(now.Sub(in.CreatedAt)), owner(in.Owner))
	}
	for _, u := range res.Unreadable {
		t.Row(u.UID, "", "unreadable", "", "", "")
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if n := len(res.Unreadable); n > 0 {
		fmt.Fprintf(out, "\n%d unreadable record(s); run: intentjournal journal verify %s\n", n, o.Path)
	}
	return nil
}

// kindName returns kind/name, or kind/namespace/name.
func kindName(r journal.ResourceRef) string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

// owner returns replica[/shard]@epoch, or "" for an unknown owner.
func owner(o journal.Owner) string {
	if o == (journal.Owner{}) {
		return ""
	}
	return o.String()
}
