// Package chartdiff is a client for the rhythm-game chart difficulty API: stored difficulty
// values of charts, a searchable shared cache, database statistics, authors' charts, player
// profiles, chart analysis, and API-key management.
//
//	client, err := chartdiff.New(
//		chartdiff.WithBaseURL("https://charts.example"), // {chart_api_url}; /api/v1 is added
//		chartdiff.WithAPIKey(os.Getenv("CHARTDIFF_API_KEY")),
//	)
//	if err != nil {
//		return err
//	}
//	ch, err := client.Chart(ctx, 12345)
//	if err != nil {
//		return err
//	}
//	if ch.Analyzed && ch.RefConst != nil {
//		fmt.Println(*ch.RefConst)
//	}
//
// Package chartdifftest is an in-memory fake of the service for tests.
//
// # Configuration and environment
//
// New takes options: WithBaseURL, WithAPIKey, WithAccountToken, WithHTTPClient, WithLogger,
// WithRetry, WithUserAgent and WithAnalyzeWait. Without WithBaseURL the base URL comes from
// CHARTDIFF_URL, and then CHARTDIFF_API_KEY and CHARTDIFF_ACCOUNT_TOKEN supply the credentials
// that no option gave. When WithBaseURL is given the environment's credentials are not sent,
// so that a key meant for one server never reaches another (a test server, say); the client
// then says so where it matters: key management and Usage, which need a credential, fail with
// an *sdk.MissingCredentialError naming the variable that was set but not used, and
// SelfCheck's report and Usage's result carry KeyNotUsed when CHARTDIFF_API_KEY was. To send
// them to an address given in code, pass them explicitly:
// WithAPIKey(os.Getenv("CHARTDIFF_API_KEY")).
//
// # Authentication
//
// Anonymous use is allowed (100 requests an hour). An API key (sk- and 32 hexadecimal
// characters) gives 1,000 requests an hour and 200 analyses a day; the client sends it only in
// x-phm-key, the one header the service's gateway lets through (it overwrites Authorization
// and consumes x-api-key). A key that does not arrive is not an error: the service silently
// treats the caller as anonymous. SelfCheck detects that.
//
// Key management (Keys, CreateKey, UpdateKey, RotateKey, DeleteKey) needs the web account
// token, sent in x-hm-token instead of the key; without one these methods return an
// *sdk.MissingCredentialError (matching ErrAccountTokenRequired) before any request. Usage
// accepts the key or the token.
//
// A new key's plaintext is shown once, by CreateKey or RotateKey, as an sdk.Secret: it prints
// as a mask everywhere (fmt, slog, JSON) and only Reveal returns it. The client reads it from
// any field of the answer, or finds it anywhere in the body (sk- and 32 hexadecimal
// characters), so an answer of an unexpected shape never loses it; an answer with no plaintext
// at all is a *KeyAnswerError that keeps the body, masked. SetAPIKey and SetAccountToken switch
// the client to another key or token while it runs (after a rotation, say). Credentials travel
// only in headers and are scrubbed from every error and log line.
//
// # Absent is not zero
//
// A chart that was never analysed has Analyzed false and nil value fields (RefConst,
// RefOfficial, PSScore, NPS, Notes); a value the engine computed as 0 is a non-nil 0. The
// same holds for every count whose field name the API description leaves open (Stats, Usage,
// PlayerStats): nil means the service did not send it.
//
// # Decoding
//
// The fields the API description names are required: a chart without chart_id or analyzed,
// an analysis without cached, a page without total, a key record without id are an
// *sdk.DecodeError. Fields it does not name are read leniently, with the likely spellings (a
// player's id or uid, an avatar as a URL or {"url": ...}, a list called charts, items or
// results), and a value of an unexpected type is left unset rather than failing the answer;
// Raw keeps every body. A list that is null or absent while total says 0 is an empty page; a
// list missing while total says more is an *sdk.DecodeError, never an empty list. Each body is
// decoded once.
//
// # Lists
//
// Charts returns one page with the true Total; AllCharts iterates over every page lazily:
//
//	client, err := chartdiff.New(chartdiff.WithBaseURL("https://charts.example"))
//	if err != nil {
//		return err
//	}
//	params := &chartdiff.ChartsParams{Sort: chartdiff.SortRefConst, Order: chartdiff.Desc, PageSize: 200}
//	for ch, err := range client.AllCharts(ctx, params) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(ch.ID, ch.Name)
//	}
//
// ChartsParams are validated before any request: page 1 or more, pageSize 1 to 200, one of the
// nine sort fields, asc or desc, q at most 60 characters, only official or stale, build only
// with only=stale. Charter's maxPages is 1 to 5 (0 for the default of 3).
//
// # Errors
//
// The client returns the error types of package sdk. A failure answer is an *sdk.APIError
// carrying the status, the service's code and message, the header and the body. The service's
// envelope is not documented, so {"error":{"code","message"}}, {"code","message"} and
// {"error":"<code>","message"} all decode. Every code has a sentinel for errors.Is
// (ErrInvalidChartID ... ErrRateLimitUnavailable; not_found is ErrNotFound), and the statuses
// have theirs (ErrUnauthorized, ErrForbidden, ErrNotFound, ErrRateLimited: the values of
// package sdk). A 429 is an *sdk.RateLimitError with RetryAfter and the rate-limit headers;
// invalid_sort_field is a *SortFieldError with the allowed list from x-allowed-sort.
// upstream_unavailable is always an error, never an empty list. Input the API description
// rules out is an *sdk.ValidationError before any request.
//
// # Retries and quotas
//
// GET and DELETE requests are retried on network errors, 429, 502, 503 and 504 with
// full-jitter backoff (WithRetry sets the policy). A Retry-After is honoured up to
// sdk.RetryPolicy.MaxRetryAfter (30 s by default): the quotas here are hourly and daily, so a 429
// usually asks for far more, and the client then retries after the capped wait and returns
// the *sdk.RateLimitError once the attempts are spent. Callers that would rather get it at
// once when the wait is longer than the cap set
// WithRetry(sdk.RetryPolicy{StopOnLongRetryAfter: true}) and read RetryAfter; short
// waits are still retried. RetryPolicy{MaxAttempts: 1} turns retries off altogether.
//
// POST /analyses is not retried by that policy: Analyze retries only 503 analysis_busy, within
// the WithAnalyzeWait bound (30 s by default), honouring retry-after. CreateKey and RotateKey
// are never retried (a repeat would create a second key, or lose the first answer's
// plaintext); UpdateKey is retried like a read, as it sets absolute values.
//
// Every returned value has a Response field (an sdk.Response) with the status, the request id
// and the rate-limit headers (RateLimit) of its answer.
//
// # Time limits
//
// No call waits for ever: every attempt is bounded by the client's sdk.Timeouts (WithTimeouts),
// by default 30 s for the answer's headers and 60 s for the whole attempt, and a server that
// sends nothing, or a byte at a time, ends it with an *sdk.RequestError matching
// context.DeadlineExceeded. With the defaults, the longest a call can take is:
//
//   - a request that is retried (the reads, UpdateKey, DeleteKey): 4 attempts of 60 s and 3
//     waits of at most 30 s (a Retry-After, capped by sdk.RetryPolicy.MaxRetryAfter): 5.5
//     minutes; AllCharts one such request per page, SelfCheck two;
//   - CreateKey and RotateKey, sent once: 60 s;
//   - Analyze: its attempts start within WithAnalyzeWait (30 s) and the last may take 60 s:
//     90 s.
//
// To shorten it, lower the bounds with WithTimeouts, the attempts or MaxRetryAfter (or set
// StopOnLongRetryAfter) with WithRetry, the wait for a free analysis slot with
// WithAnalyzeWait, or give the call a context with a deadline, which bounds everything.
package chartdiff
