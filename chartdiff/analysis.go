package chartdiff

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/agentapis/sdk/internal/httpcore"
)

// Backoff of Analyze while the service is busy and sends no retry-after.
const (
	busyBaseDelay = 250 * time.Millisecond
	busyMaxDelay  = 4 * time.Second
)

// Analyze analyses a chart and stores its values in the shared cache, where every later query
// sees them. A chart already analysed comes back at once with Cached true; otherwise the
// engine may take several seconds (bound the call with ctx).
//
// The service runs two analyses at a time and answers 503 analysis_busy when both slots are
// taken. Analyze then waits, honouring the service's retry-after or else backing off from
// 250 ms to 4 s, and tries again, for at most the WithAnalyzeWait bound (30 s by default). A
// wait that would pass the bound is not started: Analyze returns the ErrAnalysisBusy error at
// once, with the number of attempts in it. No other failure is retried (a 429 for the daily
// quota of 200 analyses is a *RateLimitError); analysis is idempotent per chart, so calling
// Analyze again is always safe.
func (c *Client) Analyze(ctx context.Context, chartID int) (*Analysis, error) {
	if err := checkID("chart_id", chartID); err != nil {
		return nil, err
	}
	// The busy loop below is the only repetition: the core sends each attempt once.
	req := &httpcore.Request{Method: http.MethodPost, Path: "/analyses", Body: map[string]int{"chart_id": chartID}, NoRetry: true}
	deadline := time.Now().Add(c.analyzeWait)
	delay := busyBaseDelay
	for attempt := 1; ; attempt++ {
		var out Analysis
		resp, err := c.do(ctx, req, &out)
		if err == nil {
			out.Response = newResponse(resp)
			out.Response.Attempts = attempt
			return &out, nil
		}
		var ae *APIError
		if !errors.Is(err, ErrAnalysisBusy) || !errors.As(err, &ae) {
			return nil, err
		}
		ae.Attempts = attempt
		wait := ae.RetryAfter
		if wait <= 0 {
			wait = delay/2 + rand.N(delay/2+1)
			delay = min(2*delay, busyMaxDelay)
		}
		if time.Until(deadline) < wait {
			return nil, err
		}
		if werr := httpcore.Sleep(ctx, wait); werr != nil {
			return nil, fmt.Errorf("%s: %s %s: %w while waiting for a free analysis slot after %w", serviceName, req.Method, ae.Path, werr, err)
		}
	}
}
