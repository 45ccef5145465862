package chartdiff_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/internal/errtest"
)

// noRetry turns the read retries off, so that a test sees each answer as the fake sent it.
var noRetry = sdk.RetryPolicy{MaxAttempts: 1}

// sentLog records the header of every request a client sends, before the fake receives it:
// the fake's records redact the credential headers, and these tests check their values.
type sentLog struct {
	mu      sync.Mutex
	headers []http.Header
}

// RoundTrip records the request's header and sends it with net/http's default transport.
func (l *sentLog) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	l.headers = append(l.headers, r.Header.Clone())
	l.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// option makes a client send through l.
func (l *sentLog) option() chartdiff.Option {
	return chartdiff.WithHTTPClient(&http.Client{Transport: l})
}

// sent returns the headers recorded so far, in order.
func (l *sentLog) sent() []http.Header {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]http.Header(nil), l.headers...)
}

// startFake starts a fake for one test.
func startFake(t *testing.T, opts ...chartdifftest.Option) *chartdifftest.Server {
	t.Helper()
	srv := chartdifftest.NewServer(opts...)
	t.Cleanup(srv.Close)
	return srv
}

// newClient returns a client of srv without read retries; opts come after the defaults.
func newClient(t *testing.T, srv *chartdifftest.Server, opts ...chartdiff.Option) *chartdiff.Client {
	t.Helper()
	all := append([]chartdiff.Option{chartdiff.WithBaseURL(srv.URL), chartdiff.WithRetry(noRetry)}, opts...)
	c, err := chartdiff.New(all...)
	require.NoError(t, err)
	return c
}

// rawJSON fetches path below /api/v1 from srv without the client and decodes the body as a
// JSON object, so that tests compare the client's fields with what the fake actually sent.
func rawJSON(t *testing.T, srv *chartdifftest.Server, path string) map[string]any {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + "/api/v1" + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var m map[string]any
	require.NoError(t, json.Unmarshal(body, &m))
	return m
}

// Typed views of an error, failing the test when err holds none of that type.
var (
	apiError        = errtest.As[*sdk.APIError]
	validationError = errtest.As[*sdk.ValidationError]
)

// itoa is strconv.Itoa, short.
func itoa(n int) string { return strconv.Itoa(n) }

// serveFixture starts a server that answers every request with status and the body of
// testdata/name, as JSON.
func serveFixture(t *testing.T, status int, name string) *httptest.Server {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// mustJSON encodes v.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
