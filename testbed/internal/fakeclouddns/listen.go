package fakeclouddns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Running is a Server listening on a loopback address.
type Running struct {
	// URL is the server's root, "http://127.0.0.1:PORT", without a
	// trailing slash.
	URL string

	hs       *http.Server
	cancel   context.CancelFunc
	done     chan struct{} // closed when Serve returned
	serveErr error
}

// Listen serves s on addr, which must be a loopback address such as
// "127.0.0.1:0" (the kernel picks the port); empty means "127.0.0.1:0".
// It returns once the listener is open. Close or Shutdown stops it.
func Listen(addr string, s http.Handler) (*Running, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if err := CheckLoopback(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	// Request contexts derive from ctx, so that Close releases requests
	// waiting out an injected latency.
	ctx, cancel := context.WithCancel(context.Background())
	r := &Running{
		URL:    "http://" + ln.Addr().String(),
		hs:     &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }},
		cancel: cancel,
		done:   make(chan struct{}),
	}
	go func() {
		r.serveErr = r.hs.Serve(ln)
		close(r.done)
	}()
	return r, nil
}

// CheckLoopback refuses an address whose host is not on the loopback
// interface: the fake never listens where another machine could reach it.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%w: address %q: %w", ErrInvalid, addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%w: address %q: the fake only listens on loopback addresses such as 127.0.0.1", ErrInvalid, addr)
	}
	return nil
}

// Endpoint returns the URL to give the Terraform provider as
// dns_custom_endpoint: URL + "/dns/v1/". The provider strips the version
// and "/dns/" from it for its dns/v1 client (services/dns/client.go
// NewClient) and keeps it whole for its raw requests on managed zones.
func (r *Running) Endpoint() string { return r.URL + APIPrefix }

// BasePath returns the base path to give a dns/v1 client directly
// (option.WithEndpoint or Service.BasePath): URL + "/". The client appends
// "dns/v1/projects/..." itself.
func (r *Running) BasePath() string { return r.URL + "/" }

// Close stops the server at once: it closes the listener and every
// connection, and releases requests that wait out a latency. Close and
// Shutdown may be called more than once.
func (r *Running) Close() error {
	r.cancel()
	err := r.hs.Close()
	<-r.done
	return err
}

// Shutdown stops the server gracefully: in-flight requests get until ctx
// is done to finish.
func (r *Running) Shutdown(ctx context.Context) error {
	err := r.hs.Shutdown(ctx)
	r.cancel()
	<-r.done
	if !errors.Is(r.serveErr, http.ErrServerClosed) && err == nil {
		err = r.serveErr
	}
	return err
}
