package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// TestProgressCore checks the terminal rendering of the recovery pass's
// progress: one status line rewritten in place, cleared before any other
// log line and drawn again after it, and dropped when the pass finishes.
func TestProgressCore(t *testing.T) {
	var buf bytes.Buffer
	enc := zapcore.NewConsoleEncoder(zapcore.EncoderConfig{MessageKey: "msg", LevelKey: "level", EncodeLevel: zapcore.CapitalLevelEncoder})
	log := zap.New(newProgressCore(zapcore.NewCore(enc, zapcore.AddSync(&buf), zapcore.InfoLevel), &buf)).Named("recovery")
	progress := func(resolved, discovered int64, outcomes map[string]int, eta time.Duration) {
		fields := []zap.Field{zap.Int64("resolved", resolved), zap.Int64("discovered", discovered), zap.Any("outcomes", outcomes)}
		if eta > 0 {
			fields = append(fields, zap.Duration("eta", eta))
		}
		log.Info(progressMessage, fields...)
	}
	progress(1, 4, map[string]int{"adopted": 1}, 3*time.Second)
	log.Warn("a warning")
	progress(4, 4, map[string]int{"adopted": 1, "cleared": 3}, 0)
	log.Info("recovery pass finished", zap.Int64("resolved", 4))
	log.Debug("not shown")

	want := "\r\x1b[Krecovering: 1/4 resolved (adopted 1), eta 3s" +
		"\r\x1b[KWARN\ta warning\n" +
		"recovering: 1/4 resolved (adopted 1), eta 3s" +
		"\r\x1b[Krecovering: 4/4 resolved (adopted 1, cleared 3)" +
		"\r\x1b[KINFO\trecovery pass finished\t{\"resolved\": 4}\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("terminal progress output (-want +got):\n%s", diff)
	}
}
