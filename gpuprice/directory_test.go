package gpuprice_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/internal/testkit"
)

// TestPlatformNameBesideADisplayNameIsTheID holds that in a directory entry with both name and
// display_name, name is the identifier the other endpoints use and display_name the name
// shown.
func TestPlatformNameBesideADisplayNameIsTheID(t *testing.T) {
	t.Parallel()
	c := answering(t, "/v1/platforms", http.StatusOK,
		`{"platforms":[{"name": "aws", "display_name": "Amazon Web Services"},{"name":"lambda"},{"id":"gcp","name":"Google Cloud"}]}`)
	dir, err := c.Platforms(t.Context())
	require.NoError(t, err)
	require.Len(t, dir.Platforms, 3)
	assert.Equal(t, "aws", dir.Platforms[0].ID)
	assert.Equal(t, "Amazon Web Services", dir.Platforms[0].Name)
	assert.Equal(t, "lambda", dir.Platforms[1].ID, "a name alone is both")
	assert.Equal(t, "lambda", dir.Platforms[1].Name)
	assert.Equal(t, "gcp", dir.Platforms[2].ID, "beside an id, name is the display name")
	assert.Equal(t, "Google Cloud", dir.Platforms[2].Name)
}

// TestOrderBookLevelSizedInGPUs holds that a level carrying its size as gpus has it as its
// quantity.
func TestOrderBookLevelSizedInGPUs(t *testing.T) {
	t.Parallel()
	c := answering(t, "/v1/exchange/book", http.StatusOK,
		`{"model":"H100","bids":[{"price":2.1,"gpus":8}],"asks":[{"price":2.3,"gpus":16,"orders":2}]}`)
	book, err := c.OrderBook(t.Context(), "")
	require.NoError(t, err)
	require.Len(t, book.Bids, 1)
	require.NotNil(t, book.Bids[0].Quantity)
	assert.InDelta(t, 8, *book.Bids[0].Quantity, 0)
	require.Len(t, book.Asks, 1)
	require.NotNil(t, book.Asks[0].Quantity)
	assert.InDelta(t, 16, *book.Asks[0].Quantity, 0)
}

// TestHistoryWithoutAKeyNamesItsHeader holds that History without a key says which header the
// key travels in, before any request.
func TestHistoryWithoutAKeyNamesItsHeader(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	_, err := newClient(t, srv).History(t.Context(), nil)
	require.ErrorIs(t, err, gpuprice.ErrKeyRequired)
	mc := testkit.As[*sdk.MissingCredentialError](t, err)
	assert.Equal(t, "API key", mc.Credential)
	assert.Contains(t, err.Error(), "gpuprice: History needs the API key: GET /v1/history sends it in the X-API-Key header, "+
		"and it must be of a Pro or Unlimited plan; give it with WithAPIKey")
	assert.Contains(t, err.Error(), "; BuyKey buys one")
	assert.Empty(t, srv.Requests())
}
