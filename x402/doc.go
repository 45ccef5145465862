// Package x402 pays for HTTP resources with USDC through the x402 payment protocol (version
// 2, and version 1 where servers still speak it), using the EVM "exact" scheme: an EIP-3009
// TransferWithAuthorization signed under EIP-712.
//
// # Paying
//
// A Payer holds a Signer and a Policy. Its RoundTripper answers 402 Payment Required
// responses by paying, within the policy, and sending the request again:
//
//	signer, err := x402.NewPrivateKeySigner(os.Getenv("WALLET_KEY"))
//	if err != nil { ... }
//	payer, err := x402.NewPayer(signer, x402.Policy{
//		MaxPerPayment: big.NewInt(250_000),    // $0.25 per request (USDC has 6 decimals)
//		MaxTotal:      big.NewInt(10_000_000), // $10 for the life of the payer
//	})
//	if err != nil { ... }
//	client := &http.Client{Transport: payer.RoundTripper(nil)}
//	resp, err := client.Get("https://api.example.com/report/1")
//	...
//	receipt, ok := x402.ReceiptFrom(resp) // the settlement transaction
//
// The flow for one request:
//
//  1. The request goes out unpaid. Any answer but 402 is returned as it is.
//  2. The challenge is read from the PAYMENT-REQUIRED header (v2), or from the body (v1).
//     Every accepts entry is checked on its own; an entry with a fractional, negative or
//     absurd amount, a network that is not CAIP-2, or a missing token domain
//     (extra.name, extra.version) is marked Unusable and skipped.
//  3. The first entry the payer supports (scheme "exact", a network in Policy.Networks, an
//     allowed asset) and the policy allows (MaxPerPayment, PayTo) is chosen. Its amount is
//     reserved against MaxTotal, then Policy.Approve, if set, sees the quote. A refusal at
//     any step is a *PolicyError or a *NoUsableRequirementsError, and nothing is signed.
//  4. The authorization is signed: value = amount, a random 32-byte nonce, validAfter =
//     now-600, validBefore = now+maxTimeoutSeconds, under the domain {extra.name,
//     extra.version, chain id, asset}.
//  5. The request is sent again with the payment, its body replayed through GetBody, the
//     chosen entry echoed byte for byte as "accepted".
//  6. A 2xx answer commits the reservation: Payer.Spent grows. A second 402 releases it and
//     is a *PaymentRejectedError with the server's reason; it is paid again only once, and
//     only with Policy.AllowRequote and a new quote that passes the policy. A network
//     failure or a 5xx answer is retried with the same signed payment, which cannot settle
//     twice; if no clear answer comes, the amount stays reserved (see Payer.Reserved), since
//     the payment may have settled.
//
// The ledger is shared by all requests of a Payer and is safe for concurrent use: however
// many goroutines pay at once, committed plus reserved never passes MaxTotal.
//
// # Money safety
//
// Amounts are big integers in the token's atomic units, never floats. The default policy
// pays at most 1 USDC per request, on Base mainnet, in USDC only. A Policy without MaxTotal
// has no total cap: set one for unattended use. Every quote is fresh: the payer pays the
// amount of the latest 402, never a remembered price.
//
// Private keys never appear in errors or logs: a PrivateKeySigner prints as its address.
// Signatures never appear in errors. Signer is an interface, so a hardware wallet or a key
// management service can sign instead of a key in memory.
//
// An outer retry layer (such as the retry loop of an SDK client built on top of this
// transport) must not retry a request that failed with one of this package's errors: each
// retry would be a new quote and a new payment.
//
// # Serving and verifying
//
// VerifyExact checks a payment offline as the reference facilitator does (scheme, network,
// asset, recipient, exact amount, validity window, and the signature recovering to the
// payer). DecodePaymentPayload, EncodePaymentRequired and EncodeSettleResponse are the
// server's side of the header codec. Package x402test provides an in-memory facilitator and
// a paywall handler for tests and examples.
//
// # Wire format
//
// Headers carry standard base64, with padding, of compact JSON; this package encodes
// strictly and decodes leniently (also unpadded, URL-alphabet, or bare JSON), because servers
// in the wild differ.
package x402
