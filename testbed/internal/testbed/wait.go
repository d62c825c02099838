package testbed

import (
	"testing"
	"time"
)

// Eventually calls cond every interval until it returns true, and fails the
// test naming what when timeout passes first or cond returns an error.
func Eventually(t testing.TB, timeout, interval time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			t.Fatalf("testbed: waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("testbed: timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(interval)
	}
}
