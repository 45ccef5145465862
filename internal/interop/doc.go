// Package interop checks the x402 package against the reference JavaScript
// implementation of x402 published on npm (@x402/core, @x402/evm,
// @x402/express, @x402/fetch with viem), in both directions:
//
//   - the Go payer pays a route protected by the reference Express middleware,
//     whose facilitator is the reference EVM facilitator scheme driving an
//     in-memory chain (testdata/js/chain.mjs) that checks every transfer with viem;
//   - the reference @x402/fetch client pays the Go x402test paywall;
//   - replayed nonces, changed amounts and expired or not-yet-valid
//     authorizations are refused by both sides.
//
// The package holds tests only. They need Node.js 20 or later and the pinned
// JavaScript dependencies, installed with
//
//	npm ci --prefix internal/interop/testdata/js --ignore-scripts --no-audit --no-fund
//
// Without node on PATH the tests skip. Without the installed dependencies they
// skip too, unless the CI environment variable is set, where they fail.
package interop
