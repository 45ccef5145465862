// Package x402test is an in-memory x402 world for tests and examples: a Facilitator that
// holds USDC balances, verifies EVM "exact" payments exactly as the reference facilitator
// does (signature included) and settles them with fake transaction hashes, and a paywall
// http.Handler that charges for the requests to another handler.
//
//	f := x402test.NewFacilitator()
//	f.Fund(payer.Address(), big.NewInt(5_000_000)) // 5 USDC
//	srv := httptest.NewServer(x402test.NewPaywall(f, x402test.PaywallConfig{
//		PayTo:  "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
//		Amount: big.NewInt(10_000), // $0.01 per request
//	}, contentHandler))
//	defer srv.Close()
//
// The paywall behaves like a reference x402 v2 resource server: an unpaid request gets a 402
// with PAYMENT-REQUIRED; a paid one is verified, served into a buffer, settled when the
// handler answered below 400, and answered with PAYMENT-RESPONSE. A refused payment gets a
// new 402 whose error field is the facilitator's code (ReasonNonceAlreadyUsed,
// ReasonInsufficientBalance, ...), and a failed settlement also gets a receipt with Success
// false. PaywallConfig.Price prices each request (nil: free); ProtocolVersion 1 speaks x402
// v1 (challenge in the body, X-PAYMENT).
//
// Faults: Facilitator.FailNextSettle makes settlements fail; a clock (WithClock) makes
// authorizations expire or not yet be valid; wrap the paywall to inject 5xx answers.
// WithoutSignatureCheck exists for benchmarks only.
package x402test
