package chartdiff

import (
	"errors"
	"strings"
)

//go:generate go run github.com/agentapis/sdk/internal/gentypes -service chartdiff -types APIError,RateLimitError,Response,RetryPolicy -codes -ratelimit-sentinel ErrRateLimitExceeded

// Sentinels for the error codes of the service, matched with errors.Is against any error the
// client returns:
//
//	if errors.Is(err, chartdiff.ErrPlayerNotFound) { ... }
var (
	// ErrInvalidChartID (400 invalid_chart_id): chart_id is not a positive integer.
	ErrInvalidChartID = codeError("invalid_chart_id")
	// ErrInvalidUID (400 invalid_uid): an author or player uid is not a positive integer.
	ErrInvalidUID = codeError("invalid_uid")
	// ErrInvalidSortField (400 invalid_sort_field): the sort field is not allowed; the error is a
	// *SortFieldError carrying the allowed list.
	ErrInvalidSortField = codeError(codeInvalidSortField)
	// ErrInvalidAPIKey (401 invalid_api_key): the key does not exist, is malformed or is revoked.
	ErrInvalidAPIKey = codeError("invalid_api_key")
	// ErrAccountTokenRequired (401 account_token_required): key management without a valid
	// account token. The client also returns a *MissingCredentialError matching it, without a
	// request, when it has no token.
	ErrAccountTokenRequired = codeError("account_token_required")
	// ErrExpiredAPIKey (401 expired_api_key): the key's expiry time has passed.
	ErrExpiredAPIKey = codeError("expired_api_key")
	// ErrInsufficientScope (403 insufficient_scope): the key lacks the scope the call needs.
	ErrInsufficientScope = codeError("insufficient_scope")
	// ErrPlayerNotFound (404 player_not_found): no player has that uid.
	ErrPlayerNotFound = codeError("player_not_found")
	// ErrNotFound (404 not_found): the endpoint, or the key named in the path, does not exist.
	ErrNotFound = codeError("not_found")
	// ErrKeyLimitReached (409 key_limit_reached): the account already has 100 active keys.
	ErrKeyLimitReached = codeError("key_limit_reached")
	// ErrRateLimitExceeded (429 rate_limit_exceeded): a quota is used up; the error is a
	// *RateLimitError carrying retry-after.
	ErrRateLimitExceeded = codeError("rate_limit_exceeded")
	// ErrAnalysisFailed (502 analysis_failed): the analysis could not be completed or stored.
	ErrAnalysisFailed = codeError("analysis_failed")
	// ErrCacheUnavailable (502 cache_unavailable): the database is temporarily unavailable.
	ErrCacheUnavailable = codeError("cache_unavailable")
	// ErrUpstreamUnavailable (502 upstream_unavailable): the upstream game service is down. It
	// means "retry later", never "no results".
	ErrUpstreamUnavailable = codeError("upstream_unavailable")
	// ErrStatsUnavailable (502 stats_unavailable): the statistics service is temporarily down.
	ErrStatsUnavailable = codeError("stats_unavailable")
	// ErrAnalysisBusy (503 analysis_busy): every analysis slot is taken; Analyze retries it
	// within the WithAnalyzeWait bound before returning it.
	ErrAnalysisBusy = codeError("analysis_busy")
	// ErrRateLimitUnavailable (503 rate_limit_unavailable): the service's rate limiter failed.
	ErrRateLimitUnavailable = codeError("rate_limit_unavailable")
)

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

// codeSentinels maps each error code of the service to its sentinel; APIError.Is reads it.
var codeSentinels = map[string]error{}

// codeError returns the sentinel of code and records it in codeSentinels.
func codeError(code string) error {
	err := errors.New(serviceName + ": " + code)
	codeSentinels[code] = err
	return err
}

// classify returns err with the core's error types replaced by the package's, and an
// invalid_sort_field answer as a *SortFieldError.
func classify(err error) error {
	err = fromCore(err)
	if ae, ok := err.(*APIError); ok && ae.Code == codeInvalidSortField {
		return &SortFieldError{APIError: ae, Allowed: parseAllowedSort(ae.Header.Get("X-Allowed-Sort"))}
	}
	return err
}

// codeInvalidSortField is the code of a refused sort field.
const codeInvalidSortField = "invalid_sort_field"

// parseAllowedSort splits a comma- or space-separated x-allowed-sort header.
func parseAllowedSort(v string) []SortField {
	var out []SortField
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		out = append(out, SortField(f))
	}
	return out
}
