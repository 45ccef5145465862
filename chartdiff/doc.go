// Package chartdiff is a client for the rhythm-game chart difficulty API: stored difficulty
// values of charts, a searchable shared cache, database statistics, authors' charts, player
// profiles, chart analysis, and API-key management. The Example functions show each kind of
// call; package chartdifftest is an in-memory fake of the service for tests.
//
// A chart that was never analysed has Analyzed false and nil value fields (RefConst,
// RefOfficial, PSScore, NPS, Notes); a value the engine computed as 0 is a non-nil 0, and so is
// every count of Stats, Usage and PlayerStats. The members the API description names are
// required (a chart without chart_id is an *sdk.DecodeError); the others are read with their
// likely spellings, a value of an unexpected type is left unset, and Raw keeps every body. A
// list missing while total says more is an *sdk.DecodeError, never an empty list. Charts
// returns one page with its true Total; AllCharts yields every chart, fetching pages lazily.
//
// # Configuration
//
// The shared options are described in [sdk] (Client options). Without WithBaseURL the client
// reads CHARTDIFF_URL, and then CHARTDIFF_API_KEY and CHARTDIFF_ACCOUNT_TOKEN for the
// credentials no option gave; with WithBaseURL the environment's credentials are not sent, and
// the calls that need one (key management, Usage) or would have used one (SelfCheck) name the
// variable that was set but not used.
//
// Anonymous use is allowed (100 requests an hour). An API key (WithAPIKey: sk- and 32
// hexadecimal characters) gives 1,000 requests an hour and 200 analyses a day; it travels only
// in x-phm-key, the one header the service's gateway lets through. A key that does not arrive
// is not an error on the wire: the service silently treats the caller as anonymous, and
// SelfCheck detects that. Key management (Keys, CreateKey, UpdateKey, RotateKey, DeleteKey)
// needs the web account token (WithAccountToken), sent in x-hm-token instead of the key;
// Usage accepts either. A new key's plaintext is an sdk.Secret, shown once; SetAPIKey and
// SetAccountToken switch credentials while the client runs.
//
// The client is unpaced by default (the quotas are hourly and daily) and retries GET, DELETE
// and UpdateKey with the SDK's defaults; a Retry-After longer than the policy's MaxRetryAfter
// is waited for only up to it. CreateKey and RotateKey are sent once: a repeat would create a
// second key or lose the first answer's plaintext. Analyze is not retried by that policy: while
// the service answers 503 analysis_busy it waits for a free slot under WithWait, by default up
// to 30 s, from 250 ms to 4 s between attempts unless the answer gives a retry-after, and gives
// up with an *sdk.WaitError.
//
// # Errors
//
// Every error code of the service has a sentinel for errors.Is (ErrInvalidChartID ...
// ErrUpstreamUnavailable); not_found and rate_limit_exceeded are the status sentinels
// ErrNotFound and ErrRateLimited, the values of package sdk. The error envelope is not
// documented, so {"error":{"code","message"}}, {"code","message"} and
// {"error":"<code>","message"} all decode. invalid_sort_field is a *SortFieldError with the
// allowed list from x-allowed-sort; upstream_unavailable is always an error, never an empty
// list. Input the API description rules out (a page size over 200, a search text over 60
// characters, build without FilterStale, CharterParams.MaxPages over 5) is an
// *sdk.ValidationError before any request.
//
// # Time limits
//
// See [sdk.Timeouts] for the general rule. With the defaults, the longest a call can take is:
//
//   - a retried request (the reads, UpdateKey, DeleteKey): 5.5 minutes; AllCharts one such
//     request per page, SelfCheck two;
//   - CreateKey and RotateKey, sent once: 60 s;
//   - Analyze: its attempts start within the wait's 30 s and the last may take 60 s: 90 s.
package chartdiff
