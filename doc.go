// Package sdk is the root of the agentapis Go SDK: typed, safe clients for five HTTP APIs,
// which pay for paid calls by themselves within limits the caller sets.
//
// The clients live in their own packages:
//
//   - x402: the x402 v2 payment protocol (EIP-3009 authorizations signed under EIP-712),
//     usable on any http.Client, with a Policy and a Budget that bound what can be paid;
//   - reportstore: macroeconomic reports sold per fetch in USDC over x402;
//   - hosting: repositories of files published as static sites;
//   - productdata: marketplace product data paid per call, with business codes and
//     asynchronous tasks;
//   - gpuprice: a GPU price index whose paid keys are bought with a USDC transfer on Solana;
//   - chartdiff: rhythm-game chart difficulty with API keys, scopes and quotas.
//
// Each package <name> has a fake server in <name>test for tests and examples that run
// offline.
//
// This package holds what every client shares:
//
//   - the error vocabulary: *APIError (a failure answer, matched with errors.Is against the
//     status sentinels ErrUnauthorized, ErrForbidden, ErrNotFound, ErrConflict,
//     ErrRateLimited, and against each package's own sentinels), *RateLimitError,
//     *ValidationError (input refused before any request), *MissingCredentialError,
//     *DecodeError (a 2xx answer that does not decode) and *RequestError (no answer);
//   - Response, the HTTP answer every result carries, with its RateLimit;
//   - RetryPolicy, Timeouts, Clock and WaitPolicy, the settings of the shared options (see
//     "Client options" below), and *WaitError, the one error of a wait for background work
//     that gave up;
//   - Secret, the one type the SDK uses to hand a credential back to the caller (a key just
//     created, rotated or bought) without any way of printing it.
//
// # Client options
//
// Every service package makes its client with New(opts ...Option) and has these options,
// under these names. Each checks its input, and New returns the first refusal as a
// *ValidationError naming the setting.
//
//   - WithBaseURL(rawURL): the service's address as its API description writes it (such as
//     https://host or https://host/proxy); the client adds the service's path prefix (/api/v1,
//     /v1, ...) and keeps any path of its own. Without it the client reads the environment
//     variable <SERVICE>_URL (REPORTSTORE_URL, HOSTING_URL, PRODUCTDATA_URL, GPUPRICE_URL,
//     CHARTDIFF_URL), and only then the credential variables of its package: an address given
//     in code never receives a credential that was meant for another.
//   - WithHTTPClient(hc): the *http.Client that sends requests, used as it is (its Transport,
//     Timeout and Jar); the client copies it and never closes its idle connections. Without
//     it the client's own transport keeps up to 100 idle connections per host.
//   - WithLogger(l): a *slog.Logger receiving one metadata-only record per attempt (service,
//     method, host, path, status, attempt, duration). Off by default and with nil; credentials,
//     header values, query strings and bodies are never logged.
//   - WithUserAgent(product): the caller's own product token (such as "my-agent/1.2"), sent
//     before the SDK's User-Agent.
//   - WithRequestsPerMinute(n): paces the client so that no 60-second window holds more than n
//     attempts, whatever the goroutine; 0 turns pacing off. A service with a published limit
//     is paced at it by default, as its package says.
//   - WithRetry(RetryPolicy): which failures are retried and how patiently; see [RetryPolicy].
//     A zero field takes the service's default, then the SDK's.
//   - WithTimeouts(Timeouts): how long the client waits for an answer, so that no call waits
//     forever; see [Timeouts] for the bounds and the longest a call can take.
//   - WithClock(Clock): the clock that paces the client, times its waits and reads its
//     answers' times; see [Clock]. Tests give a fake one (sdktest.NewClock).
//   - WithWait(WaitPolicy), in the packages whose service does work in the background
//     (productdata, chartdiff, gpuprice): how long and how often the client waits for that
//     work; see [WaitPolicy]. Giving up is a *WaitError.
//
// Each package's documentation says what its service adds: its credentials and their
// variables, its defaults (pacing, retries, waits), and the worst case of its slowest calls.
package sdk
