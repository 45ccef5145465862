package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting/hostingtest"
)

func TestRunOffline(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, settings{repo: "hosting-example"}))
	text := out.String()
	for _, want := range []string{
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
	} {
		assert.Contains(t, text, want)
	}
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
