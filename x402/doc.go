// Package x402 pays for HTTP resources with USDC through the x402 payment protocol (version
// 2, and version 1 where servers still speak it), using the EVM "exact" scheme: an EIP-3009
// TransferWithAuthorization signed under EIP-712.
//
// # Paying
//
// A Payer holds a Signer and a Policy. Its RoundTripper answers 402 Payment Required
// responses by paying, within the policy, and sending the request again:
//
//	const sellerAddress = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
//	signer, err := evm.NewPrivateKeySigner(os.Getenv("EVM_PRIVATE_KEY"))
//	if err != nil {
//		return err
//	}
//	payer, err := x402.NewPayer(signer, x402.Policy{
//		MaxPerPayment: big.NewInt(250_000),     // $0.25 per request (USDC has 6 decimals)
//		MaxTotal:      big.NewInt(10_000_000),  // $10.00 for the life of the payer
//		PayTo:         []string{sellerAddress}, // pay no one else
//	})
//	if err != nil {
//		return err
//	}
//	client := &http.Client{Transport: payer.RoundTripper(nil)}
//	resp, err := client.Get("https://api.example.com/report/1")
//	if err != nil {
//		return err
//	}
//	defer resp.Body.Close()
//	if receipt, ok := x402.ReceiptFrom(resp); ok {
//		fmt.Println("settled in", receipt.Transaction, "; spent", usdc.Format(payer.Spent()))
//	}
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
//     now-600, validBefore = now+maxTimeoutSeconds (at most Policy.MaxValidity, 10 minutes
//     by default, whatever the server asks), under the domain {extra.name, extra.version,
//     chain id, asset}. What is signed is the entry the policy checked, not anything the
//     approval hook was shown.
//  5. The request is sent again with the payment, its body replayed through GetBody, the
//     chosen entry echoed byte for byte as "accepted". The paid request is sent only as
//     often as the payer decides: net/http cannot re-send it on its own.
//  6. The answer settles what happened to the money; see the next section.
//
// # What each outcome means for the money
//
// A signed authorization is money out of the door until it expires: the payee can settle it
// any time before validBefore. So the payer's Budget counts it from the moment it is
// signed, and nothing a server says releases it early. Every outcome after a payment left is
// a 2xx answer or one of these typed errors, none of which is retryable:
//
//   - a 2xx answer: the payment is committed (Payer.Spent); ReceiptFrom reads the receipt.
//   - *PaymentSettledError: a success receipt came with an error answer. The money moved and
//     is committed; the resource was not delivered, and a redirect is not followed.
//   - *PaymentRejectedError: the server refused the payment before settling it (a 402 or a
//     4xx, with nothing in doubt). No money moved as far as the server says, but it
//     holds a valid authorization, so the amount stays counted (Payer.Reserved) until it expires. With
//     Policy.AllowRequote a new quote in the refusal is paid once more, within the policy.
//   - *PaymentUnconfirmedError: the outcome is unknown (no answer, a final 5xx, a redirect,
//     the context ending, or any answer after an earlier attempt of the same payment was in
//     doubt). The payment may have settled; the amount stays counted until Budget.Resolve is
//     told the outcome or the authorization expires. It is never re-quoted.
//
// Before giving up on a network failure or a 5xx, the payer sends the same signed payment
// again (WithResend), which cannot settle twice. Payer.Outstanding lists what the budget
// holds: nonce, amount, payee, expiry and resource of each authorization.
//
// A Budget is shared by every request of a Payer and is safe for concurrent use: however
// many goroutines pay at once, committed plus held never passes MaxTotal. It can be shared
// with other payment rails too (WithBudget), so that one cap covers every way a program
// pays.
//
// # Budgets and stores
//
// A Budget keeps its holds in a store (WithStore). By default they live in memory: a restart
// forgets them, and each process has its own budget. Package x402/budgetfile keeps them in
// one SQLite file, for one process on one machine whose budget must outlive restarts and
// crashes; package x402/budgetpg keeps them in PostgreSQL, for any number of processes on
// any number of machines sharing one budget. Each durable store lives in its own package, so
// a program that uses neither links no database driver. With every store, a hold is recorded
// before its authorization is signed, and the signature before it is sent: a process killed
// at any instant loses no payment from the books. When a durable store is opened again,
// holds that were never signed are released, signed ones are in doubt until Budget.Resolve,
// refused ones keep counting until they expire, and Spent is what was committed.
//
// # Reconciling payments in doubt
//
// A payment in doubt stays counted until someone finds out what became of it, and a
// durable budget store keeps it across a restart. A Reconciler finds out by asking the
// chain: for each payment the budget holds in doubt or refused, it reads the token
// contract's authorizationState(payer, nonce) through the network's JSON-RPC node. A used
// authorization is committed (with its settling transaction, from the AuthorizationUsed
// event); an unused one is released once the chain's latest block is past its validBefore
// and the clock past validBefore plus ExpiryMargin; anything else stays in doubt:
//
//	reconciler, err := reconcile.New(payer.Budget(),
//		x402.WithEVMRPC(evm.NetworkBase, os.Getenv("BASE_RPC_URL")),
//		reconcile.WithLogger(slog.Default()))
//	if err != nil {
//		return err
//	}
//	defer reconciler.Close()
//	report, err := reconciler.Reconcile(ctx)
//	if err != nil {
//		return err
//	}
//	for _, c := range report.Committed {
//		fmt.Println("settled:", usdc.Format(c.Amount), "in", c.Transaction)
//	}
//	for _, p := range report.Pending {
//		fmt.Println("still in doubt:", usdc.Format(p.Amount), "until", p.Until, p.Err)
//	}
//
// Run does the same in the background, every interval, until its context ends. Other
// rails bring their own PaymentLookup (WithLookup), such as gpuprice's for its Solana key
// purchases. Nothing is released because of an error: a node that fails, times out or
// answers something unreadable leaves the payments it covered as they are, and so does a
// node that says "unused" before the payment's expiry. Lookups are batched and paced
// (WithReconcileBatch, WithReconcileRate) so that a public endpoint serves them.
//
// # Money safety
//
// Amounts are big integers in the token's atomic units, never floats. The default policy
// pays at most 1 USDC per request, on Base mainnet, in USDC only. A Policy without MaxTotal
// has no total cap, and one without PayTo pays any payee: set both for unattended use. Every
// quote is fresh: the payer pays the amount of the latest 402, never a remembered price. A
// request that an HTTP redirect brought to another origin is paid only when
// Policy.RedirectOrigins lists it.
//
// Private keys never appear in errors or logs: a PrivateKeySigner prints as its address.
// Signatures and payment headers never appear in errors, even when a server echoes them.
// Signer is an interface, so a hardware wallet or a key management service can sign instead
// of a key in memory.
//
// An outer retry layer (such as the retry loop of an SDK client built on top of this
// transport) must not retry a request that failed with one of this package's errors: each
// retry would be a new quote and a new payment. The errors say so through RetryableError.
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
