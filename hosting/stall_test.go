package hosting_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/hosting"
)

// The bounds of the stalling-server tests: small timeouts, and two attempts with no real wait
// between them, so that a request that may be repeated ends within 2 × Attempt.
var (
	stallTimeouts = sdk.Timeouts{Header: 150 * time.Millisecond, Attempt: 400 * time.Millisecond}
	stallRetry    = sdk.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}
)

// stallingServer never answers (trickle false), or answers 200 at once and then sends its body
// one byte a second (trickle true), until the client goes away. It answers at once only what
// DeployDir needs to reach the stage a test stalls: the information of repositories "site" and
// "committing", and the file writes of "committing".
func stallingServer(t *testing.T, trickle bool) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && (r.URL.Path == "/api/v1/repos/site" || r.URL.Path == "/api/v1/repos/committing"):
			reply(w, http.StatusOK, `{"ok":true,"files":[],"branches":["main"],"head":null}`)
			return
		case r.Method == http.MethodPut && r.URL.Path == "/api/v1/repos/committing/files/index.html":
			reply(w, http.StatusOK, `{"ok":true}`)
			return
		}
		if trickle {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "4096")
			w.WriteHeader(http.StatusOK)
		}
		for {
			if trickle {
				if _, err := io.WriteString(w, " "); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
			select {
			case <-r.Context().Done():
				return
			case <-done:
				return
			case <-time.After(time.Second):
			}
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) })
	return srv
}

// TestNoCallHangs runs every kind of call against a server that sends nothing and one that
// trickles a byte a second, with small WithTimeouts: each ends with an *sdk.RequestError whose
// cause is the timeout (inside an *UploadError, or the error of DeployDir's commit), within
// its documented worst case (plus slack for a loaded machine).
func TestNoCallHangs(t *testing.T) {
	t.Parallel()
	const slack = 2 * time.Second
	reads := time.Duration(stallRetry.MaxAttempts) * stallTimeouts.Attempt // retried: every attempt may run to its bound
	once := stallTimeouts.Attempt                                          // sent once
	site := fstest.MapFS{"index.html": {Data: []byte("<p>hi</p>")}}
	calls := []struct {
		name  string
		bound time.Duration
		call  func(context.Context, *hosting.Client) error
	}{
		{"Repos", reads, func(ctx context.Context, c *hosting.Client) error { _, err := c.Repos(ctx); return err }},
		{"File", reads, func(ctx context.Context, c *hosting.Client) error {
			_, err := c.File(ctx, "other", "a.txt")
			return err
		}},
		{"PutFile", reads, func(ctx context.Context, c *hosting.Client) error {
			_, err := c.PutFile(ctx, "other", "a.txt", []byte("a"))
			return err
		}},
		{"CreateRepo", once, func(ctx context.Context, c *hosting.Client) error {
			_, err := c.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "new"})
			return err
		}},
		{"Commit", once, func(ctx context.Context, c *hosting.Client) error {
			_, err := c.Commit(ctx, "other", &hosting.CommitParams{Message: "m"})
			return err
		}},
		{"DeployDir uploading", reads, func(ctx context.Context, c *hosting.Client) error {
			_, err := c.DeployDir(ctx, "site", site, nil)
			var ue *hosting.UploadError
			assert.ErrorAs(t, err, &ue)
			return err
		}},
		{"DeployDir committing", once, func(ctx context.Context, c *hosting.Client) error {
			_, err := c.DeployDir(ctx, "committing", site, nil)
			return err
		}},
	}
	for _, trickle := range []bool{false, true} {
		server := map[bool]string{false: "silent", true: "trickling"}[trickle]
		for _, tc := range calls {
			t.Run(server+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv := stallingServer(t, trickle)
				c, err := hosting.New(hosting.WithBaseURL(srv.URL), hosting.WithToken(testToken),
					hosting.WithTimeouts(stallTimeouts), hosting.WithRetry(stallRetry))
				require.NoError(t, err)
				// The test's own deadline only keeps a failure from hanging the suite.
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				defer cancel()
				start := time.Now()
				err = tc.call(ctx, c)
				elapsed := time.Since(start)
				var re *sdk.RequestError
				require.ErrorAs(t, err, &re)
				assert.ErrorIs(t, err, context.DeadlineExceeded)
				assert.NoError(t, ctx.Err(), "the client's bounds ended the call, not the test's deadline")
				assert.Less(t, elapsed, tc.bound+slack)
			})
		}
	}
}
