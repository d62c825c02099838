// Package logging bridges the logr.Logger that the library's APIs take, as
// controller-runtime and crossplane-runtime do, to the zap.Logger the
// library logs through: one place, so that every package treats a caller's
// logger the same way.
package logging

import (
	"maps"
	"slices"

	"github.com/go-logr/logr"
	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Zap returns the zap.Logger to log through for l, the logr.Logger a caller
// passed: the zap.Logger behind a zapr Logger (zapr.NewLogger), as it is;
// or else one whose core writes every entry to l. The zero Logger (and
// logr.Discard) logs nothing.
func Zap(l logr.Logger) *zap.Logger {
	sink := l.GetSink()
	if sink == nil {
		return zap.NewNop()
	}
	if u, ok := sink.(zapr.Underlier); ok {
		return u.GetUnderlying()
	}
	return zap.New(&logrCore{log: l})
}

// logrCore is a zapcore.Core that writes to a logr.Logger: an info or warn
// entry at V(0), a debug entry at V(1) (the levels zapr maps), an error
// entry as an Error; the fields as key-value pairs in their order, the zap
// logger's name as the logr name.
type logrCore struct {
	log    logr.Logger
	fields []zapcore.Field
}

var _ zapcore.Core = (*logrCore)(nil)

func (c *logrCore) Enabled(l zapcore.Level) bool {
	if l >= zapcore.ErrorLevel {
		return true
	}
	return c.log.V(verbosity(l)).Enabled()
}

func (c *logrCore) With(fields []zapcore.Field) zapcore.Core {
	return &logrCore{log: c.log, fields: append(c.fields[:len(c.fields):len(c.fields)], fields...)}
}

func (c *logrCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *logrCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	var kv []any
	for _, f := range append(c.fields[:len(c.fields):len(c.fields)], fields...) {
		enc := zapcore.NewMapObjectEncoder()
		f.AddTo(enc)
		for _, k := range slices.Sorted(maps.Keys(enc.Fields)) {
			kv = append(kv, k, enc.Fields[k])
		}
	}
	log := c.log
	if e.LoggerName != "" {
		log = log.WithName(e.LoggerName)
	}
	if e.Level >= zapcore.ErrorLevel {
		log.Error(nil, e.Message, kv...)
		return nil
	}
	log.V(verbosity(e.Level)).Info(e.Message, kv...)
	return nil
}

func (c *logrCore) Sync() error { return nil }

// verbosity is the logr verbosity of a zap level below error: 0 for info
// and warn, 1 for debug.
func verbosity(l zapcore.Level) int {
	if l < zapcore.InfoLevel {
		return int(zapcore.InfoLevel - l)
	}
	return 0
}
