package chartdiff

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentapis/sdk/internal/httpcore"
)

// Response describes the HTTP response a result came from. Every value a method returns
// carries one in its Response field, so the quota state is visible on every call.
type Response struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Header is the response header.
	Header http.Header
	// RequestID is the server's request identifier, when a header carried one.
	RequestID string
	// RateLimit is the quota state of the rate-limit headers, or nil when the response had none.
	RateLimit *RateLimit
	// Attempts is how many times the request was sent.
	Attempts int
}

// RateLimit is the quota state a response reported in its rate-limit headers
// (x-ratelimit-limit, -remaining, -reset, or the unprefixed ratelimit-* of the IETF draft).
// A field is nil when its header was absent: a nil Remaining is unknown, not 0.
type RateLimit struct {
	// Limit is the number of requests the window allows.
	Limit *int
	// Remaining is the number of requests left in the window.
	Remaining *int
	// Reset is the time until the window resets. A reset sent as a Unix time is converted to a
	// duration from the moment the response was read.
	Reset *time.Duration
}

// newResponse builds the Response of a core response.
func newResponse(r *httpcore.Response) Response {
	if r == nil {
		return Response{}
	}
	return Response{
		StatusCode: r.StatusCode,
		Header:     r.Header,
		RequestID:  r.RequestID,
		RateLimit:  parseRateLimit(r.Header),
		Attempts:   r.Attempts,
	}
}

// unixThreshold separates a reset given in seconds from one given as a Unix time: no window
// lasts longer than a year, and no Unix time of this century is below it.
const unixThreshold = 365 * 24 * 3600

// parseRateLimit reads the rate-limit headers of h; it returns nil when none is present or
// none parses.
func parseRateLimit(h http.Header) *RateLimit {
	if h == nil {
		return nil
	}
	get := func(name string) (int64, bool) {
		for _, prefix := range []string{"X-Ratelimit-", "Ratelimit-"} {
			v := strings.TrimSpace(h.Get(prefix + name))
			if v == "" {
				continue
			}
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
				return n, true
			}
		}
		return 0, false
	}
	rl := &RateLimit{}
	if n, ok := get("Limit"); ok {
		v := int(n)
		rl.Limit = &v
	}
	if n, ok := get("Remaining"); ok {
		v := int(n)
		rl.Remaining = &v
	}
	if n, ok := get("Reset"); ok {
		var d time.Duration
		if n > unixThreshold {
			d = max(time.Until(time.Unix(n, 0)), 0)
		} else {
			d = time.Duration(n) * time.Second
		}
		rl.Reset = &d
	}
	if rl.Limit == nil && rl.Remaining == nil && rl.Reset == nil {
		return nil
	}
	return rl
}
