// Package stalltest serves the tests that no call of the SDK waits forever: a server that
// never answers, or answers at once and then trickles its body, until the client goes away
// or the test ends; the bounds such a test gives its client; the check that a call ended by
// those bounds and in time; and RunCalls, which runs a package's calls so.
package stalltest

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agentapis/sdk"
)

// Timeouts and Retry are the bounds a client of these tests gets: small timeouts, and two
// attempts with no real wait between them, so that a request that may be repeated ends
// within Reads and one sent once within Once.
var (
	Timeouts = sdk.Timeouts{Header: 150 * time.Millisecond, Attempt: 400 * time.Millisecond}
	Retry    = sdk.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}
)

// Reads is the bound of a call that is retried: each attempt may run to its bound. Once is
// the bound of a call sent once.
var (
	Reads = time.Duration(Retry.MaxAttempts) * Timeouts.Attempt
	Once  = Timeouts.Attempt
)

// Slack is the time a loaded machine may add to a bound.
const Slack = 2 * time.Second

// Modes are the two kinds of stalling server, named for subtests: silent (trickle false)
// and trickling (trickle true).
var Modes = []struct {
	Name    string
	Trickle bool
}{{"silent", false}, {"trickling", true}}

// Stall holds r until the client goes away or done closes: silently, or with trickle after
// a 200 whose headers announce 4,096 bytes of JSON, sending one byte a second.
func Stall(w http.ResponseWriter, r *http.Request, done <-chan struct{}, trickle bool) {
	if trickle {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "4096")
		w.WriteHeader(http.StatusOK)
	}
	for {
		if trickle {
			if _, err := io.WriteString(w, " "); err != nil {
				return
			}
			http.NewResponseController(w).Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-done:
			return
		case <-time.After(time.Second):
		}
	}
}

// NewServer starts a server that answers with answer the requests answer takes (it returns
// true) and stalls the others (see Stall); answer may be nil. The stalled handlers end when
// the test does, before the server's Close waits for them.
func NewServer(t testing.TB, trickle bool, answer func(w http.ResponseWriter, r *http.Request) bool) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if answer != nil && answer(w, r) {
			return
		}
		Stall(w, r, done, trickle)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) }) // runs first
	return srv
}

// DeadAddress returns the address (host:port) of a TCP listener that accepts every
// connection and never answers on it, as a dead server or node does below HTTP: a client
// waits on it until its own bounds end the call. The listener and its connections close when
// the test ends.
func DeadAddress(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	var mu sync.Mutex
	var conns []net.Conn // accepted, never answered
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	return ln.Addr().String()
}

// RequireBounded runs call under a deadline of a minute, which only keeps a failure from
// hanging the suite, and checks that the client's own bounds ended it: an *sdk.RequestError
// caused by context.DeadlineExceeded, within bound plus Slack.
func RequireBounded(t testing.TB, bound time.Duration, call func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	start := time.Now()
	err := call(ctx)
	elapsed := time.Since(start)
	var re *sdk.RequestError
	if !errors.As(err, &re) {
		t.Fatalf("want an *sdk.RequestError, got %T: %v", err, err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("want an error caused by context.DeadlineExceeded, got %v", err)
	}
	if ctx.Err() != nil {
		t.Errorf("the test's deadline ended the call, not the client's bounds")
	}
	if elapsed >= bound+Slack {
		t.Errorf("the call took %v, beyond its bound %v plus %v", elapsed, bound, Slack)
	}
}

// Call is one kind of call of a client C that a test of the bounds runs: Do makes it with
// the client, and Bound is its documented worst case (Reads, Once, or more for a call that
// waits on purpose).
type Call[C any] struct {
	Name  string
	Bound time.Duration
	Do    func(ctx context.Context, c C) error
}

// RunCalls runs every call in both Modes, each in a parallel subtest named "<mode>/<call>",
// against a server of its own, server(t, trickle) (a stalling server: NewServer), and a client
// of its own, newClient(url), which the test gives Timeouts and Retry; each call must end as
// RequireBounded says.
func RunCalls[C any](t *testing.T, calls []Call[C], server func(t *testing.T, trickle bool) *httptest.Server,
	newClient func(url string) (C, error)) {
	t.Helper()
	for _, mode := range Modes {
		for _, call := range calls {
			t.Run(mode.Name+"/"+call.Name, func(t *testing.T) {
				t.Parallel()
				c, err := newClient(server(t, mode.Trickle).URL)
				if err != nil {
					t.Fatalf("new client: %v", err)
				}
				RequireBounded(t, call.Bound, func(ctx context.Context) error { return call.Do(ctx, c) })
			})
		}
	}
}
