package chartdiff_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/chartdiff"
)

// The bounds of the stalling-server tests: small timeouts, and two attempts with no real wait
// between them, so that a read ends within 2 × Attempt.
var (
	stallTimeouts = sdk.Timeouts{Header: 150 * time.Millisecond, Attempt: 400 * time.Millisecond}
	stallRetry    = sdk.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}
)

// stallingServer never answers (trickle false), or answers 200 at once and then sends its body
// one byte a second (trickle true), until the client goes away. The first analysis it is
// asked for it answers 503 analysis_busy, so that Analyze's wait for a free slot meets the
// stall.
func stallingServer(t *testing.T, trickle bool) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	var analyses atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/analyses" && analyses.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"error":{"code":"analysis_busy","message":"both slots are taken"}}`)
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
// cause is the timeout, within its documented worst case (plus slack for a loaded machine).
func TestNoCallHangs(t *testing.T) {
	t.Parallel()
	const slack = 2 * time.Second
	reads := time.Duration(stallRetry.MaxAttempts) * stallTimeouts.Attempt // retried: every attempt may run to its bound
	once := stallTimeouts.Attempt                                          // sent once
	const busySchedule = 250 * time.Millisecond                            // Analyze's first wait for a free slot
	calls := []struct {
		name  string
		bound time.Duration
		call  func(context.Context, *chartdiff.Client) error
	}{
		{"Chart", reads, func(ctx context.Context, c *chartdiff.Client) error { _, err := c.Chart(ctx, 1); return err }},
		{"AllCharts", reads, func(ctx context.Context, c *chartdiff.Client) error {
			for _, err := range c.AllCharts(ctx, nil) {
				return err
			}
			return nil
		}},
		{"Usage", reads, func(ctx context.Context, c *chartdiff.Client) error { _, err := c.Usage(ctx); return err }},
		{"SelfCheck", reads, func(ctx context.Context, c *chartdiff.Client) error { _, err := c.SelfCheck(ctx); return err }},
		{"CreateKey", once, func(ctx context.Context, c *chartdiff.Client) error { _, err := c.CreateKey(ctx, nil); return err }},
		{"UpdateKey", reads, func(ctx context.Context, c *chartdiff.Client) error {
			name := "n"
			_, err := c.UpdateKey(ctx, "key_1", &chartdiff.UpdateKeyParams{Name: &name})
			return err
		}},
		{"DeleteKey", reads, func(ctx context.Context, c *chartdiff.Client) error { _, err := c.DeleteKey(ctx, "key_1"); return err }},
		{"Analyze", once + busySchedule, func(ctx context.Context, c *chartdiff.Client) error { _, err := c.Analyze(ctx, 7); return err }},
	}
	for _, trickle := range []bool{false, true} {
		server := map[bool]string{false: "silent", true: "trickling"}[trickle]
		for _, tc := range calls {
			t.Run(server+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv := stallingServer(t, trickle)
				c, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL), chartdiff.WithAPIKey(hostileKey), chartdiff.WithAccountToken(hostileToken),
					chartdiff.WithTimeouts(stallTimeouts), chartdiff.WithRetry(stallRetry))
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
