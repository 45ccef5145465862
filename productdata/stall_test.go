package productdata_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/stalltest"
	"github.com/agentapis/sdk/productdata"
)

// stallPolling bounds the waits for a task of the stalling-server tests.
var stallPolling = &productdata.PollOptions{MinDelay: 50 * time.Millisecond, Timeout: time.Second}

// stallingServer stalls every request (see stalltest.Stall) but those that start a task,
// answered at once (a fetch under way; a collection's task id), so that the waits for the
// task meet the stall.
func stallingServer(t *testing.T, trickle bool) *httptest.Server {
	return stalltest.NewServer(t, trickle, func(w http.ResponseWriter, r *http.Request) bool {
		switch strings.TrimPrefix(r.URL.Path, "/api/") {
		case "ProductRealtimeRequest":
			_, _ = io.WriteString(w, `{"Code":99,"Message":"collecting, about 5 minutes","Data":null}`)
			return true
		case "ProductReviewsCollection":
			_, _ = io.WriteString(w, `{"Code":0,"Message":null,"Data":88231}`)
			return true
		}
		return false
	})
}

// TestNoCallHangs runs every kind of call against a server that sends nothing and one that
// trickles a byte a second, with small WithTimeouts: each ends with an *sdk.RequestError whose
// cause is the timeout (inside a *WaitError for the task waits), within its documented worst
// case (plus slack for a loaded machine).
func TestNoCallHangs(t *testing.T) {
	t.Parallel()
	reads, once := stalltest.Reads, stalltest.Once
	waits := stallPolling.Timeout + reads // polls until the timeout, and the last one
	calls := []struct {
		name  string
		bound time.Duration
		call  func(context.Context, *productdata.Client) error
	}{
		{"Product", reads, func(ctx context.Context, c *productdata.Client) error {
			_, err := c.Product(ctx, productdata.AmazonUS, "B0CVM8TXHP")
			return err
		}},
		{"AllCategoryProducts", reads, func(ctx context.Context, c *productdata.Client) error {
			for _, err := range c.AllCategoryProducts(ctx, productdata.AmazonUS, &productdata.CategoryProductsParams{NodeId: "2407761011"}) {
				return err
			}
			return nil
		}},
		{"Call of a write", once, func(ctx context.Context, c *productdata.Client) error {
			_, err := c.Call(ctx, productdata.EndpointKeywordBatchSubscription, productdata.AmazonUS, map[string]string{"Keyword": "k"}, nil)
			return err
		}},
		{"RefreshProduct", waits, func(ctx context.Context, c *productdata.Client) error {
			_, err := c.RefreshProduct(ctx, productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP"}, stallPolling)
			var we *productdata.WaitError
			assert.ErrorAs(t, err, &we)
			return err
		}},
		{"CollectReviews", waits, func(ctx context.Context, c *productdata.Client) error {
			_, err := c.CollectReviews(ctx, productdata.AmazonUS, &productdata.CollectReviewsParams{ASIN: "B0CVM8TXHP"}, stallPolling)
			var we *productdata.WaitError
			assert.ErrorAs(t, err, &we)
			return err
		}},
	}
	for _, mode := range stalltest.Modes {
		for _, tc := range calls {
			t.Run(mode.Name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv := stallingServer(t, mode.Trickle)
				c, err := productdata.New(productdata.WithBaseURL(srv.URL), productdata.WithAccountKey(testKey),
					productdata.WithTimeouts(stalltest.Timeouts), productdata.WithRetry(stalltest.Retry))
				require.NoError(t, err)
				stalltest.RequireBounded(t, tc.bound, func(ctx context.Context) error { return tc.call(ctx, c) })
			})
		}
	}
}
