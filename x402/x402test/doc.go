// Package x402test is an in-memory x402 world for tests and examples: a Facilitator that
// verifies and settles "exact" payments on EVM chains and on Solana exactly as the reference
// facilitators do (signatures included, with their reason codes); a paywall http.Handler that
// charges for the requests to another handler; and a Server that runs a paywall in front of a
// content handler, with the JSON-RPC node of the facilitator's Solana ledger beside it.
//
//	srv := x402test.NewServer() // charges DefaultPrice to DefaultPayTo on Base
//	defer srv.Close()
//	srv.Facilitator().Fund(os.Getenv("PAYER_ADDRESS"), usdc.Dollars(5)) // an EVM address or a Solana wallet
//	client := &http.Client{Transport: payer.RoundTripper(srv.Client().Transport)}
//	resp, err := client.Get(srv.URL + "/anything")
//	if err != nil {
//		return err
//	}
//	defer resp.Body.Close()
//
// The paywall behaves like a reference x402 v2 resource server: an unpaid request gets a 402
// with PAYMENT-REQUIRED, listing one offer or several (PaywallConfig.Offers: EVM and Solana
// side by side); a paid one is verified, served into a buffer, settled when the handler
// answered below 400, and answered with PAYMENT-RESPONSE. A refused payment gets a new 402
// whose error field is the facilitator's code (evm.ReasonNonceAlreadyUsed,
// svm.ReasonAmountMismatch, ...), and a failed settlement also gets a receipt with Success
// false. PaywallConfig.Price prices each request (nil: free); ProtocolVersion 1 speaks x402 v1
// (challenge in the body, X-PAYMENT).
//
// On EVM the facilitator keeps balances per address and the nonces each payer used. On
// Solana it keeps a fake cluster, a ledger with USDC's mainnet mint (AddMint adds others, of
// the Token or Token-2022 program), pays every payment's fee as its fee payer (FeePayer, the
// offers' extra.feePayer), simulates the transaction, signs it and lands it, so balances move
// there; Server.SolanaURL serves that ledger's JSON-RPC (getAccountInfo, getLatestBlockhash,
// getSignaturesForAddress, getSignatureStatuses, getTransaction...), so that a Solana payer
// and a lookup work offline against it, and the reference client can pay the paywall too.
//
// Like every fake of the SDK (see package sdktest), a Server has URL, Close, Client,
// Requests, RequestCount and InjectFaults (failures before the paywall), and
// InjectSettlementFaults for the failures around a settlement: a 503 before it, or after it
// a 500, a dropped connection, a new 402, or a stall. Facilitator.FailNextSettle makes
// settlements fail; a clock (WithClock) makes payments expire or not yet be valid. A
// Facilitator is also a reconcile.Lookup whose settlements are its chain, so that a
// reconcile.Reconciler resolves payments left in doubt against it (reconcile.WithLookup).
// Close ends every request in progress, a stalled one included.
//
// Stability: this package follows the SDK's versioning like the clients do. The facilitator
// checks what the reference facilitator checks; where the reference changes, it follows in a
// minor release.
package x402test
