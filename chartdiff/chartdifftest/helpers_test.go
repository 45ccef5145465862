package chartdifftest_test

import (
	"os"
	"testing"

	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/internal/testkit"
)

// do sends a raw request to the fake, at path below its URL.
func do(t *testing.T, srv *chartdifftest.Server, method, path, body string, header map[string]string) testkit.Raw {
	t.Helper()
	return testkit.Do(t, srv.Client(), method, srv.URL+path, body, header)
}

var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }
