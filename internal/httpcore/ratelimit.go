package httpcore

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentapis/sdk"
)

// unixThreshold separates a reset given in seconds from one given as a Unix time: no window
// lasts longer than a year, and no Unix time of this century is below it.
const unixThreshold = 365 * 24 * 3600

// ParseRateLimit reads the rate-limit headers of h at time now (X-RateLimit-Limit,
// -Remaining, -Reset, or the unprefixed RateLimit-* of the IETF draft); it returns nil when none is
// present or none parses.
func ParseRateLimit(h http.Header, now time.Time) *sdk.RateLimit {
	get := func(names [2]string) (int64, bool) {
		for _, name := range names {
			v := strings.TrimSpace(h.Get(name))
			if v == "" {
				continue
			}
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
				return n, true
			}
		}
		return 0, false
	}
	limit, hasLimit := get([2]string{"X-Ratelimit-Limit", "Ratelimit-Limit"})
	remaining, hasRemaining := get([2]string{"X-Ratelimit-Remaining", "Ratelimit-Remaining"})
	reset, hasReset := get([2]string{"X-Ratelimit-Reset", "Ratelimit-Reset"})
	if !hasLimit && !hasRemaining && !hasReset {
		return nil
	}
	// One allocation holds the struct and the values its pointers point to.
	a := &struct {
		rl               sdk.RateLimit
		limit, remaining int
		reset            time.Duration
	}{}
	if hasLimit {
		a.limit = int(min(limit, int64(maxInt)))
		a.rl.Limit = &a.limit
	}
	if hasRemaining {
		a.remaining = int(min(remaining, int64(maxInt)))
		a.rl.Remaining = &a.remaining
	}
	if hasReset {
		switch {
		case reset > unixThreshold:
			a.reset = max(time.Unix(reset, 0).Sub(now), 0)
		case reset > maxSeconds:
			a.reset = maxDuration
		default:
			a.reset = time.Duration(reset) * time.Second
		}
		a.rl.Reset = &a.reset
	}
	return &a.rl
}

// maxInt is the largest int.
const maxInt = int(^uint(0) >> 1)
