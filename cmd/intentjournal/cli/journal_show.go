package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"

	"go.uber.org/zap"

	"github.com/intentjournal/intentjournal/internal/tabular"
	"github.com/intentjournal/intentjournal/journal"
)

// showOptions are the options of `journal show`.
type showOptions struct {
	journalFile `embed:""`
	UID         string `arg:"" name:"UID" help:"UID of the managed resource whose intent to show."`
	outputFlag  `embed:""`

	log *zap.Logger
}

// Run runs `journal show`.
func (o *showOptions) Run(e *Env) error {
	o.log = e.Log
	return runJournalShow(e.Ctx, e.Stdout, *o)
}

// runJournalShow prints the intent of one UID in full.
func runJournalShow(ctx context.Context, out io.Writer, o showOptions) error {
	format, err := o.format()
	if err != nil {
		return err
	}
	if o.UID == "" {
		return UsageError("the UID is empty")
	}
	j, err := o.open(o.log, false)
	if err != nil {
		return err
	}
	defer j.Close()
	in, err := j.Get(ctx, o.UID)
	switch {
	case errors.Is(err, journal.ErrNotFound):
		return fmt.Errorf("journal %s has no intent for uid %s; list them with: intentjournal journal ls %s", o.Path, o.UID, o.Path)
	case err != nil:
		return fmt.Errorf("cannot read the intent of uid %s from %s: %w", o.UID, o.Path, err)
	}
	if format != formatTable {
		return writeData(out, format, in)
	}
	t := tabular.New(out)
	t.Row("UID:", in.Resource.UID)
	t.Row("Intent ID:", in.ID.String())
	t.Row("Resource:", kindName(in.Resource))
	t.Row("API version:", in.Resource.APIVersion)
	t.Row("State:", string(in.State))
	t.Row("Attempt:", strconv.Itoa(in.Attempt))
	t.Row("Owner:", owner(in.Owner))
	t.Row("Provider config:", providerConfig(in.ProviderConfig))
	t.Row("Intended external name:", in.ExternalName)
	t.Row("Created:", timestamp(in.CreatedAt))
	t.Row("Dispatched:", timestamp(in.DispatchedAt))
	t.Row("Updated:", timestamp(in.UpdatedAt))
	t.Row("Outcome external name:", in.Outcome.ExternalName)
	t.Row("Outcome error class:", string(in.Outcome.ErrorClass))
	t.Row("Outcome reason:", in.Outcome.Reason)
	t.Row("Outcome message:", in.Outcome.Message)
	keys := make([]string, 0, len(in.LookupKeys))
	for k := range in.LookupKeys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		t.Row("Lookup keys:", "")
	}
	for i, k := range keys {
		if i == 0 {
			t.Row("Lookup keys:", k+"="+in.LookupKeys[k])
			continue
		}
		t.RowAsIs("", k+"="+in.LookupKeys[k])
	}
	return t.Flush()
}

func providerConfig(p journal.ProviderConfigRef) string {
	switch {
	case p.Name == "":
		return ""
	case p.Kind == "":
		return p.Name
	}
	return p.Kind + "/" + p.Name
}
