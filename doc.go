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
//   - RetryPolicy, the retry settings every client's WithRetry takes;
//   - Secret, the one type the SDK uses to hand a credential back to the caller (a key just
//     created, rotated or bought) without any way of printing it.
package sdk
