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

func TestFloorDecodesA200AndRefusesOtherStatuses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		_, _ = io.WriteString(w, `{"id":7,"name":"Shadow"}`)
	}))
	t.Cleanup(srv.Close)
	get := func(path string, out any) error {
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return benchtest.Floor(srv.Client(), req, out)
	}
	var got struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
	}
	if err := get("/chart", &got); err != nil || got.ID != 7 || got.Name != "Shadow" {
		t.Errorf("Floor = %v, decoded %+v", err, got)
	}
	if err := get("/missing", &got); err == nil || err.Error() != "status 404" {
		t.Errorf("Floor of a 404 = %v, want status 404", err)
	}
	var wrong []int
	if err := get("/chart", &wrong); err == nil {
		t.Error("Floor decodes into a value of another shape without an error")
	}
}
