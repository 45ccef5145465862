// Package reportstoretest is an in-memory macroeconomic report store for tests and examples:
// an httptest server that speaks the store's API and takes real x402 v2 payments.
//
// NewServer serves the free /catalog, /preview/<id> and /start, and sells /report/<id> in the
// four formats (html, json, csv, summary-csv; any other format is a 400 before any payment)
// for the product's price. Its 80 products are the 44 reports of the API description, 34
// more catalog reports, the bespoke product "custom" (/report/custom?indicators=...&
// countries=...) and the bundle "bundle". The data are deterministic and synthetic, for 20
// economies (10 where the API description says 10) over 2015-2025, and every body says so.
//
// Payments go through an x402test paywall and facilitator: the 402 challenge carries the
// product's current price in PAYMENT-REQUIRED, the signed payment is verified (signature,
// amount, payee, validity window, nonce, balance) and settled in the facilitator's ledger,
// and the receipt comes back in PAYMENT-RESPONSE. Fund payers and inspect the ledger through
// Server.Facilitator.
//
// Faults and changes for tests: SetPrice and WithRequote re-quote prices between requests;
// SetPayTo and WithPayTo change the payee; FailNextSettlement and WithFailedSettlements make settlements fail;
// WithDroppedConnections and DropNextConnections close the connection after settling;
// WithLatency delays every response; WithLargeReport adds a report of any size, generated
// while it is streamed.
package reportstoretest
