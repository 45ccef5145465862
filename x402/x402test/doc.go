// Package x402test is an in-memory x402 world for tests and examples: a Facilitator that
// holds USDC balances, verifies EVM "exact" payments exactly as the reference facilitator
// does (signature included) and settles them with fake transaction hashes; a paywall
// http.Handler that charges for the requests to another handler; and a Server that runs a
// paywall in front of a content handler.
//
//	srv := x402test.NewServer() // charges DefaultPrice to DefaultPayTo on Base
//	defer srv.Close()
//	srv.Facilitator().Fund(payer.Address(), big.NewInt(5_000_000)) // $5.00 of USDC
//	client := &http.Client{Transport: payer.RoundTripper(srv.Client().Transport)}
//	resp, err := client.Get(srv.URL + "/anything")
//	if err != nil {
//		return err
//	}
//	defer resp.Body.Close()
//
// The paywall behaves like a reference x402 v2 resource server: an unpaid request gets a 402
// with PAYMENT-REQUIRED; a paid one is verified, served into a buffer, settled when the
// handler answered below 400, and answered with PAYMENT-RESPONSE. A refused payment gets a
// new 402 whose error field is the facilitator's code (ReasonNonceAlreadyUsed,
// ReasonInsufficientBalance, ...), and a failed settlement also gets a receipt with Success
// false. PaywallConfig.Price prices each request (nil: free); ProtocolVersion 1 speaks x402
// v1 (challenge in the body, X-PAYMENT).
//
// Like every fake of the SDK (see package sdktest), a Server has URL, Close, Client,
// Requests, RequestCount and InjectFaults (failures before the paywall), and
// InjectSettlementFaults for the failures around a settlement: a 503 before it, or after it
// a 500, a dropped connection, a new 402, or a stall. Facilitator.FailNextSettle makes
// settlements fail; a clock (WithClock) makes authorizations expire or not yet be valid.
// A Facilitator is also an reconcile.Lookup whose settlements are its chain, so that an
// reconcile.Reconciler resolves payments left in doubt against it (reconcile.WithLookup).
// Close ends every request in progress, a stalled one included.
//
// Stability: this package follows the SDK's versioning like the clients do. The facilitator
// checks what the reference facilitator checks; where the reference changes, it follows in a
// minor release.
package x402test
