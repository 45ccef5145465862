package productdata_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/stalltest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/productdata"
)

// stallWait bounds the waits for a task of the stalling-server tests.
var stallWait = sdk.WaitPolicy{MinDelay: 50 * time.Millisecond, Timeout: time.Second}

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
// cause is the timeout (inside an *sdk.WaitError for the task waits), within its documented
// worst case (plus slack for a loaded machine).
func TestNoCallHangs(t *testing.T) {
	t.Parallel()
	reads, once := stalltest.Reads, stalltest.Once
	waits := stallWait.Timeout + reads // polls until the timeout, and the last one
	calls := []stalltest.Call[*productdata.Client]{
		{Name: "Product", Bound: reads, Do: func(ctx context.Context, c *productdata.Client) error {
			_, err := c.Product(ctx, productdata.AmazonUS, "B0CVM8TXHP")
			return err
		}},
		{Name: "AllCategoryProducts", Bound: reads, Do: func(ctx context.Context, c *productdata.Client) error {
			for _, err := range c.AllCategoryProducts(ctx, productdata.AmazonUS, &productdata.CategoryProductsParams{NodeId: "2407761011"}) {
				return err
			}
			return nil
		}},
		{Name: "Call of a write", Bound: once, Do: func(ctx context.Context, c *productdata.Client) error {
			_, err := c.Call(ctx, productdata.EndpointKeywordBatchSubscription, productdata.AmazonUS, map[string]string{"Keyword": "k"}, nil)
			return err
		}},
		{Name: "RefreshProduct", Bound: waits, Do: func(ctx context.Context, c *productdata.Client) error {
			_, err := c.RefreshProduct(ctx, productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP"})
			testkit.As[*sdk.WaitError](t, err)
			return err
		}},
		{Name: "CollectReviews", Bound: waits, Do: func(ctx context.Context, c *productdata.Client) error {
			_, err := c.CollectReviews(ctx, productdata.AmazonUS, &productdata.CollectReviewsParams{ASIN: "B0CVM8TXHP"})
			testkit.As[*sdk.WaitError](t, err)
			return err
		}},
	}
	stalltest.RunCalls(t, calls, stallingServer, func(url string) (*productdata.Client, error) {
		return productdata.New(productdata.WithBaseURL(url), productdata.WithAccountKey(testKey),
			productdata.WithTimeouts(stalltest.Timeouts), productdata.WithRetry(stalltest.Retry),
			productdata.WithWait(stallWait))
	})
}
