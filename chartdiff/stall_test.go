package chartdiff_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/internal/stalltest"
	"github.com/agentapis/sdk/internal/testkit"
)

// stallingServer stalls every request (see stalltest.Stall) but the first analysis it is
// asked for, which it answers 503 analysis_busy, so that Analyze's wait for a free slot meets
// the stall.
func stallingServer(t *testing.T, trickle bool) *httptest.Server {
	var analyses atomic.Int32
	return stalltest.NewServer(t, trickle, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/api/v1/analyses" || analyses.Add(1) != 1 {
			return false
		}
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":{"code":"analysis_busy","message":"both slots are taken"}}`)
		return true
	})
}

// TestNoCallHangs runs every kind of call against a server that sends nothing and one that
// trickles a byte a second, with small WithTimeouts: each ends with an *sdk.RequestError whose
// cause is the timeout, within its documented worst case (plus slack for a loaded machine).
func TestNoCallHangs(t *testing.T) {
	t.Parallel()
	reads, once := stalltest.Reads, stalltest.Once
	const busySchedule = 250 * time.Millisecond // Analyze's first wait for a free slot
	type call = stalltest.Call[*chartdiff.Client]
	calls := []call{
		{Name: "Chart", Bound: reads, Do: func(ctx context.Context, c *chartdiff.Client) error { _, err := c.Chart(ctx, 1); return err }},
		{Name: "AllCharts", Bound: reads, Do: func(ctx context.Context, c *chartdiff.Client) error {
			for _, err := range c.AllCharts(ctx, nil) {
				return err
			}
			return nil
		}},
		{Name: "Usage", Bound: reads, Do: func(ctx context.Context, c *chartdiff.Client) error { _, err := c.Usage(ctx); return err }},
		{Name: "SelfCheck", Bound: reads, Do: func(ctx context.Context, c *chartdiff.Client) error { _, err := c.SelfCheck(ctx); return err }},
		{Name: "CreateKey", Bound: once, Do: func(ctx context.Context, c *chartdiff.Client) error { _, err := c.CreateKey(ctx, nil); return err }},
		{Name: "UpdateKey", Bound: reads, Do: func(ctx context.Context, c *chartdiff.Client) error {
			_, err := c.UpdateKey(ctx, "key_1", &chartdiff.UpdateKeyParams{Name: testkit.Ptr("n")})
			return err
		}},
		{Name: "DeleteKey", Bound: reads, Do: func(ctx context.Context, c *chartdiff.Client) error { _, err := c.DeleteKey(ctx, "key_1"); return err }},
		{Name: "Analyze", Bound: once + busySchedule, Do: func(ctx context.Context, c *chartdiff.Client) error { _, err := c.Analyze(ctx, 7); return err }},
	}
	stalltest.RunCalls(t, calls, stallingServer, func(url string) (*chartdiff.Client, error) {
		return chartdiff.New(chartdiff.WithBaseURL(url), chartdiff.WithAPIKey(hostileKey), chartdiff.WithAccountToken(hostileToken),
			chartdiff.WithTimeouts(stalltest.Timeouts), chartdiff.WithRetry(stalltest.Retry))
	})
}
