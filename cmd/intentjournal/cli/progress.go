package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap/zapcore"
)

// progressMessage is the message of the recovery pass's progress log lines.
const progressMessage = "recovery progress"

// progressCore shows the recovery pass's progress lines as one status line
// rewritten in place, for a terminal. Every other entry is written by the
// wrapped core after the status line is cleared, and the status line is
// drawn again below it.
type progressCore struct {
	zapcore.Core
	s *progressState
}

type progressState struct {
	mu   sync.Mutex
	w    io.Writer
	line string // the status line on screen, "" when none
}

func newProgressCore(c zapcore.Core, w io.Writer) zapcore.Core {
	return &progressCore{Core: c, s: &progressState{w: w}}
}

func (c *progressCore) With(fields []zapcore.Field) zapcore.Core {
	return &progressCore{Core: c.Core.With(fields), s: c.s}
}

func (c *progressCore) Check(ent zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(ent.Level) {
		return ce.AddCore(ent, c)
	}
	return ce
}

func (c *progressCore) Write(ent zapcore.Entry, fields []zapcore.Field) error {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if ent.Message == progressMessage {
		c.s.line = progressLine(fields)
		_, err := fmt.Fprintf(c.s.w, "\r\x1b[K%s", c.s.line)
		return err
	}
	if c.s.line != "" {
		fmt.Fprint(c.s.w, "\r\x1b[K")
	}
	err := c.Core.Write(ent, fields)
	if c.s.line != "" && ent.Message != "recovery pass finished" {
		fmt.Fprint(c.s.w, c.s.line)
	} else {
		c.s.line = ""
	}
	return err
}

// progressLine renders the fields of a progress entry, e.g.
// "recovering: 120/400 resolved (adopted 3, cleared 117), eta 12s".
func progressLine(fields []zapcore.Field) string {
	enc := zapcore.NewMapObjectEncoder()
	for _, f := range fields {
		f.AddTo(enc)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "recovering: %v/%v resolved", enc.Fields["resolved"], enc.Fields["discovered"])
	if m, ok := enc.Fields["outcomes"].(map[string]int); ok && len(m) > 0 {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %d", k, m[k])
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	if eta, ok := enc.Fields["eta"].(time.Duration); ok {
		fmt.Fprintf(&b, ", eta %s", eta)
	}
	return b.String()
}
