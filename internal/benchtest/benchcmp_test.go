package benchtest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agentapis/sdk/internal/benchtest"
)

// TestCountingClientCountsDials checks that requests on one kept-alive connection count once
// and that a client of its own dials again.
func TestCountingClientCountsDials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	get := func(hc *http.Client) {
		resp, err := hc.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	first, firstConns := benchtest.CountingClient(http.DefaultTransport.(*http.Transport).Clone())
	second, secondConns := benchtest.CountingClient(http.DefaultTransport.(*http.Transport).Clone())
	t.Cleanup(first.CloseIdleConnections)
	t.Cleanup(second.CloseIdleConnections)
	for range 3 {
		get(first)
	}
	if got := firstConns(); got != 1 {
		t.Fatalf("after 3 requests on one client: %d connections, want 1", got)
	}
	get(second)
	if got, other := secondConns(), firstConns(); got != 1 || other != 1 {
		t.Fatalf("after a second client: %d and %d connections, want 1 each", got, other)
	}
}
