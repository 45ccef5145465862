package chartdiff

import (
	"strings"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// codes maps the service's error codes to their sentinels: the HTTP core puts the sentinel of
// an answer's code into the *sdk.APIError's Sentinels. The code not_found means what every 404
// means, so it maps to the status sentinel of package sdk.
var codes = httpcore.Codes{"not_found": sdk.ErrNotFound}

// Sentinels for the HTTP statuses a caller branches on. They are the values of package sdk,
// which every *sdk.APIError of that status matches whatever its code, so a check written
// against package sdk works here too.
var (
	// ErrUnauthorized matches every 401 answer: invalid_api_key, account_token_required and
	// expired_api_key.
	ErrUnauthorized = sdk.ErrUnauthorized
	// ErrForbidden matches every 403 answer, such as insufficient_scope.
	ErrForbidden = sdk.ErrForbidden
	// ErrNotFound matches every 404 answer: the code not_found (the endpoint, or the key named
	// in the path, does not exist) and player_not_found.
	ErrNotFound = sdk.ErrNotFound
	// ErrRateLimited matches every *sdk.RateLimitError: every 429, whatever its code.
	ErrRateLimited = sdk.ErrRateLimited
)

// Sentinels for the error codes of the service, matched with errors.Is against any error the
// client returns:
//
//	if errors.Is(err, chartdiff.ErrPlayerNotFound) { ... }
var (
	// ErrInvalidChartID (400 invalid_chart_id): chart_id is not a positive integer.
	ErrInvalidChartID = sentinel("invalid_chart_id")
	// ErrInvalidUID (400 invalid_uid): an author or player uid is not a positive integer.
	ErrInvalidUID = sentinel("invalid_uid")
	// ErrInvalidSortField (400 invalid_sort_field): the sort field is not allowed; the error is a
	// *SortFieldError carrying the allowed list.
	ErrInvalidSortField = sentinel(codeInvalidSortField)
	// ErrInvalidAPIKey (401 invalid_api_key): the key does not exist, is malformed or is revoked.
	ErrInvalidAPIKey = sentinel("invalid_api_key")
	// ErrAccountTokenRequired (401 account_token_required): key management without a valid
	// account token. The client also returns an *sdk.MissingCredentialError matching it,
	// without a request, when it has no token.
	ErrAccountTokenRequired = sentinel("account_token_required")
	// ErrExpiredAPIKey (401 expired_api_key): the key's expiry time has passed.
	ErrExpiredAPIKey = sentinel("expired_api_key")
	// ErrInsufficientScope (403 insufficient_scope): the key lacks the scope the call needs.
	ErrInsufficientScope = sentinel("insufficient_scope")
	// ErrPlayerNotFound (404 player_not_found): no player has that uid.
	ErrPlayerNotFound = sentinel("player_not_found")
	// ErrKeyLimitReached (409 key_limit_reached): the account already has 100 active keys.
	ErrKeyLimitReached = sentinel("key_limit_reached")
	// ErrRateLimitExceeded (429 rate_limit_exceeded): a quota is used up; the error is an
	// *sdk.RateLimitError carrying retry-after, and also matches ErrRateLimited.
	ErrRateLimitExceeded = sentinel("rate_limit_exceeded")
	// ErrAnalysisFailed (502 analysis_failed): the analysis could not be completed or stored.
	ErrAnalysisFailed = sentinel("analysis_failed")
	// ErrCacheUnavailable (502 cache_unavailable): the database is temporarily unavailable.
	ErrCacheUnavailable = sentinel("cache_unavailable")
	// ErrUpstreamUnavailable (502 upstream_unavailable): the upstream game service is down. It
	// means "retry later", never "no results".
	ErrUpstreamUnavailable = sentinel("upstream_unavailable")
	// ErrStatsUnavailable (502 stats_unavailable): the statistics service is temporarily down.
	ErrStatsUnavailable = sentinel("stats_unavailable")
	// ErrAnalysisBusy (503 analysis_busy): every analysis slot is taken; Analyze retries it
	// within the WithAnalyzeWait bound before returning it.
	ErrAnalysisBusy = sentinel("analysis_busy")
	// ErrRateLimitUnavailable (503 rate_limit_unavailable): the service's rate limiter failed.
	ErrRateLimitUnavailable = sentinel("rate_limit_unavailable")
)

// sentinel returns the sentinel of code, "chartdiff: <code>", and records it in codes.
func sentinel(code string) error { return codes.Sentinel(serviceName, code, code) }

// SortFieldError is a 400 invalid_sort_field answer. Allowed lists the sort fields the service
// accepts, from its x-allowed-sort header. errors.Is(err, ErrInvalidSortField) matches it, and
// errors.As finds the *sdk.APIError through it.
type SortFieldError struct {
	*sdk.APIError
	// Allowed lists the accepted sort fields, in the service's order.
	Allowed []SortField
}

// Unwrap returns the *sdk.APIError.
func (e *SortFieldError) Unwrap() error { return e.APIError }

// codeInvalidSortField is the code of a refused sort field.
const codeInvalidSortField = "invalid_sort_field"

// classify is the service's Classify: it sees every failure answer and returns an
// invalid_sort_field answer as a *SortFieldError, any other as it is.
func classify(err error) error {
	if ae, ok := err.(*sdk.APIError); ok && ae.Code == codeInvalidSortField {
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

// invalid returns the *sdk.ValidationError for a refused parameter or setting.
func invalid(field, reason string) error {
	return &sdk.ValidationError{Service: serviceName, Field: field, Reason: reason}
}
