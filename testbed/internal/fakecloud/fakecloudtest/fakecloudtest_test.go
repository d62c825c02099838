package fakecloudtest

import (
	"context"
	"errors"
	"testing"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

func TestServe(t *testing.T) {
	srv, c := Serve(t)
	ctx := context.Background()
	if err := srv.SetFaults(fakecloud.Faults{ErrorRate: fakecloud.Rates{Create: 1}}); err != nil {
		t.Fatal(err)
	}
	_, err := c.CreateNetwork(ctx, fakecloud.Network{Name: "n"})
	var apiErr *fakecloud.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 {
		t.Fatalf("with errorRate 1 a create must answer 500; got %v", err)
	}
}

func TestStartStop(t *testing.T) {
	p := Start(t, Build(t), Options{Args: []string{"--latency=1ms"}})
	p.Healthy(t)
	p.Stop(t)
	p.Restart(t)
	p.Healthy(t)
	p.Kill(t)
}
