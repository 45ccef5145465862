package chartdiff

import (
	"errors"
	"net/http"
	"strings"

	"github.com/agentapis/sdk/internal/httpcore"
)

// APIError is a failure response of the service: its HTTP status, the service's error code and
// message, the response header and the body (capped at 1 MiB, credentials scrubbed). Match the
// codes with errors.Is and the sentinels below.
type APIError = httpcore.APIError

// ValidationError reports a parameter the API description rules out, found before any request
// was sent. Field names the parameter as the service spells it.
type ValidationError = httpcore.ValidationError

// DecodeError reports a 2xx response whose body did not decode, or lacked a field the client
// needs to tell an absent value from an empty one.
type DecodeError = httpcore.DecodeError

// RequestError reports a request that got no response: a network failure or the context ending.
type RequestError = httpcore.RequestError

// Sentinels for the error codes of the service, matched with errors.Is against any error the
// client returns:
//
//	if errors.Is(err, chartdiff.ErrPlayerNotFound) { ... }
var (
	// ErrInvalidChartID (400 invalid_chart_id): chart_id is not a positive integer.
	ErrInvalidChartID = httpcore.NewCodeError(serviceName, "invalid_chart_id")
	// ErrInvalidUID (400 invalid_uid): an author or player uid is not a positive integer.
	ErrInvalidUID = httpcore.NewCodeError(serviceName, "invalid_uid")
	// ErrInvalidSortField (400 invalid_sort_field): the sort field is not allowed; the error is a
	// *SortFieldError carrying the allowed list.
	ErrInvalidSortField = httpcore.NewCodeError(serviceName, "invalid_sort_field")
	// ErrInvalidAPIKey (401 invalid_api_key): the key does not exist, is malformed or is revoked.
	ErrInvalidAPIKey = httpcore.NewCodeError(serviceName, "invalid_api_key")
	// ErrAccountTokenRequired (401 account_token_required): key management without a valid
	// account token. The client also returns a *MissingCredentialError matching it, without a
	// request, when it has no token.
	ErrAccountTokenRequired = httpcore.NewCodeError(serviceName, "account_token_required")
	// ErrExpiredAPIKey (401 expired_api_key): the key's expiry time has passed.
	ErrExpiredAPIKey = httpcore.NewCodeError(serviceName, "expired_api_key")
	// ErrInsufficientScope (403 insufficient_scope): the key lacks the scope the call needs.
	ErrInsufficientScope = httpcore.NewCodeError(serviceName, "insufficient_scope")
	// ErrPlayerNotFound (404 player_not_found): no player has that uid.
	ErrPlayerNotFound = httpcore.NewCodeError(serviceName, "player_not_found")
	// ErrNotFound (404 not_found): the endpoint, or the key named in the path, does not exist.
	ErrNotFound = httpcore.NewCodeError(serviceName, "not_found")
	// ErrKeyLimitReached (409 key_limit_reached): the account already has 100 active keys.
	ErrKeyLimitReached = httpcore.NewCodeError(serviceName, "key_limit_reached")
	// ErrRateLimitExceeded (429 rate_limit_exceeded): a quota is used up; the error is a
	// *RateLimitError carrying retry-after.
	ErrRateLimitExceeded = httpcore.NewCodeError(serviceName, "rate_limit_exceeded")
	// ErrAnalysisFailed (502 analysis_failed): the analysis could not be completed or stored.
	ErrAnalysisFailed = httpcore.NewCodeError(serviceName, "analysis_failed")
	// ErrCacheUnavailable (502 cache_unavailable): the database is temporarily unavailable.
	ErrCacheUnavailable = httpcore.NewCodeError(serviceName, "cache_unavailable")
	// ErrUpstreamUnavailable (502 upstream_unavailable): the upstream game service is down. It
	// means "retry later", never "no results".
	ErrUpstreamUnavailable = httpcore.NewCodeError(serviceName, "upstream_unavailable")
	// ErrStatsUnavailable (502 stats_unavailable): the statistics service is temporarily down.
	ErrStatsUnavailable = httpcore.NewCodeError(serviceName, "stats_unavailable")
	// ErrAnalysisBusy (503 analysis_busy): every analysis slot is taken; Analyze retries it
	// within the WithAnalyzeWait bound before returning it.
	ErrAnalysisBusy = httpcore.NewCodeError(serviceName, "analysis_busy")
	// ErrRateLimitUnavailable (503 rate_limit_unavailable): the service's rate limiter failed.
	ErrRateLimitUnavailable = httpcore.NewCodeError(serviceName, "rate_limit_unavailable")
)

// RateLimitError is a 429 answer: a quota (anonymous 100 requests an hour, 1,000 with a key,
// 200 analyses a day) is used up. RetryAfter (from the embedded *APIError) is the wait the
// service asked for; RateLimit holds the rate-limit headers of the answer, when it had any.
// errors.Is(err, ErrRateLimitExceeded) matches it.
type RateLimitError struct {
	*APIError
	// RateLimit is the quota state of the answer's headers, or nil without such headers.
	RateLimit *RateLimit
}

// Unwrap returns the *APIError, so that errors.As finds it.
func (e *RateLimitError) Unwrap() error { return e.APIError }

// Is matches ErrRateLimitExceeded for every 429, whatever code its body carried, and the
// sentinel of the body's code.
func (e *RateLimitError) Is(target error) bool {
	return target == ErrRateLimitExceeded || e.APIError.Is(target)
}

// SortFieldError is a 400 invalid_sort_field answer. Allowed lists the sort fields the service
// accepts, from its x-allowed-sort header. errors.Is(err, ErrInvalidSortField) matches it.
type SortFieldError struct {
	*APIError
	// Allowed lists the accepted sort fields, in the service's order.
	Allowed []SortField
}

// Unwrap returns the *APIError, so that errors.As finds it.
func (e *SortFieldError) Unwrap() error { return e.APIError }

// MissingCredentialError reports a call that needs a credential the client was not given. It
// is returned before any request, and errors.Is(err, ErrAccountTokenRequired) matches it.
type MissingCredentialError struct {
	// Operation names the method, such as "CreateKey".
	Operation string
	// Reason says which credential is needed and how to give it.
	Reason string
}

// Error names the operation and the missing credential.
func (e *MissingCredentialError) Error() string {
	return serviceName + ": " + e.Operation + " " + e.Reason
}

// Is matches ErrAccountTokenRequired.
func (e *MissingCredentialError) Is(target error) bool { return target == ErrAccountTokenRequired }

// classify turns a 429 into a *RateLimitError and an invalid_sort_field answer into a
// *SortFieldError; every other error is returned as it is.
func classify(err error) error {
	var ae *APIError
	if !errors.As(err, &ae) {
		return err
	}
	switch {
	case ae.StatusCode == http.StatusTooManyRequests:
		return &RateLimitError{APIError: ae, RateLimit: parseRateLimit(ae.Header)}
	case ae.Code == ErrInvalidSortField.Code:
		return &SortFieldError{APIError: ae, Allowed: parseAllowedSort(ae.Header.Get("X-Allowed-Sort"))}
	}
	return err
}

// parseAllowedSort splits a comma- or space-separated x-allowed-sort header.
func parseAllowedSort(v string) []SortField {
	var out []SortField
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		out = append(out, SortField(f))
	}
	return out
}
