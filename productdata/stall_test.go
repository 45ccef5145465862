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

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/productdata"
)

// The bounds of the stalling-server tests: small timeouts, and two attempts with no real wait
// between them, so that a request that may be repeated ends within 2 × Attempt.
var (
	stallTimeouts = sdk.Timeouts{Header: 150 * time.Millisecond, Attempt: 400 * time.Millisecond}
	stallRetry    = sdk.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}
	stallPolling  = &productdata.PollOptions{MinDelay: 50 * time.Millisecond, Timeout: time.Second}
)

// stallingServer never answers (trickle false), or answers 200 at once and then sends its body
// one byte a second (trickle true), until the client goes away. The requests that start a task
// are answered at once (a fetch under way; a collection's task id), so that the waits for the
// task meet the stall.
func stallingServer(t *testing.T, trickle bool) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch strings.TrimPrefix(r.URL.Path, "/api/") {
		case "ProductRealtimeRequest":
			_, _ = io.WriteString(w, `{"Code":99,"Message":"collecting, about 5 minutes","Data":null}`)
			return
		case "ProductReviewsCollection":
			_, _ = io.WriteString(w, `{"Code":0,"Message":null,"Data":88231}`)
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
// cause is the timeout (inside a *WaitError for the task waits), within its documented worst
// case (plus slack for a loaded machine).
func TestNoCallHangs(t *testing.T) {
	t.Parallel()
	const slack = 2 * time.Second
	reads := time.Duration(stallRetry.MaxAttempts) * stallTimeouts.Attempt // retried: every attempt may run to its bound
	once := stallTimeouts.Attempt                                          // sent once
	waits := stallPolling.Timeout + reads                                  // polls until the timeout, and the last one
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
	for _, trickle := range []bool{false, true} {
		server := map[bool]string{false: "silent", true: "trickling"}[trickle]
		for _, tc := range calls {
			t.Run(server+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv := stallingServer(t, trickle)
				c, err := productdata.New(productdata.WithBaseURL(srv.URL), productdata.WithAccountKey(testKey),
					productdata.WithTimeouts(stallTimeouts), productdata.WithRetry(stallRetry))
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
