package hosting_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/internal/errtest"
	"github.com/agentapis/sdk/internal/secrettest"
)

// testToken is the token the unit tests' clients send.
const testToken = "tok-4b1d9e2a77c04f15"

// fastRetry retries quickly, so that tests of the retry path take milliseconds.
var fastRetry = sdk.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}

// noRetry turns the retries off, so that a test sees each answer as the server sent it.
var noRetry = sdk.RetryPolicy{MaxAttempts: 1}

// withFastRetry is the option of fastRetry.
var withFastRetry = hosting.WithRetry(fastRetry)

// seen is one request a test server received.
type seen struct {
	Method, Path string
	RawQuery     string
	Header       http.Header
	Body         []byte
}

// recorder is a test server that records every request and answers with a handler.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []seen
}

// serve starts a recorder for one test; handler answers each request after it is recorded.
func serve(t *testing.T, handler func(w http.ResponseWriter, r *http.Request, body []byte)) *recorder {
	t.Helper()
	rec := &recorder{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, seen{Method: r.Method, Path: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
		rec.mu.Unlock()
		handler(w, r, body)
	}))
	t.Cleanup(rec.Close)
	return rec
}

// requests returns the requests received so far.
func (rec *recorder) requests() []seen {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]seen(nil), rec.reqs...)
}

// answer serves a fixed status and JSON body to every request.
func answer(status int, body string) func(http.ResponseWriter, *http.Request, []byte) {
	return func(w http.ResponseWriter, _ *http.Request, _ []byte) { reply(w, status, body) }
}

// reply writes a JSON answer.
func reply(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// newClient returns a client of the server at url with the test token and no retries; opts
// come after the defaults.
func newClient(t *testing.T, url string, opts ...hosting.Option) *hosting.Client {
	t.Helper()
	all := append([]hosting.Option{hosting.WithBaseURL(url), hosting.WithToken(testToken), hosting.WithRetry(noRetry)}, opts...)
	c, err := hosting.New(all...)
	require.NoError(t, err)
	return c
}

// Typed views of an error, failing the test when err holds none of that type.
var (
	apiError          = errtest.As[*sdk.APIError]
	validationError   = errtest.As[*sdk.ValidationError]
	missingCredential = errtest.As[*sdk.MissingCredentialError]
	decodeError       = errtest.As[*sdk.DecodeError]
)

// jsonBody decodes a recorded request body into a map.
func jsonBody(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), string(b))
	return m
}

// logBuffer is a log destination safe for concurrent use, with a JSON logger writing to it.
type logBuffer struct{ secrettest.LogBuffer }

// logger returns a logger writing to l.
func (l *logBuffer) logger() *slog.Logger { return slog.New(slog.NewJSONHandler(l, nil)) }
