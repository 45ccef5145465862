package testkit

import (
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/fakeserver"
	"github.com/agentapis/sdk/sdktest"
)

// Recorder is a server for the answers no fake gives (hostile, malformed, a gateway's): it
// records every request as the fakes do (Requests returns the same []sdktest.Request, and
// InjectFaults works as on a fake), and answers with the test's handler.
type Recorder struct {
	*fakeserver.Server
}

// Record starts a Recorder for one test, closed when it ends; h answers each request once
// its body was read whole.
func Record(t testing.TB, h func(w http.ResponseWriter, r *http.Request, body []byte)) *Recorder {
	t.Helper()
	return RecordOn(t, sdk.SystemClock(), h)
}

// RecordOn is Record with the requests' times read on clock, for a test that checks when a
// client sent them (pacing, polling) on a fake clock.
func RecordOn(t testing.TB, clock sdk.Clock, h func(w http.ResponseWriter, r *http.Request, body []byte)) *Recorder {
	t.Helper()
	srv := fakeserver.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return // the client went away
		}
		h(w, r, body)
	}), fakeserver.Config{Now: clock.Now})
	t.Cleanup(srv.Close)
	return &Recorder{Server: srv}
}

// Reply writes a JSON answer: status, Content-Type application/json, and body as it is.
func Reply(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// Answer returns a handler of Record that gives every request the same JSON answer.
func Answer(status int, body string) func(http.ResponseWriter, *http.Request, []byte) {
	return func(w http.ResponseWriter, _ *http.Request, _ []byte) { Reply(w, status, body) }
}

// CountStatus counts the requests answered with status, in the records of a fake or a
// Recorder.
func CountStatus(reqs []sdktest.Request, status int) int {
	n := 0
	for _, r := range reqs {
		if r.Status == status {
			n++
		}
	}
	return n
}

// HeaderLog records the header of every request a client sends, before the server receives
// it, and sends the request with net/http's default transport: a fake's records redact the
// credential headers, and a test of the credentials checks their values here. The zero
// HeaderLog is ready for use, and safe for concurrent use.
type HeaderLog struct {
	mu      sync.Mutex
	headers []http.Header
}

// RoundTrip records the request's header and sends it.
func (l *HeaderLog) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	l.headers = append(l.headers, r.Header.Clone())
	l.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// Client returns an *http.Client that sends through l, for a client's WithHTTPClient.
func (l *HeaderLog) Client() *http.Client { return &http.Client{Transport: l} }

// Sent returns the headers recorded so far, in order.
func (l *HeaderLog) Sent() []http.Header {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]http.Header(nil), l.headers...)
}
