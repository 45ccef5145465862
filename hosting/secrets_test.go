package hosting_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting"
)

// TestEchoedTokenNeverReachesErrorsOrLogs runs every failure path against a service that
// repeats the token it received, in upper and lower case, in its error text, in headers, in an
// HTML block page and in a malformed successful answer: no error rendering and no log line
// may hold it.
func TestEchoedTokenNeverReachesErrorsOrLogs(t *testing.T) {
	t.Parallel()
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + r.Header.Get("X-API-Token")
		upper, lower := strings.ToUpper(token), strings.ToLower(token)
		w.Header().Set("X-Echo-Authorization", "Bearer "+upper)
		w.Header().Set("X-Request-Id", lower)
		switch {
		case strings.HasSuffix(r.URL.Path, "/unauthorized"):
			reply(w, http.StatusUnauthorized, `{"ok":false,"error":"token `+upper+` is not valid"}`)
		case strings.HasSuffix(r.URL.Path, "/busy"):
			w.Header().Set("Retry-After", "0")
			reply(w, http.StatusServiceUnavailable, `{"ok":false,"error":"busy for `+lower+`"}`)
		case strings.HasSuffix(r.URL.Path, "/blocked"):
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusForbidden)
			_, _ = fmt.Fprintf(w, "<html><body>blocked request with %s</body></html>", upper)
		case strings.HasSuffix(r.URL.Path, "/refused"):
			reply(w, http.StatusOK, `{"ok":false,"error":"refused for `+token+`","code":"`+upper+`"}`)
		default:
			reply(w, http.StatusOK, `{"ok":true,"note":"`+upper+`","path":7}`)
		}
	})
	logs := &logBuffer{}
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
