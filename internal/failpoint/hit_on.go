//go:build failpoints

package failpoint

import (
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
)

// armed is a point armed from the environment.
type armed struct {
	Term
	hits atomic.Int64
}

// points holds the armed points by name; it is written once, by init.
var points map[string]*armed

func init() {
	terms, err := Parse(os.Getenv(EnvVar))
	if err != nil {
		// A failpoints build is a test binary: refuse to run with a
		// crash plan it cannot carry out rather than run without it.
		fmt.Fprintf(os.Stderr, "%v\n", err)
		os.Exit(2)
	}
	points = make(map[string]*armed, len(terms))
	for _, t := range terms {
		points[t.Point] = &armed{Term: t}
		fmt.Fprintf(os.Stderr, "failpoint: %s armed\n", t)
	}
}

// Hit marks the point name and carries out its action on the armed hit.
func Hit(name string) {
	p := points[name]
	if p == nil {
		return
	}
	n := p.hits.Add(1)
	if n != int64(p.OnHit) {
		return
	}
	switch p.Action {
	case ActionKill:
		fmt.Fprintf(os.Stderr, "failpoint: %s fired on hit %d: SIGKILL\n", name, n)
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // SIGKILL is not delivered synchronously everywhere: never run on
	}
}
