package hosting_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/hosting/hostingtest"
	"github.com/agentapis/sdk/internal/testkit"
)

// TestResultsPrintValuesNotAddresses holds that decoded results print their sizes, their
// rate limits and the records they point to with %v and %+v, where fmt alone printed
// addresses.
func TestResultsPrintValuesNotAddresses(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set("X-RateLimit-Limit", "600")
		w.Header().Set("X-RateLimit-Remaining", "599")
		testkit.Reply(w, http.StatusOK, `{"ok":true,"repo":{"name":"blog"},"files":[{"path":"index.html","size":5}],"branches":["main"],"head":"c2"}`)
	})
	info, err := newClient(t, srv.URL).Repo(t.Context(), "blog")
	require.NoError(t, err)
	text := fmt.Sprintf("%+v", info)
	assert.NotContains(t, text, "0x")
	assert.Contains(t, text, "Files:[{Path:index.html Size:5 SHA: SHA256: Type: ")
	assert.Contains(t, text, " RateLimit:{Limit:600 Remaining:599 Reset:<nil>} ")
	assert.Contains(t, fmt.Sprintf("%v", info.Files[0]), "{index.html 5    ")

	fake := testkit.Start(t, hostingtest.NewServer())
	c := fakeClient(t, fake)
	_, err = c.CreateRepo(t.Context(), &hosting.CreateRepoParams{Name: "site"})
	require.NoError(t, err)
	res, err := c.DeployDir(t.Context(), "site", mapFS(map[string][]byte{"index.html": []byte("<p>hi</p>")}), nil)
	require.NoError(t, err)
	text = fmt.Sprintf("%+v", res)
	assert.NotContains(t, text, "0x")
	assert.Contains(t, text, "{Deployment:{ID:"+res.Deployment.ID+" ")
	assert.Contains(t, text, " Commit:{ID:"+res.Commit.ID+" ")
}
