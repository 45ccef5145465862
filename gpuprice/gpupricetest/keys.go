package gpupricetest

import (
	"crypto/rand"
	"encoding/hex"
	"math/big"
	"net/http"
	"strconv"
	"time"

	"github.com/agentapis/sdk/internal/fakeserver"
	"github.com/agentapis/sdk/x402/usdc"
)

// Plan is an API plan.
type Plan string

// The plans of the API description.
const (
	PlanFree      Plan = "free"
	PlanPro       Plan = "pro"
	PlanUnlimited Plan = "unlimited"
)

// The memos of the API description, byte for byte, that a key payment must carry.
const (
	MemoPro       = "API-PRO"
	MemoUnlimited = "API-ULTRA"
)

// price returns the price of a key of p, as the API description gives it, in atomic USDC
// units: 5 USDC for Pro, 19 for Unlimited.
func (p Plan) price() *big.Int {
	if p == PlanUnlimited {
		return usdc.Dollars(19)
	}
	return usdc.Dollars(5)
}

// known says whether p is one of the plans.
func (p Plan) known() bool { return p == PlanFree || p == PlanPro || p == PlanUnlimited }

// apiKey is an issued key.
type apiKey struct {
	plan    Plan
	expires time.Time
}

// IssueKey creates a key of the plan valid until expires, bypassing the purchase, and
// returns it. It panics on an unknown plan.
func (s *Server) IssueKey(plan Plan, expires time.Time) string {
	if !plan.known() {
		panic("gpupricetest: IssueKey: unknown plan " + strconv.Quote(string(plan)))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.newKey(plan, expires)
}

// newKey stores and returns a fresh key; the caller holds the lock.
func (s *Server) newKey(plan Plan, expires time.Time) string {
	b := make([]byte, 20)
	_, _ = rand.Read(b) // crypto/rand.Read never fails since Go 1.24
	key := "gpk_" + hex.EncodeToString(b)
	s.keys[key] = &apiKey{plan: plan, expires: expires}
	return key
}

// KeyPlan returns the plan and expiry of key, and whether the fake knows it.
func (s *Server) KeyPlan(key string) (Plan, time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.keys[key]
	if k == nil {
		return "", time.Time{}, false
	}
	return k.plan, k.expires, true
}

// usageKey is one caller's count of requests on one UTC day.
type usageKey struct {
	caller string // "key:<key>" or "addr:<remote host>"
	day    string // 2006-01-02
}

// admit authenticates a counted request and charges it to its caller's daily quota. It sets
// the rate-limit headers and returns a status and error body when the request is refused,
// else a nil body.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, acc access, now time.Time) (int, any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	plan, caller := PlanFree, "addr:"+fakeserver.PeerHost(r)
	key := r.Header.Get("X-API-Key")
	if key != "" {
		k := s.keys[key]
		switch {
		case k == nil:
			return fail(http.StatusUnauthorized, "invalid_api_key", "the API key is not valid")
		case !now.Before(k.expires):
			return fail(http.StatusUnauthorized, "api_key_expired", "the API key expired at "+timestamp(k.expires))
		}
		plan, caller = k.plan, "key:"+key
	}
	if acc == paid {
		switch {
		case key == "":
			return fail(http.StatusUnauthorized, "api_key_required", "this endpoint needs the X-API-Key header of a Pro or Unlimited key")
		case plan == PlanFree:
			return fail(http.StatusForbidden, "plan_required", "this endpoint needs a Pro or Unlimited key")
		}
	}
	if plan == PlanUnlimited {
		return 0, nil
	}
	limit := s.cfg.freeQuota
	if plan == PlanPro {
		limit = s.cfg.proQuota
	}
	reset := midnightUTC(now).AddDate(0, 0, 1)
	u := usageKey{caller, now.Format(time.DateOnly)}
	if s.usage[u] >= limit {
		detail := errorDetail{
			Code:       "rate_limit_exceeded",
			Message:    "the daily quota of " + strconv.Itoa(limit) + " requests of the " + string(plan) + " plan is used up; it resets at midnight UTC",
			Plan:       plan,
			DailyQuota: limit,
		}
		if !s.cfg.noRateHeader {
			setRateHeaders(w, limit, 0, reset)
			w.Header().Set("Retry-After", strconv.Itoa(int((reset.Sub(now)+time.Second-1)/time.Second)))
			detail.ResetAt = timestamp(reset)
		}
		return http.StatusTooManyRequests, errorBody{detail}
	}
	s.usage[u]++
	if !s.cfg.noRateHeader {
		setRateHeaders(w, limit, limit-s.usage[u], reset)
	}
	return 0, nil
}

// setRateHeaders sets the rate-limit headers: the daily quota, what is left of it, and the
// reset time in Unix seconds.
func setRateHeaders(w http.ResponseWriter, limit, remaining int, reset time.Time) {
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
}
