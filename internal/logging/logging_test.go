package logging

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/go-logr/zapr"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestZap: whatever logr.Logger a provider passes, every progress
// line the adapter logs through zap reaches it, with its name and fields.
func TestZap(t *testing.T) {
	t.Run("zapr: the zap.Logger behind it, as it is", func(t *testing.T) {
		core, logs := observer.New(zap.InfoLevel)
		log := Zap(zapr.NewLogger(zap.New(core)).WithValues("provider", "fakecloud"))
		log.Named("intentjournal").Info("intent begun", zap.String("kind", "RecordSet"), zap.Int("attempt", 1))
		log.Debug("not at info level")
		if logs.Len() != 1 {
			t.Fatalf("logged %d lines, want the info line alone", logs.Len())
		}
		e := logs.All()[0]
		if diff := cmp.Diff(map[string]any{"provider": "fakecloud", "kind": "RecordSet", "attempt": int64(1)}, e.ContextMap()); diff != "" {
			t.Errorf("fields (-want +got):\n%s", diff)
		}
		if e.LoggerName != "intentjournal" || e.Message != "intent begun" {
			t.Errorf("logged %q from %q, want \"intent begun\" from \"intentjournal\"", e.Message, e.LoggerName)
		}
	})

	t.Run("any other sink: every line, in its order", func(t *testing.T) {
		var lines []string
		l := funcr.New(func(prefix, args string) { lines = append(lines, prefix+" "+args) }, funcr.Options{Verbosity: 0})
		log := Zap(l)
		log.Named("intentjournal").With(zap.String("owner", "p-0")).Info("intent settled",
			zap.String("kind", "RecordSet"), zap.String("state", "settled"))
		log.Warn("cannot close the intent journal", zap.Error(errors.New("disk gone")))
		log.Debug("per record: not at V(0)")
		log.Error("an error", zap.Int("n", 2))
		want := []string{
			`intentjournal "level"=0 "msg"="intent settled" "owner"="p-0" "kind"="RecordSet" "state"="settled"`,
			` "level"=0 "msg"="cannot close the intent journal" "error"="disk gone"`,
			` "msg"="an error" "error"=null "n"=2`,
		}
		if diff := cmp.Diff(want, lines); diff != "" {
			t.Errorf("lines (-want +got):\n%s", diff)
		}
	})

	t.Run("any other sink: its verbosity decides debug", func(t *testing.T) {
		var lines []string
		l := funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{Verbosity: 1})
		Zap(l).Debug("per record")
		if len(lines) != 1 || !strings.Contains(lines[0], `"level"=1`) {
			t.Errorf("logged %q, want the debug line at V(1)", lines)
		}
	})

	t.Run("the zero Logger: nothing", func(t *testing.T) {
		if log := Zap(logr.Logger{}); log.Core().Enabled(zap.ErrorLevel) {
			t.Errorf("the zero Logger's zap.Logger logs")
		}
		if log := Zap(logr.Discard()); log.Core().Enabled(zap.ErrorLevel) {
			t.Errorf("logr.Discard()'s zap.Logger logs")
		}
	})
}
