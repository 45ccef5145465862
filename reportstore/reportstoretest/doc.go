// Package reportstoretest is an in-memory macroeconomic report store for tests and examples:
// an httptest server that speaks the store's API and takes real x402 v2 payments.
//
// NewServer serves the free /catalog, /preview/<id> and /start, and sells /report/<id> in the
// four formats (html, json, csv, summary-csv; any other format is a 400 before any payment)
// for the product's price. Its 80 products are the 44 reports of the API description, 34
// more catalog reports, the bespoke product "custom" (/report/custom?indicators=...&
// countries=...) and the bundle "bundle". The data are deterministic and synthetic, for 20
// economies (10 where the API description says 10) over 2015-2025, and every body says so.
// Errors are {"error": code, "message": message}: not_found (404), unsupported_format and
// invalid_parameter (400).
//
// Payments go through an x402test paywall and facilitator: the 402 challenge carries the
// product's current price in PAYMENT-REQUIRED, the signed payment is verified (signature,
// amount, payee, validity window, nonce, balance) and settled in the facilitator's ledger,
// and the receipt comes back in PAYMENT-RESPONSE. Fund payers and inspect the ledger through
// Server.Facilitator; Sales counts what each product sold.
//
// # The shared vocabulary
//
// Like every fake of the SDK (see package sdktest), a Server has URL and Close, Client (an
// *http.Client for it), Requests (every request received, as an sdktest.Request with the
// payment headers redacted), RequestCount(method, path), and InjectFaults, which makes the
// next matching requests fail as an sdktest.Fault says (a status with the store's error
// body, Retry-After, extra headers, a delay, a dropped connection) before any payment is
// read.
//
// # Faults of this store
//
// InjectSettlementFaults (or WithFaults at start) makes paid requests fail around their
// settlement, as an x402test.SettlementFault says: a 503 before settling, or a 500, a dropped
// connection, a new 402 or a stall after the money moved. WithDroppedConnections queues
// dropped connections after settling, and WithReplayedDeliveries makes the store deliver a
// payment sent again instead of refusing its used nonce. WithFailedSettlements (or
// Facilitator().FailNextSettle) makes settlements fail, moving no money. SetPrice,
// WithRequote and AfterNextChallenge re-quote prices (*big.Int atomic USDC units, as
// usdc.Cents writes them) between or during purchases; SetPayTo and WithPayTo change the
// payee; WithLatency delays every answer; WithLargeReport adds a report of any size,
// generated while it is streamed; WithClock gives the store and its facilitator an sdk.Clock.
//
// # Stability
//
// The store follows the SDK's versioning, as the clients do. What it serves follows the
// store's API description; where the description shows nothing (the bodies of /catalog,
// /preview and /start, the JSON report, the bespoke and bundle products), it answers in one
// plausible shape that the client also reads, and that shape may be refined in minor
// releases. Tests should check what the client decodes rather than the fake's raw bodies.
package reportstoretest
