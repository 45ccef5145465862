package benchcmp_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/agentapis/sdk/internal/benchcmp"
)

// TestServerCountsConnections checks that requests on one kept-alive connection count once
// and that a client of its own opens another.
func TestServerCountsConnections(t *testing.T) {
	srv := benchcmp.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	get := func(hc *http.Client) {
		resp, err := hc.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	first, second := benchcmp.FloorClient(), benchcmp.FloorClient()
	t.Cleanup(first.CloseIdleConnections)
	t.Cleanup(second.CloseIdleConnections)
	for range 3 {
		get(first)
	}
	if got := srv.Connections(); got != 1 {
		t.Fatalf("after 3 requests on one client: %d connections, want 1", got)
	}
	get(second)
	if got := srv.Connections(); got != 2 {
		t.Fatalf("after a second client: %d connections, want 2", got)
	}
}
