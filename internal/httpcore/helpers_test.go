package httpcore

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
)

// testConfig stands for a service package's configuration type.
type testConfig struct {
	Settings
}

// testOption stands for a service package's Option alias.
type testOption = Option[*testConfig]

// fastRetry keeps backoff waits short in tests.
var fastRetry = sdk.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}

// newTestClient builds a client for a service named "testsvc" with the given options.
func newTestClient(t *testing.T, svc Service, opts ...testOption) *Client {
	t.Helper()
	cfg := &testConfig{}
	require.NoError(t, Configure("testsvc", cfg, opts))
	if svc.Name == "" {
		svc.Name = "testsvc"
	}
	c, err := NewClient(&cfg.Settings, svc)
	require.NoError(t, err)
	return c
}

// newServer starts an httptest server closed at the end of the test.
func newServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}
