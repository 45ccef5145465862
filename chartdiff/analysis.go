package chartdiff

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/poll"
)

// busySchedule is Analyze's backoff while the service is busy and sends no retry-after:
// from 250 ms, doubling, up to 4 s, each wait drawn in its upper half.
var busySchedule = poll.Schedule{Min: 250 * time.Millisecond, Max: 4 * time.Second, Jitter: 0.5}

// Analyze analyses a chart and stores its values in the shared cache, where every later query
// sees them. A chart already analysed comes back at once with Cached true; otherwise the
// engine may take several seconds (bound the call with ctx).
//
// The service runs two analyses at a time and answers 503 analysis_busy when both slots are
// taken. Analyze then waits, honouring the service's retry-after or else backing off from
// 250 ms to 4 s, and tries again, for at most the WithAnalyzeWait bound (30 s by default). A
// wait that would pass the bound is not started: Analyze returns the ErrAnalysisBusy error at
// once, with the number of attempts in it. No other failure is retried (a 429 for the daily
// quota of 200 analyses is an *sdk.RateLimitError); analysis is idempotent per chart, so calling
// Analyze again is always safe.
func (c *Client) Analyze(ctx context.Context, chartID int) (*Analysis, error) {
	if err := checkID("chart_id", chartID); err != nil {
		return nil, err
	}
	// The busy loop below is the only repetition: the core sends each attempt once.
	req := &httpcore.Request{Method: http.MethodPost, Path: "/analyses", Body: httpcore.JSON(map[string]int{"chart_id": chartID}),
		Retry: httpcore.RetryNever}
	opts := poll.Options{Schedule: busySchedule, Timeout: c.analyzeWait, Clock: c.clock}
	if c.analyzeWait == 0 {
		opts.MaxAttempts = 1
	}
	var out *Analysis
	err := poll.Run(ctx, opts, func(ctx context.Context, attempt int) (bool, time.Duration, error) {
		var a Analysis
		resp, err := c.do(ctx, req, &a)
		if err == nil {
			a.Response = resp.Meta()
			a.Response.Attempts = attempt
			out = &a
			return true, 0, nil
		}
		var ae *sdk.APIError
		if !errors.Is(err, ErrAnalysisBusy) || !errors.As(err, &ae) {
			return true, 0, err
		}
		ae.Attempts = attempt
		return false, ae.RetryAfter, err
	})
	var stopped *poll.StoppedError
	if errors.As(err, &stopped) {
		if errors.Is(stopped.Reason, poll.ErrTimeout) || errors.Is(stopped.Reason, poll.ErrMaxAttempts) {
			return nil, stopped.Last // the busy error, with its attempt count
		}
		if stopped.Last == nil {
			return nil, fmt.Errorf("%s: %s /api/v1/analyses: %w", serviceName, req.Method, stopped.Reason)
		}
		return nil, fmt.Errorf("%s: %s /api/v1/analyses: %w while waiting for a free analysis slot after %w",
			serviceName, req.Method, stopped.Reason, stopped.Last)
	}
	return out, err
}
