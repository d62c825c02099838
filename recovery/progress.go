package recovery

import (
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/intentjournal/intentjournal/recovery/report"
)

// progress counts outcomes and logs them with a rate and an ETA.
type progress struct {
	logger     *zap.Logger
	every      int64
	start      time.Time
	discovered atomic.Int64
	resolved   atomic.Int64
	mu         sync.Mutex
	counts     map[report.Outcome]int
}

func newProgress(log *zap.Logger, every int) *progress {
	return &progress{logger: log, every: int64(every), start: time.Now(), counts: map[report.Outcome]int{}}
}

func (p *progress) found() { p.discovered.Add(1) }

func (p *progress) done(o report.Outcome) {
	p.mu.Lock()
	p.counts[o]++
	p.mu.Unlock()
	if n := p.resolved.Add(1); n%p.every == 0 {
		p.log("recovery progress")
	}
}

// log logs the counts so far, the rate and an ETA, and extra.
func (p *progress) log(msg string, extra ...zap.Field) {
	p.mu.Lock()
	counts := make(map[string]int, len(p.counts))
	for k, v := range p.counts {
		counts[string(k)] = v
	}
	p.mu.Unlock()
	done, found := p.resolved.Load(), p.discovered.Load()
	elapsed := time.Since(p.start)
	fields := []zap.Field{zap.Int64("resolved", done), zap.Int64("discovered", found), zap.Any("outcomes", counts), zap.Duration("elapsed", elapsed.Round(time.Millisecond))}
	if done > 0 && found > done {
		eta := time.Duration(float64(elapsed) / float64(done) * float64(found-done))
		fields = append(fields, zap.Duration("eta", eta.Round(time.Second)))
	}
	p.logger.Info(msg, append(fields, extra...)...)
}
