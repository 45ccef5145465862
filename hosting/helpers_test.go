package hosting_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/internal/testkit"
)

// scan checks that no token the suite uses ever reaches a log line or an error string.
var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }

// testToken is the token the unit tests' clients send.
const testToken = "tok-4b1d9e2a77c04f15"

// withFastRetry keeps a client's retries, with backoffs of milliseconds.
var withFastRetry = hosting.WithRetry(testkit.FastRetry)

// newClient returns a client of the server at url with the test token and no retries; opts
// come after the defaults.
func newClient(t testing.TB, url string, opts ...hosting.Option) *hosting.Client {
	t.Helper()
	defaults := []hosting.Option{hosting.WithBaseURL(url), hosting.WithToken(testToken), hosting.WithRetry(testkit.NoRetry)}
	return testkit.New(t, hosting.New, append(defaults, opts...)...)
}

// jsonBody decodes a recorded request body into a map.
func jsonBody(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), string(b))
	return m
}

// jsonLogger returns a logger writing JSON records to w.
func jsonLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }
