package conncount_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/conncount"
)

// TestStartCountsConnections checks that requests on one kept-alive connection count once
// and that a client with a pool of its own opens another.
func TestStartCountsConnections(t *testing.T) {
	t.Parallel()
	srv := conncount.Start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	t.Cleanup(srv.Close)
	get := func(c *http.Client) {
		resp, err := c.Get(srv.URL)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		require.NoError(t, resp.Body.Close())
	}
	first := &http.Client{Transport: &http.Transport{}}
	get(first)
	get(first)
	get(first)
	assert.Equal(t, int64(1), srv.Connections())
	get(&http.Client{Transport: &http.Transport{}})
	assert.Equal(t, int64(2), srv.Connections())
}
