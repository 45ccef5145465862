package hosting_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/internal/logbuf"
	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/internal/testkit"
)

// TestEchoedTokenNeverReachesErrorsOrLogs runs every failure path against a service that
// repeats the token it received, in upper and lower case, in its error text, in headers, in an
// HTML block page and in a malformed successful answer: no error rendering and no log line
// may hold it.
func TestEchoedTokenNeverReachesErrorsOrLogs(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + r.Header.Get("X-API-Token")
		upper, lower := strings.ToUpper(token), strings.ToLower(token)
		w.Header().Set("X-Echo-Authorization", "Bearer "+upper)
		w.Header().Set("X-Request-Id", lower)
		switch {
		case strings.HasSuffix(r.URL.Path, "/unauthorized"):
			testkit.Reply(w, http.StatusUnauthorized, `{"ok":false,"error":"token `+upper+` is not valid"}`)
		case strings.HasSuffix(r.URL.Path, "/busy"):
			w.Header().Set("Retry-After", "0")
			testkit.Reply(w, http.StatusServiceUnavailable, `{"ok":false,"error":"busy for `+lower+`"}`)
		case strings.HasSuffix(r.URL.Path, "/blocked"):
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusForbidden)
			_, _ = fmt.Fprintf(w, "<html><body>blocked request with %s</body></html>", upper)
		case strings.HasSuffix(r.URL.Path, "/refused"):
			testkit.Reply(w, http.StatusOK, `{"ok":false,"error":"refused for `+token+`","code":"`+upper+`"}`)
		default:
			testkit.Reply(w, http.StatusOK, `{"ok":true,"note":"`+upper+`","path":7}`)
		}
	})
	logs := &logbuf.Buffer{}
	c := newClient(t, srv.URL, withFastRetry, hosting.WithLogger(slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	ctx := t.Context()
	calls := map[string]func() error{
		"401":          func() error { _, err := c.Repo(ctx, "unauthorized"); return err },
		"503":          func() error { _, err := c.Repo(ctx, "busy"); return err },
		"403 HTML":     func() error { _, err := c.PutFile(ctx, "site", "blocked", []byte("x")); return err },
		"ok false":     func() error { _, err := c.Repo(ctx, "refused"); return err },
		"decode error": func() error { _, err := c.File(ctx, "site", "index.html"); return err },
	}
	for name, call := range calls {
		err := call()
		require.Error(t, err, name)
		scan.Record(err)
		for _, text := range []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
			assert.NotContains(t, strings.ToLower(text), strings.ToLower(testToken), "%s: the token leaked into an error rendering of %T", name, err)
		}
	}
	assert.NotEmpty(t, logs.String())
	assert.NotContains(t, strings.ToLower(logs.String()), strings.ToLower(testToken), "the token leaked into a log line")
}

// hostileToken is the token of the hostile-server tests, with characters that URL escaping
// changes.
const hostileToken = "tok+Hs/9f8e7d6c5b4a3928=1716"

// echoForms are the forms the hostile server echoes the token in.
var echoForms = secrettest.EchoesOf("Bearer")

// TestTokenNeverShowsWhateverTheServerEchoes runs every place a hostile server can put the
// token (a redirect's path, the redirect staying on the host or leaving for one that does not
// answer; a message, a body, a header and the request id, in every encoded form, in an error
// status, an {"ok": false} answer and an undecodable one; the commit id DeployDir quotes)
// against every way a caller prints the error, and against the log.
func TestTokenNeverShowsWhateverTheServerEchoes(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(http.NotFoundHandler())
	away := dead.URL
	dead.Close()
	srv := testkit.Record(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + r.Header.Get("X-API-Token")
		path := strings.TrimPrefix(r.URL.Path, "/api/v1/repos/")
		name, rest, _ := strings.Cut(path, "/") // a repository named <kind><form number>
		kind, n := strings.TrimRight(name, "0123456789"), strings.TrimLeft(name, "abcdefghijklmnopqrstuvwxyz")
		echo := func(status int, body string) {
			e := echoForms.Numbered(t, n).Encode(token)
			w.Header().Set("X-Request-Id", e)
			w.Header().Set("X-Echo", "seen "+e)
			testkit.Reply(w, status, strings.ReplaceAll(body, "ECHO", e))
		}
		switch {
		case path == "redirect":
			http.Redirect(w, r, "/api/v1/gone/"+url.PathEscape(token)+"/x?t=1", http.StatusFound)
		case path == "away":
			http.Redirect(w, r, away+"/k/"+url.PathEscape(token)+"?t=1", http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/api/v1/gone/"):
			testkit.Reply(w, http.StatusNotFound, `{"ok":false,"error":"no such path"}`)
		case kind == "status":
			echo(http.StatusConflict, `{"ok":false,"error":"token ECHO refused"}`)
		case kind == "refused":
			echo(http.StatusOK, `{"ok":false,"error":"refused for ECHO"}`)
		case kind == "garbled":
			echo(http.StatusOK, `{"ok":"ECHO"}`)
		case kind == "deploy" && r.Method == http.MethodGet:
			testkit.Reply(w, http.StatusOK, `{"ok":true,"files":[],"branches":["main"],"head":null}`)
		case kind == "deploy" && r.Method == http.MethodPut:
			testkit.Reply(w, http.StatusOK, `{"ok":true}`)
		case kind == "deploy" && rest == "commit":
			echo(http.StatusOK, `{"ok":true,"commit":"ECHO"}`)
		case kind == "deploy" && rest == "deploy":
			testkit.Reply(w, http.StatusConflict, `{"ok":false,"error":"cannot deploy now"}`)
		default:
			t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
			testkit.Reply(w, http.StatusTeapot, `{"ok":false,"error":"unexpected"}`)
		}
	})
	logs := &logbuf.Buffer{}
	c, err := hosting.New(hosting.WithBaseURL(srv.URL), hosting.WithToken(hostileToken), hosting.WithRetry(testkit.NoRetry),
		hosting.WithLogger(slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	require.NoError(t, err)
	ctx := t.Context()
	check := func(what string, err error) {
		t.Helper()
		testkit.NoSecretInError(t, scan, echoForms, what, []string{hostileToken}, err)
	}

	_, err = c.Repo(ctx, "redirect")
	check("the token in a redirected path", err)
	assert.Equal(t, "/api/v1/gone/[REDACTED]/x", testkit.APIError(t, err).Path)

	_, err = c.Repo(ctx, "away")
	check("the token in the path of a redirect to a host that does not answer", err)
	testkit.NoSecretInURLError(t, echoForms, []string{hostileToken}, err, "t=1")

	for i, f := range echoForms {
		n := strconv.Itoa(i + 1)
		for _, kind := range []string{"status", "refused"} {
			_, err = c.Repo(ctx, kind+n)
			check("the token echoed "+f.Name+" in "+kind, err)
			testkit.NoSecretInAPIError(t, echoForms, f, []string{hostileToken}, err)
		}
		_, err = c.Repo(ctx, "garbled"+n)
		check("the token echoed "+f.Name+" in an undecodable answer", err)
		testkit.DecodeError(t, err)

		_, err = c.DeployDir(ctx, "deploy"+n, fstest.MapFS{"index.html": {Data: []byte("<p>hi</p>")}}, nil)
		check("the token echoed "+f.Name+" as the commit id of a failed deployment", err)
		assert.Equal(t, http.StatusConflict, testkit.APIError(t, err).StatusCode)
	}

	assert.Contains(t, logs.String(), `"path":"/api/v1/gone/[REDACTED]/x"`, "the logger saw the redirect")
	echoForms.AssertNoTelltale(t, "the log", []string{hostileToken}, logs.String())
}
