package recovery

import (
	"errors"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// Gate errors. A reconciler that gets one must not create, and should
// requeue.
var (
	// ErrRecoveryPending: the recovery pass has not finished discovering
	// unsettled intents, so any resource may still have one.
	ErrRecoveryPending = errors.New("recovery: the recovery pass has not finished scanning; creates wait")
	// ErrIntentUnresolved: this resource has an unsettled create intent
	// that recovery has not resolved.
	ErrIntentUnresolved = errors.New("recovery: the resource has an unresolved create intent")
)

// Gate stops creates for resources whose earlier create is unresolved. It is
// closed for every resource until the recovery pass has discovered all
// candidates (fail closed), then closed only for the candidates not yet
// resolved. A Gate is safe for concurrent use; the zero value is a closed
// gate.
type Gate struct {
	mu      sync.RWMutex
	scanned bool
	blocked map[types.UID]string // uid -> reason
}

// NewGate returns a closed gate.
func NewGate() *Gate { return &Gate{} }

// Allow returns nil when a create may be dispatched for uid, and an error
// wrapping ErrRecoveryPending or ErrIntentUnresolved when it may not.
func (g *Gate) Allow(uid types.UID) error {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if !g.scanned {
		return ErrRecoveryPending
	}
	if reason, ok := g.blocked[uid]; ok {
		return fmt.Errorf("%w: %s", ErrIntentUnresolved, reason)
	}
	return nil
}

// Block closes the gate for uid until Unblock.
func (g *Gate) Block(uid types.UID, reason string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.blocked == nil {
		g.blocked = map[types.UID]string{}
	}
	g.blocked[uid] = reason
}

// Unblock opens the gate for uid.
func (g *Gate) Unblock(uid types.UID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.blocked, uid)
}

// MarkScanned records that every candidate has been discovered (and
// blocked): from now on, resources that are not blocked may create.
func (g *Gate) MarkScanned() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.scanned = true
}

// Blocked returns how many resources are blocked.
func (g *Gate) Blocked() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.blocked)
}
