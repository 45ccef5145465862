package chartdiff_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/internal/testkit"
)

var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }

// epoch is the start of the fake clocks: half way through an hour.
var epoch = time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC)

// newClient returns a client of the server at url without read retries; opts come after the
// defaults.
func newClient(t testing.TB, url string, opts ...chartdiff.Option) *chartdiff.Client {
	defaults := []chartdiff.Option{chartdiff.WithBaseURL(url), chartdiff.WithRetry(testkit.NoRetry)}
	return testkit.New(t, chartdiff.New, append(defaults, opts...)...)
}

// rawJSON fetches path below /api/v1 from srv without the client and returns the body as a
// JSON object, so that tests compare the client's fields with what the fake actually sent.
func rawJSON(t *testing.T, srv *chartdifftest.Server, path string) map[string]any {
	t.Helper()
	raw := testkit.Do(t, srv.Client(), http.MethodGet, srv.URL+"/api/v1"+path, "", nil)
	require.Equal(t, http.StatusOK, raw.Status, string(raw.Body))
	require.NotNil(t, raw.JSON, string(raw.Body))
	return raw.JSON
}

// itoa is strconv.Itoa, short.
func itoa(n int) string { return strconv.Itoa(n) }

// serveFixture starts a server that answers every request with status and the body of
// testdata/name, as JSON.
func serveFixture(t *testing.T, status int, name string) *testkit.Recorder {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return testkit.Record(t, testkit.Answer(status, string(body)))
}

// mustJSON encodes v.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
