package chartdiff

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/poll"
)

// Analyze analyses a chart and stores its values in the shared cache, where every later query
// sees them. A chart already analysed comes back at once with Cached true; otherwise the
// engine may take several seconds (bound the call with ctx).
//
// The service runs two analyses at a time and answers 503 analysis_busy when both slots are
// taken. Analyze then waits, honouring the service's retry-after or else backing off from
// 250 ms to 4 s, and tries again, within the WithWait policy (30 s by default). A wait that
// would pass the policy's Timeout is not started: Analyze gives up at once with an
// *sdk.WaitError whose Last is the busy *sdk.APIError, so errors.Is(err, ErrAnalysisBusy)
// still holds. No other failure is retried (a 429 for the daily quota of 200 analyses is an
// *sdk.RateLimitError); analysis is idempotent per chart, so calling Analyze again is always
// safe.
func (c *Client) Analyze(ctx context.Context, chartID int) (*Analysis, error) {
	if err := checkID("chart_id", chartID); err != nil {
		return nil, err
	}
	// The wait below is the only repetition: the core sends each attempt once.
	req := &httpcore.Request{Method: http.MethodPost, Path: "/analyses", Body: httpcore.JSON(map[string]int{"chart_id": chartID}),
		Retry: httpcore.RetryNever}
	w := poll.Waiting{Service: serviceName, Operation: "Analyze", Subject: "chart " + strconv.Itoa(chartID), Policy: c.wait, Clock: c.clock}
	var out *Analysis
	err := poll.Wait(ctx, w, func(ctx context.Context, attempt int) (bool, time.Duration, error) {
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
	return out, err
}
