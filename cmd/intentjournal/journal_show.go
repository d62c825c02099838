package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"

	"go.uber.org/zap"

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
func (o *showOptions) Run(e *env) error {
	o.log = e.log
	return runJournalShow(e.ctx, e.stdout, *o)
}

// runJournalShow prints the intent of one UID in full.
func runJournalShow(ctx context.Context, out io.Writer, o showOptions) error {
	format, err := o.format()
	if err != nil {
		return err
	}
	if o.UID == "" {
		return usageError("the UID is empty")
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
	t := newTable(out)
	t.row("UID:", in.Resource.UID)
	t.row("Intent ID:", in.ID.String())
	t.row("Resource:", kindName(in.Resource))
	t.row("API version:", in.Resource.APIVersion)
	t.row("State:", string(in.State))
	t.row("Attempt:", strconv.Itoa(in.Attempt))
	t.row("Owner:", owner(in.Owner))
	t.row("Provider config:", providerConfig(in.ProviderConfig))
	t.row("Intended external name:", in.ExternalName)
	t.row("Created:", timestamp(in.CreatedAt))
	t.row("Dispatched:", timestamp(in.DispatchedAt))
	t.row("Updated:", timestamp(in.UpdatedAt))
	t.row("Outcome external name:", in.Outcome.ExternalName)
	t.row("Outcome error class:", string(in.Outcome.ErrorClass))
	t.row("Outcome reason:", in.Outcome.Reason)
	t.row("Outcome message:", in.Outcome.Message)
	keys := make([]string, 0, len(in.LookupKeys))
	for k := range in.LookupKeys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		t.row("Lookup keys:", "")
	}
	for i, k := range keys {
		if i == 0 {
			t.row("Lookup keys:", k+"="+in.LookupKeys[k])
			continue
		}
		t.rowAsIs("", k+"="+in.LookupKeys[k])
	}
	return t.flush()
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
