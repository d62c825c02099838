package testbed

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// TestFakeCloudSurvivesKill checks the helpers the crash tests rely on: after
// SIGKILL and Restart the fake cloud serves the same URL with the same
// objects, and Terminate stops it cleanly.
func TestFakeCloudSurvivesKill(t *testing.T) {
	fc := StartFakeCloud(t, Build(t, FakeCloudPackage))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	n, err := fc.Client.CreateNetwork(ctx, fakecloud.Network{Name: "n", CIDRBlock: "10.0.0.0/16"})
	if err != nil {
		t.Fatalf("CreateNetwork(): %v", err)
	}
	url, pid := fc.URL, fc.Pid()
	fc.Kill()
	if exited, _ := fc.Exited(); !exited {
		t.Fatalf("Kill(): fake cloud pid %d still running", pid)
	}
	if _, err := fc.Client.GetNetwork(ctx, n.ID); err == nil || errors.Is(err, fakecloud.ErrNotFound) {
		t.Fatalf("GetNetwork() after Kill(): want a transport error, got %v", err)
	}

	fc.Restart()
	if fc.Pid() == pid {
		t.Errorf("Restart(): pid %d did not change", pid)
	}
	if diff := cmp.Diff(url, fc.URL); diff != "" {
		t.Errorf("Restart() should keep the URL; -want, +got:\n%s", diff)
	}
	got, err := fc.Client.GetNetwork(ctx, n.ID)
	if err != nil {
		t.Fatalf("GetNetwork() after Restart(): %v", err)
	}
	if diff := cmp.Diff(n, got); diff != "" {
		t.Errorf("the network should survive SIGKILL; -want, +got:\n%s", diff)
	}
	if err := fc.Terminate(); err != nil {
		t.Errorf("Terminate(): fake cloud did not exit cleanly: %v", err)
	}
}
