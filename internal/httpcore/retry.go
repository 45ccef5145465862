package httpcore

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/agentapis/sdk"
)

// idempotentMethods are retried without being marked safe to repeat.
var idempotentMethods = map[string]bool{
	http.MethodGet:    true,
	http.MethodHead:   true,
	http.MethodPut:    true,
	http.MethodDelete: true,
}

// retryableStatus reports the statuses after which a retryable request is sent again.
func retryableStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// RetryableError is implemented by errors that a transport (such as the x402 payer) returns to
// say whether the request may be sent again. An error reporting false ends the retries: for a
// payment that was refused or whose outcome is unknown, another attempt would meet a new quote
// and sign a new payment.
type RetryableError interface {
	error
	RetryableError() bool
}

// shouldRetry decides whether an attempt that ended with resp or err is tried again. A 2xx
// answer is final, even when the context ended after it arrived (it may carry a payment
// receipt). A request that may not be repeated is never retried; the context ending stops at once with its error;
// an error that says it is not retryable is final; other network errors are classified by
// go-retryablehttp (a certificate or redirect-loop failure is final).
func shouldRetry(ctx context.Context, repeatable bool, resp *http.Response, err error) (bool, error) {
	if err == nil && resp != nil && resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		return false, nil // an answer that arrived is kept, even when the context ended since
	}
	if ctx.Err() != nil {
		if err != nil {
			return false, nil // the attempt's own error says more (a payment in doubt, a bound)
		}
		return false, ctx.Err()
	}
	if !repeatable {
		return false, nil
	}
	if err != nil {
		var re RetryableError
		if errors.As(err, &re) && !re.RetryableError() {
			return false, nil
		}
		return retryablehttp.DefaultRetryPolicy(ctx, nil, err)
	}
	return retryableStatus(resp.StatusCode), nil
}

// retryAfterTooLong reports whether p gives up on resp because its Retry-After asks for a
// longer wait than p.MaxRetryAfter.
func retryAfterTooLong(p sdk.RetryPolicy, resp *http.Response, now time.Time) bool {
	if !p.StopOnLongRetryAfter || resp == nil {
		return false
	}
	d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), now)
	return ok && d > p.MaxRetryAfter
}

// maxDuration is the longest time.Duration.
const maxDuration = time.Duration(1<<63 - 1)

// maxSeconds is the most whole seconds a time.Duration holds.
const maxSeconds = int64(maxDuration / time.Second)

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool { return r < '0' || r > '9' })
}

// parseRetryAfter reads a Retry-After value in seconds or as an HTTP-date; a date in the past
// means no wait.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if isDigits(v) {
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil || secs > maxSeconds {
			return maxDuration, true // absurdly long: the caller's cap applies
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
