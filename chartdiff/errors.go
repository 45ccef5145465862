package chartdiff

import (
	"strings"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// sentinels are the package's sentinel errors and the service's codes that mean each: the HTTP
// core puts the sentinel of an answer's code into the *sdk.APIError's Sentinels. The codes
// not_found and rate_limit_exceeded mean what every 404 and every 429 mean, so they are the
// status sentinels of package sdk.
var sentinels = httpcore.NewSentinels(serviceName).
	Alias(sdk.ErrNotFound, "not_found").
	Alias(sdk.ErrRateLimited, "rate_limit_exceeded")

// ErrAccountTokenRequired (401 account_token_required): key management without a valid account
// token. The client also returns an *sdk.MissingCredentialError matching it, without a
// request, when it has no token.
var ErrAccountTokenRequired = sentinels.Code("account_token_required")

// ErrAnalysisBusy (503 analysis_busy): every analysis slot is taken. Analyze waits for a free
// one within its WithWait policy; the *sdk.WaitError it gives up with matches ErrAnalysisBusy
// through its Last error.
var ErrAnalysisBusy = sentinels.Code("analysis_busy")

// ErrAnalysisFailed (502 analysis_failed): the analysis could not be completed or stored.
var ErrAnalysisFailed = sentinels.Code("analysis_failed")

// ErrCacheUnavailable (502 cache_unavailable): the database is temporarily unavailable.
var ErrCacheUnavailable = sentinels.Code("cache_unavailable")

// ErrConflict is [sdk.ErrConflict], which every 409 answer matches, such as key_limit_reached.
var ErrConflict = sdk.ErrConflict

// ErrExpiredAPIKey (401 expired_api_key): the key's expiry time has passed.
var ErrExpiredAPIKey = sentinels.Code("expired_api_key")

// ErrForbidden is [sdk.ErrForbidden], which every 403 answer matches, such as
// insufficient_scope.
var ErrForbidden = sdk.ErrForbidden

// ErrInsufficientScope (403 insufficient_scope): the key lacks the scope the call needs.
var ErrInsufficientScope = sentinels.Code("insufficient_scope")

// ErrInvalidAPIKey (401 invalid_api_key): the key does not exist, is malformed or is revoked.
var ErrInvalidAPIKey = sentinels.Code("invalid_api_key")

// ErrInvalidChartID (400 invalid_chart_id): chart_id is not a positive integer.
var ErrInvalidChartID = sentinels.Code("invalid_chart_id")

// ErrInvalidSortField (400 invalid_sort_field): the sort field is not allowed; the error is a
// *SortFieldError carrying the allowed list.
var ErrInvalidSortField = sentinels.Code(codeInvalidSortField)

// ErrInvalidUID (400 invalid_uid): an author or player uid is not a positive integer.
var ErrInvalidUID = sentinels.Code("invalid_uid")

// ErrKeyHeaderDropped is returned by SelfCheck when an API key sent in x-phm-key does not reach
// the service intact. Every keyed request would then silently run with anonymous limits.
var ErrKeyHeaderDropped = sentinels.New("the x-phm-key header does not reach the service intact; keyed requests would silently get anonymous limits")

// ErrKeyLimitReached (409 key_limit_reached): the account already has 100 active keys.
var ErrKeyLimitReached = sentinels.Code("key_limit_reached")

// ErrNotFound is [sdk.ErrNotFound], which every 404 answer matches: the code not_found (the
// endpoint, or the key named in the path, does not exist) and player_not_found.
var ErrNotFound = sdk.ErrNotFound

// ErrPlayerNotFound (404 player_not_found): no player has that uid.
var ErrPlayerNotFound = sentinels.Code("player_not_found")

// ErrRateLimitUnavailable (503 rate_limit_unavailable): the service's rate limiter failed.
var ErrRateLimitUnavailable = sentinels.Code("rate_limit_unavailable")

// ErrRateLimited is [sdk.ErrRateLimited], which every *sdk.RateLimitError matches: every 429,
// rate_limit_exceeded included, when an hourly or daily quota is used up.
var ErrRateLimited = sdk.ErrRateLimited

// ErrStatsUnavailable (502 stats_unavailable): the statistics service is temporarily down.
var ErrStatsUnavailable = sentinels.Code("stats_unavailable")

// ErrUnauthorized is [sdk.ErrUnauthorized], which every 401 answer matches: invalid_api_key,
// account_token_required and expired_api_key.
var ErrUnauthorized = sdk.ErrUnauthorized

// ErrUpstreamUnavailable (502 upstream_unavailable): the upstream game service is down. It
// means "retry later", never "no results".
var ErrUpstreamUnavailable = sentinels.Code("upstream_unavailable")

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

// classify is the service's ClassifyAt: it sees every failure answer and returns an
// invalid_sort_field answer as a *SortFieldError, any other as it is.
func classify(err error, _ time.Time) error {
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
