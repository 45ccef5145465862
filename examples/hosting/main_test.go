package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/examples/internal/cli"
	"github.com/agentapis/sdk/examples/internal/clitest"
	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/hosting/hostingtest"
	"github.com/agentapis/sdk/internal/secrettest"
)

// scan checks that no credential a client of this suite sends ever reaches a log line or an
// error string.
var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }

func TestRunOffline(t *testing.T) {
	t.Parallel()
	text := clitest.Output(t, func(ctx context.Context, w io.Writer) error {
		return run(ctx, w, settings{repo: "hosting-example"})
	})
	clitest.AssertContainsAll(t, text,
		"offline: using the in-memory fake",
		"created repository hosting-example (public)",
		"  uploaded css/site.css (",
		"  uploaded img/logo.png (",
		"  uploaded index.html (",
		"(3/3 files, ",
		"deployed commit ",
		"/site/hosting-example/\n",
		"  css/site.css: 134 bytes, identical\n",
		"  img/logo.png: 95 bytes, identical\n",
		"title: Hello from the hosting SDK\n",
		"token header: Authorization; gateway remedies: 0 token retries, 0 blocked PUTs resent\n",
	)
}

func TestRunAgainstAServiceBehindAGateway(t *testing.T) {
	t.Parallel()
	srv := hostingtest.NewServer(hostingtest.WithGatewayStripsAuthorization(), hostingtest.WithCDNBlockPUT())
	defer srv.Close()
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, settings{baseURL: srv.URL, token: hostingtest.DefaultToken, repo: "behind-gateway"}))
	assert.Contains(t, out.String(), "title: Hello from the hosting SDK\n")
	assert.Contains(t, out.String(), "token header: X-API-Token; gateway remedies: 1 token retries, 3 blocked PUTs resent\n")
	assert.Equal(t, 3, srv.Stats().PostWrites)
}

func TestRunReportsAFailure(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		_, _ = w.Write([]byte(`{"ok":false,"error":"repository name already taken"}`))
	}))
	defer srv.Close()
	err := run(t.Context(), &bytes.Buffer{}, settings{baseURL: srv.URL, token: "tok-0123456789", repo: "taken"})
	assert.ErrorContains(t, err, "creating repository taken")
	assert.ErrorContains(t, err, "repository name already taken")
}

func TestHelpPrintsTheUsageAndDoesNothing(t *testing.T) {
	t.Parallel()
	clitest.AssertHelp(t, realMain, "hosting", hosting.EnvURL, hosting.EnvToken)
}

func TestRefusesIncompleteSettings(t *testing.T) {
	t.Parallel()
	clitest.AssertRefused(t, realMain, "hosting", map[string]string{hosting.EnvURL: "https://host.example"},
		"HOSTING_URL is set without HOSTING_TOKEN: set that too to use the service, or unset HOSTING_URL to use the in-memory fake")
	clitest.AssertRefused(t, realMain, "hosting", nil, "-repo: the repository needs a name", "-repo", " ")
	clitest.AssertRefused(t, realMain, "hosting", nil, "flag provided but not defined: -prune", "-prune")
}

func TestMainPublishesToTheServiceInTheEnvironment(t *testing.T) {
	t.Parallel()
	srv := hostingtest.NewServer()
	defer srv.Close()
	env := map[string]string{hosting.EnvURL: srv.URL, hosting.EnvToken: hostingtest.DefaultToken}
	code, out, errOut := clitest.Run(t, realMain, env, "-repo", "from-env")
	require.Equal(t, cli.ExitOK, code, errOut)
	assert.NotContains(t, out, "offline")
	assert.Contains(t, out, "created repository from-env (public)\n")
	assert.Equal(t, 1, srv.RequestCount(http.MethodPost, "/api/v1/repos"))
}

func TestMainReportsAFailureWithStatus1(t *testing.T) {
	t.Parallel()
	srv := hostingtest.NewServer()
	defer srv.Close()
	env := map[string]string{hosting.EnvURL: srv.URL, hosting.EnvToken: "tok-not-an-account"}
	code, _, errOut := clitest.Run(t, realMain, env)
	assert.Equal(t, cli.ExitFailed, code)
	assert.Contains(t, errOut, "hosting: creating repository hosting-example: ")
}
