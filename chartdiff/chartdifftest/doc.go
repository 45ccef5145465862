// Package chartdifftest is an in-memory fake of the chart difficulty API, for tests, examples
// and anyone who wants to exercise code that uses package chartdiff without a network.
//
//	srv := chartdifftest.NewServer()
//	defer srv.Close()
//	client, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL))
//	if err != nil {
//		return err
//	}
//	_, err = client.Chart(ctx, 1)
//
// The fake implements the whole API description: every endpoint under /api/v1, its
// validation and error codes, the quotas, the analysis slots and cache, and the key state
// machine. It does not import package chartdiff, so a field the client misnames is caught by
// the client's end-to-end tests.
//
// # Data
//
// The cache holds the charts with ids 1 to n (WithCharts, default 200). Chart id's level
// cycles through EZ, HD, IN, AT, SP; a chart whose id is a multiple of 4 is not analysed;
// among the analysed ones, the official-scale value is absent when the id is a multiple of 3,
// and the engine version is OldEngineVersion (stale) when the id ends in 1. ChartAnalyzed,
// ChartZero (every value a computed 0), ChartNotAnalyzed and ChartTooLarge (a download over
// 60 MB) are fixed. Authors 1 to 4 uploaded the cached charts; AuthorProlific has 200 charts
// upstream only. Players 1 to 10 exist; PlayerNoStats has no statistics.
//
// # Shapes the API description does not show
//
//   - Errors: {"error":{"code","message"}} by default (WithErrorShape selects
//     {"code","message"} or {"error":"<code>","message"}). Failures the error table does not
//     name (a bad page, an unknown body field) answer 400 invalid_request; an unknown
//     endpoint or method answers 404 not_found, as does a key id that is not an active key of
//     the account.
//   - A chart: chart_id, name, level, difficulty, charter, uploader, analyzed, and only for an
//     analysed chart ref_const, ref_official (when computable), ps_score, nps, notes,
//     engine_version, analyzed_at. A chart id the cache does not know answers
//     {"chart_id":N,"analyzed":false}.
//   - GET /charts: {total, page, pageSize, charts}; charts without the sort value come last in
//     either order, ties go by chart id. q matches case-insensitively.
//   - GET /stats: {charts_stored, charts_analyzed, coverage (0 to 1), active_users (accounts
//     with a key used in the last 24 hours), engine_version}.
//   - GET /charters/{uid}: {uid, pages_read, has_more, charts}; an unknown author has no
//     charts.
//   - GET /players/{uid}: {id, name, avatar, badges, language, bio, exp, rks, joined,
//     last_login, stats: {records, charts_played, full_combos, average_accuracy} or null}.
//   - POST /analyses: the chart's fields plus cached. Anonymous callers may analyse (the
//     API description leaves it open); only engine runs count against a key's 200 a day.
//   - GET /usage: {account_id, requests_total, analyses_total, limits, keys: [{id, name,
//     status, requests_total, analyses_total, requests_this_hour, analyses_today}]}, revoked
//     keys included. Without a key it needs the account token; with neither it answers 401
//     account_token_required.
//   - GET /meta: {service, version, build, engine_version}, plus with diag=1
//     {"diag":{"headers":{"x-phm-key":N,"authorization":N,"x-api-key":N,"x-hm-token":N}}}.
//     /meta validates no credential, so a diagnostic probe always gets an answer.
//   - Keys: records {id, name, scopes, mask, status, created_at, expires_at, last_used_at,
//     revoked_at}. GET /keys answers {keys}; POST /keys takes {name, scopes, expires_in_days}
//     (scopes default to all three, expiry to never) and answers 201 {key, plaintext}; PATCH
//     takes the same fields (expires_in_days null removes the expiry) and answers {key};
//     rotate answers {key, plaintext, revoked_id} (same name, scopes and expiry); DELETE
//     answers {key} with status revoked.
//
// # Quotas
//
// Fixed windows on the fake's clock: anonymous requests 100 an hour per peer address plus a
// global anonymous bucket, 1,000 an hour per key, 200 analyses a day per key (WithQuotas
// changes them). Counted answers carry x-ratelimit-limit, x-ratelimit-remaining and
// x-ratelimit-reset (seconds); a 429 carries retry-after. Key management is not counted.
//
// # Faults and inspection
//
// WithUpstreamDown, WithCacheDown, WithStatsDown and WithLimiterDown (and their Set methods)
// switch outages; WithGatewayMangling and WithDroppedHeaders put a gateway or a proxy in
// front; HoldAnalyses fills the analysis slots; WithClock takes a clock the test moves on
// (sdktest.NewClock). IssueKey, Analyzed, RunningAnalyses and UpstreamPagesRead read and set
// the fake's state directly.
//
// The fake speaks the vocabulary every fake of the SDK shares (package sdktest): Requests
// returns the sdktest.Request records of what it received, before any gateway or proxy
// changed it and with the values of x-phm-key, x-hm-token, Authorization and x-api-key
// redacted; RequestCount counts them by method and path; InjectFaults queues sdktest.Fault
// answers (a status with a code and message in the configured ErrorShape, Retry-After,
// headers, a dropped connection, a delay), which come before any check of the service. Client
// returns an *http.Client for the server, and Close never waits on a held request: every
// request still being answered ends when Close begins.
//
// # Stability
//
// The fake is versioned with the SDK: its options, methods and the shared vocabulary change
// only as the SDK's public API does. Its behaviour follows the API description; the shapes it
// chose where the description says "not shown" (listed above) follow what the SDK's
// documentation expects of a real server, and may be refined in minor releases.
package chartdifftest
