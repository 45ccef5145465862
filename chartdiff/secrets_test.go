package chartdiff_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/internal/testkit"
)

// The credentials of the hostile-server tests: a key of the service's form, and a token
// whose URL-escaped forms differ from it.
const (
	hostileKey   = "sk-0f1e2d3c4b5a69788796a5b4c3d2e1f0"
	hostileToken = "hm+Tok/en=9f8e7d6c5b4a3928171615"
)

// echoForms are the forms the hostile server echoes a credential in.
var echoForms = secrettest.EchoesOf("Bearer")

// echo answers with status and body, ECHO in the body replaced by secret in form f, which
// also goes into the request id and another header.
func echo(w http.ResponseWriter, secret string, f secrettest.Echo, status int, body string) {
	e := f.Encode(secret)
	w.Header().Set("X-Request-Id", e)
	w.Header().Set("X-Echo", "seen "+e)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, strings.ReplaceAll(body, "ECHO", e))
}

// Chart ids the hostile server redirects: on the same host, and to a host that does not
// answer, each with the key in the new path.
const (
	chartRedirected = 1000
	chartSentAway   = 1001
)

// hostileServer echoes the credentials it receives in every form and every place it can.
// /charts/{n} and DELETE /keys/{n} pick echoForms[n-1]; so does GET /charts?q=n.
func hostileServer(t *testing.T, away string) *testkit.Recorder {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/charts/{n}", func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("x-phm-key")
		switch r.PathValue("n") {
		case strconv.Itoa(chartRedirected):
			http.Redirect(w, r, "/api/v1/gone/"+url.PathEscape(key)+"/x?k=1", http.StatusFound)
		case strconv.Itoa(chartSentAway):
			http.Redirect(w, r, away+"/k/"+url.PathEscape(key)+"?k=1", http.StatusFound)
		default:
			echo(w, key, echoForms.Numbered(t, r.PathValue("n")), http.StatusUnauthorized, `{"error":{"code":"invalid_api_key","message":"key ECHO is not valid"}}`)
		}
	})
	mux.HandleFunc("GET /api/v1/gone/", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"code":"not_found","message":"no such path"}}`)
	})
	mux.HandleFunc("GET /api/v1/charts", func(w http.ResponseWriter, r *http.Request) {
		echo(w, r.Header.Get("x-phm-key"), echoForms.Numbered(t, r.URL.Query().Get("q")), http.StatusOK, `{"total":"ECHO"}`)
	})
	mux.HandleFunc("GET /api/v1/keys", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/api/v1/gone/"+url.PathEscape(r.Header.Get("x-hm-token")), http.StatusFound)
	})
	mux.HandleFunc("DELETE /api/v1/keys/{n}", func(w http.ResponseWriter, r *http.Request) {
		echo(w, r.Header.Get("x-hm-token"), echoForms.Numbered(t, r.PathValue("n")), http.StatusForbidden, `{"code":"insufficient_scope","message":"token ECHO may not"}`)
	})
	mux.HandleFunc("POST /api/v1/keys/{n}/rotate", func(w http.ResponseWriter, r *http.Request) {
		echo(w, r.Header.Get("x-hm-token"), echoForms.Numbered(t, r.PathValue("n")), http.StatusOK, `{"note":"rotated for ECHO"}`)
	})
	mux.HandleFunc("GET /api/v1/meta", func(w http.ResponseWriter, r *http.Request) {
		echo(w, r.Header.Get("x-hm-token"), echoForms[4], http.StatusOK, `{"diag":{"headers":{"x-phm-key":0,"ECHO":3}}}`)
	})
	return testkit.Record(t, func(w http.ResponseWriter, r *http.Request, _ []byte) { mux.ServeHTTP(w, r) })
}

// TestCredentialsNeverShowWhateverTheServerEchoes runs every place a hostile server can put the
// API key or the account token (a redirect's path, the redirect staying on the host or leaving
// for one that does not answer; a message, a body, a header and the request id, in every
// encoded form; a key answer without plaintext; the header names of the self-check) against
// every way a caller prints the error, and against the log.
func TestCredentialsNeverShowWhateverTheServerEchoes(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(http.NotFoundHandler())
	away := dead.URL
	dead.Close()
	srv := hostileServer(t, away)
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL), chartdiff.WithAPIKey(hostileKey), chartdiff.WithAccountToken(hostileToken),
		chartdiff.WithRetry(testkit.NoRetry), chartdiff.WithLogger(logger))
	require.NoError(t, err)
	ctx := t.Context()
	secrets := []string{hostileKey, hostileToken}
	check := func(what string, err error) {
		t.Helper()
		testkit.NoSecretInError(t, scan, echoForms, what, secrets, err)
	}

	_, err = c.Chart(ctx, chartRedirected)
	check("the key in a redirected path", err)
	assert.Equal(t, "/api/v1/gone/[REDACTED]/x", testkit.APIError(t, err).Path)
	_, err = c.Keys(ctx)
	check("the token in a redirected path", err)
	assert.Equal(t, "/api/v1/gone/[REDACTED]", testkit.APIError(t, err).Path)

	_, err = c.Chart(ctx, chartSentAway)
	check("the key in the path of a redirect to a host that does not answer", err)
	testkit.NoSecretInURLError(t, echoForms, secrets, err, "k=1")

	for i, f := range echoForms {
		n := i + 1
		_, err = c.Chart(ctx, n)
		check("the key echoed "+f.Name+" in an error", err)
		testkit.NoSecretInAPIError(t, echoForms, f, secrets, err)

		_, err = c.Charts(ctx, &chartdiff.ChartsParams{Query: strconv.Itoa(n)})
		check("the key echoed "+f.Name+" in an undecodable answer", err)
		var de *sdk.DecodeError
		require.ErrorAs(t, err, &de, f.Name)

		_, err = c.DeleteKey(ctx, chartdiff.KeyID(strconv.Itoa(n)))
		check("the token echoed "+f.Name+" in an error", err)
		ae := testkit.APIError(t, err)
		echoForms.AssertNoTelltale(t, f.Name, secrets, ae.RequestID, fmt.Sprint(ae.Header), string(ae.Body))

		_, err = c.RotateKey(ctx, chartdiff.KeyID(strconv.Itoa(n)))
		check("the token echoed "+f.Name+" around a key answer without plaintext", err)
		var kae *chartdiff.KeyAnswerError
		require.ErrorAs(t, err, &kae, f.Name)
		echoForms.AssertNoTelltale(t, f.Name, secrets, kae.Response.RequestID, fmt.Sprint(kae.Response.Header))
	}

	report, err := c.SelfCheck(ctx)
	check("the token echoed as the name of a header in the self-check", err)
	require.ErrorIs(t, err, chartdiff.ErrKeyHeaderDropped)
	echoForms.AssertNoTelltale(t, "the self-check report", secrets, report.String(), fmt.Sprintf("%#v", report))

	assert.Contains(t, logs.String(), `"path":"/api/v1/gone/[REDACTED]/x"`, "the logger saw the redirect")
	echoForms.AssertNoTelltale(t, "the log", secrets, logs.String())
}
