package hosting_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"

	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/internal/stalltest"
	"github.com/agentapis/sdk/internal/testkit"
)

// stallingServer stalls every request (see stalltest.Stall) but what DeployDir needs to reach
// the stage a test stalls: the information of repositories "site" and "committing", and the
// file writes of "committing".
func stallingServer(t *testing.T, trickle bool) *httptest.Server {
	return stalltest.NewServer(t, trickle, func(w http.ResponseWriter, r *http.Request) bool {
		switch {
		case r.Method == http.MethodGet && (r.URL.Path == "/api/v1/repos/site" || r.URL.Path == "/api/v1/repos/committing"):
			testkit.Reply(w, http.StatusOK, `{"ok":true,"files":[],"branches":["main"],"head":null}`)
			return true
		case r.Method == http.MethodPut && r.URL.Path == "/api/v1/repos/committing/files/index.html":
			testkit.Reply(w, http.StatusOK, `{"ok":true}`)
			return true
		}
		return false
	})
}

// TestNoCallHangs runs every kind of call against a server that sends nothing and one that
// trickles a byte a second, with small WithTimeouts: each ends with an *sdk.RequestError whose
// cause is the timeout (inside an *UploadError, or the error of DeployDir's commit), within
// its documented worst case (plus slack for a loaded machine).
func TestNoCallHangs(t *testing.T) {
	t.Parallel()
	reads, once := stalltest.Reads, stalltest.Once
	site := fstest.MapFS{"index.html": {Data: []byte("<p>hi</p>")}}
	calls := []stalltest.Call[*hosting.Client]{
		{Name: "Repos", Bound: reads, Do: func(ctx context.Context, c *hosting.Client) error { _, err := c.Repos(ctx); return err }},
		{Name: "File", Bound: reads, Do: func(ctx context.Context, c *hosting.Client) error {
			_, err := c.File(ctx, "other", "a.txt")
			return err
		}},
		{Name: "PutFile", Bound: reads, Do: func(ctx context.Context, c *hosting.Client) error {
			_, err := c.PutFile(ctx, "other", "a.txt", []byte("a"))
			return err
		}},
		{Name: "CreateRepo", Bound: once, Do: func(ctx context.Context, c *hosting.Client) error {
			_, err := c.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "new"})
			return err
		}},
		{Name: "Commit", Bound: once, Do: func(ctx context.Context, c *hosting.Client) error {
			_, err := c.Commit(ctx, "other", &hosting.CommitParams{Message: "m"})
			return err
		}},
		{Name: "DeployDir uploading", Bound: reads, Do: func(ctx context.Context, c *hosting.Client) error {
			_, err := c.DeployDir(ctx, "site", site, nil)
			var ue *hosting.UploadError
			assert.ErrorAs(t, err, &ue)
			return err
		}},
		{Name: "DeployDir committing", Bound: once, Do: func(ctx context.Context, c *hosting.Client) error {
			_, err := c.DeployDir(ctx, "committing", site, nil)
			return err
		}},
	}
	stalltest.RunCalls(t, calls, stallingServer, func(url string) (*hosting.Client, error) {
		return hosting.New(hosting.WithBaseURL(url), hosting.WithToken(testToken),
			hosting.WithTimeouts(stalltest.Timeouts), hosting.WithRetry(stalltest.Retry))
	})
}
