package chartdifftest

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The key scopes.
const (
	scopeChartsRead    = "charts:read"
	scopeAnalysesWrite = "analyses:write"
	scopeUsageRead     = "usage:read"
)

// allScopes are every scope, granted when a key is created without a list.
var allScopes = []string{scopeChartsRead, scopeAnalysesWrite, scopeUsageRead}

// maxActiveKeys is the number of active keys an account may hold.
const maxActiveKeys = 100

// account is a web account and its keys.
type account struct {
	id    string
	token string
	keys  []*apiKey
}

// apiKey is a key record: only the hash of the plaintext and a mask are kept.
type apiKey struct {
	id        string
	hash      string
	mask      string
	name      string
	scopes    []string
	account   *account
	createdAt time.Time
	expiresAt *time.Time
	revokedAt *time.Time
	lastUsed  *time.Time
	requests  int
	analyses  int
}

// status returns the key's state at now.
func (k *apiKey) status(now time.Time) string {
	switch {
	case k.revokedAt != nil:
		return "revoked"
	case k.expiresAt != nil && !now.Before(*k.expiresAt):
		return "expired"
	}
	return "active"
}

// hasScope reports whether the key holds scope.
func (k *apiKey) hasScope(scope string) bool {
	for _, s := range k.scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// addAccount registers an account for token. Caller holds s.mu or owns s.
func (s *Server) addAccount(token string) {
	if _, ok := s.accounts[token]; ok {
		return
	}
	s.accounts[token] = &account{id: "acc_" + randomHex(6), token: token}
}

// hashKey returns the stored hash of a plaintext key.
func hashKey(plain string) string {
	sum := sha256.Sum256([]byte(plain))
	return hex.EncodeToString(sum[:])
}

// isKeyForm reports whether s has the form sk-<32 hex>.
func isKeyForm(s string) bool {
	h, ok := strings.CutPrefix(s, "sk-")
	if !ok || len(h) != 32 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// newKey creates an active key for acc and returns it with its plaintext. Caller holds s.mu.
func (s *Server) newKey(acc *account, name string, scopes []string, expiresAt *time.Time) (*apiKey, string) {
	plain := "sk-" + randomHex(16)
	k := &apiKey{
		id:        "key_" + randomHex(6),
		hash:      hashKey(plain),
		mask:      "sk-…" + plain[len(plain)-4:],
		name:      name,
		scopes:    append([]string(nil), scopes...),
		account:   acc,
		createdAt: s.Now().UTC().Truncate(time.Second),
		expiresAt: expiresAt,
	}
	s.keys[k.hash] = k
	s.keyByID[k.id] = k
	acc.keys = append(acc.keys, k)
	return k, plain
}

// activeKeys counts the account's active keys at now.
func (acc *account) activeKeys(now time.Time) int {
	n := 0
	for _, k := range acc.keys {
		if k.status(now) == "active" {
			n++
		}
	}
	return n
}

// presentedKey returns the API key a request carries: x-phm-key, or else a Bearer sk- value in
// Authorization (accepted, though the gateway may overwrite it). x-api-key is not read.
func presentedKey(r *http.Request) string {
	if v := r.Header.Get("X-Phm-Key"); v != "" {
		return v
	}
	scheme, v, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if ok && strings.EqualFold(scheme, "Bearer") && strings.HasPrefix(v, "sk-") {
		return v
	}
	return ""
}

// caller is who sent a request.
type caller struct {
	// key is the API key, nil for anonymous and account-token callers.
	key *apiKey
	// account is the account of an account-token caller.
	account *account
	// peer is the remote address.
	peer string
}

// checkKey validates a presented key. Caller holds s.mu.
func (s *Server) checkKey(plain string) (*apiKey, *errorResponse) {
	if !isKeyForm(plain) {
		return nil, fail(http.StatusUnauthorized, "invalid_api_key", "the API key is malformed")
	}
	k := s.keys[hashKey(plain)]
	if k == nil {
		return nil, fail(http.StatusUnauthorized, "invalid_api_key", "the API key does not exist")
	}
	switch k.status(s.Now()) {
	case "revoked":
		return nil, fail(http.StatusUnauthorized, "invalid_api_key", "the API key is revoked")
	case "expired":
		return nil, fail(http.StatusUnauthorized, "expired_api_key", "the API key expired")
	}
	return k, nil
}

// checkToken returns the account of the request's x-hm-token. Caller holds s.mu.
func (s *Server) checkToken(r *http.Request) (*account, *errorResponse) {
	tok := r.Header.Get("X-Hm-Token")
	if acc := s.accounts[tok]; tok != "" && acc != nil {
		return acc, nil
	}
	msg := "this operation needs a web account token in x-hm-token"
	if strings.HasPrefix(tok, "sk-") {
		msg = "an sk- API key is not an account token"
	} else if tok != "" {
		msg = "the account token is not valid"
	}
	return nil, fail(http.StatusUnauthorized, "account_token_required", msg)
}

// window is one fixed quota window of a bucket.
type window struct {
	start time.Time
	n     int
}

// used returns the bucket's count in the current window of length period. Caller holds s.mu.
func (s *Server) used(bucket string, period time.Duration) (int, time.Time) {
	start := s.Now().Truncate(period)
	w := s.windows[bucket]
	if w == nil || !w.start.Equal(start) {
		return 0, start
	}
	return w.n, start
}

// consume counts one use of the bucket in the current window. Caller holds s.mu.
func (s *Server) consume(bucket string, period time.Duration) {
	n, start := s.used(bucket, period)
	s.windows[bucket] = &window{start: start, n: n + 1}
}

// quotaHeaders sets the rate-limit headers of a bucket and reports whether it is used up,
// with the seconds until its window resets. Caller holds s.mu.
func (s *Server) quotaHeaders(h http.Header, bucket string, limit int, period time.Duration) (exhausted bool, resetSecs int) {
	n, start := s.used(bucket, period)
	reset := start.Add(period).Sub(s.Now())
	secs := int((reset + time.Second - 1) / time.Second)
	h.Set("X-Ratelimit-Limit", strconv.Itoa(limit))
	h.Set("X-Ratelimit-Remaining", strconv.Itoa(max(limit-n, 0)))
	h.Set("X-Ratelimit-Reset", strconv.Itoa(secs))
	return n >= limit, secs
}

// exceeded is the 429 answer of a used-up quota, with retry-after.
func exceeded(secs int, message string) *errorResponse {
	e := fail(http.StatusTooManyRequests, "rate_limit_exceeded", message)
	e.header = http.Header{"Retry-After": {strconv.Itoa(secs)}}
	return e
}

// quotas returns the effective quotas.
func (s *Server) quotas() Quotas {
	q := s.cfg.quotas
	if q.AnonymousPerHour == 0 {
		q.AnonymousPerHour = DefaultAnonymousPerHour
	}
	if q.GlobalAnonymousPerHour == 0 {
		q.GlobalAnonymousPerHour = DefaultGlobalAnonymousPerHour
	}
	if q.KeyPerHour == 0 {
		q.KeyPerHour = DefaultKeyPerHour
	}
	if q.AnalysesPerDay == 0 {
		q.AnalysesPerDay = DefaultAnalysesPerDay
	}
	return q
}

// Quota buckets.
const (
	globalAnonBucket = "anon:*"
	hour             = time.Hour
	day              = 24 * time.Hour
)

// limit counts a request against the caller's hourly quota and sets the rate-limit headers;
// it answers 429 with retry-after when the quota is used up and 503 when the limiter is down.
// Caller holds s.mu.
func (s *Server) limit(h http.Header, c *caller) *errorResponse {
	if s.cfg.limiterDown {
		return fail(http.StatusServiceUnavailable, "rate_limit_unavailable", "the rate limiter is unavailable")
	}
	q := s.quotas()
	if c.key != nil {
		bucket := "key:" + c.key.id
		if full, secs := s.quotaHeaders(h, bucket, q.KeyPerHour, hour); full {
			return exceeded(secs, "hourly request quota of the API key exceeded")
		}
		s.consume(bucket, hour)
		s.quotaHeaders(h, bucket, q.KeyPerHour, hour)
		now := s.Now()
		c.key.lastUsed = &now
		c.key.requests++
		return nil
	}
	bucket := "anon:" + c.peer
	if full, secs := s.quotaHeaders(h, bucket, q.AnonymousPerHour, hour); full {
		return exceeded(secs, "anonymous hourly request quota exceeded")
	}
	if full, secs := s.quotaHeaders(http.Header{}, globalAnonBucket, q.GlobalAnonymousPerHour, hour); full {
		s.quotaHeaders(h, globalAnonBucket, q.GlobalAnonymousPerHour, hour)
		return exceeded(secs, "global anonymous hourly request quota exceeded")
	}
	s.consume(bucket, hour)
	s.consume(globalAnonBucket, hour)
	s.quotaHeaders(h, bucket, q.AnonymousPerHour, hour)
	return nil
}
