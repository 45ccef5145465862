// Package x402 pays for HTTP resources through the x402 payment protocol (version 2, and
// version 1 where servers still speak it): the payer core, which any number of payment
// schemes plug into. Package evm pays the "exact" scheme on EVM chains (an EIP-3009
// TransferWithAuthorization signed under EIP-712); package svm pays it on Solana (a token
// transfer whose fee a facilitator pays). A program that pays on one chain family links only
// that family's library.
//
// # Paying
//
// A Payer holds its schemes, a Policy and a budget. Its RoundTripper answers 402 Payment
// Required responses by paying, within the policy, and sending the request again:
//
//	signer, err := evm.NewPrivateKeySigner(os.Getenv("EVM_PRIVATE_KEY"))
//	if err != nil {
//		return err
//	}
//	scheme, err := evm.NewExact(signer)
//	if err != nil {
//		return err
//	}
//	payer, err := x402.NewPayer(x402.Policy{
//		MaxPerPayment: usdc.Cents(25),                                 // $0.25 per request
//		MaxTotal:      usdc.Dollars(10),                               // $10.00 in all
//		PayTo:         []string{"0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}, // pay no one else
//	}, []x402.Scheme{scheme})
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
//		fmt.Println("settled in", receipt.Transaction)
//	}
//
// The flow for one request:
//
//  1. The request goes out unpaid. Any answer but 402 is returned as it is.
//  2. The challenge is read from the PAYMENT-REQUIRED header (v2), or from the body (v1), by
//     package wire. Every accepts entry is checked on its own; an entry with a fractional,
//     negative or absurd amount or a network that is not CAIP-2 is marked Unusable and
//     skipped.
//  3. The offers are considered in the order the caller prefers (WithPreference), else the
//     server's. The first one a scheme of the payer can pay (same scheme and chain family,
//     Scheme.Check), on a network and with an asset Policy allows, within MaxPerPayment and
//     to a payee PayTo allows, is chosen. Its amount is reserved in the budget, then
//     Policy.Approve, if set, sees the quote. A refusal at any step is a *PolicyError or a
//     *NoUsableRequirementsError, and nothing is signed.
//  4. The scheme signs the payment (Scheme.Pay), valid at most Policy.MaxValidity (10
//     minutes by default, whatever the server asks). What is signed is the entry the policy
//     checked, not anything the approval hook was shown. The budget records what was signed
//     before it leaves.
//  5. The request is sent again with the payment, its body replayed through GetBody, the
//     chosen entry echoed byte for byte as "accepted". The paid request is sent only as
//     often as the payer decides: net/http cannot re-send it on its own.
//  6. The answer settles what happened to the money; see the next section.
//
// # What each outcome means for the money
//
// A signed payment is money out of the door until it expires: the payee can settle it any
// time before then. So the budget counts it from the moment it is signed, and nothing a
// server says releases it early. Every outcome after a payment left is a 2xx answer or one
// of these typed errors, none of which is retryable:
//
//   - a 2xx answer: the payment is committed; ReceiptFrom reads the receipt and PaymentFrom
//     what identifies the payment.
//   - *PaymentSettledError: a success receipt came with an error answer. The money moved and
//     is committed; the resource was not delivered, and a redirect is not followed.
//   - *PaymentRejectedError: the server refused the payment before settling it (a 402 or a
//     4xx, with nothing in doubt). No money moved as far as the server says, but it holds a
//     valid payment, so the amount stays counted until it expires. With Policy.AllowRequote
//     a new quote in the refusal is paid once more, within the policy.
//   - *PaymentUnconfirmedError: the outcome is unknown (no answer, a final 5xx, a redirect,
//     the context ending, or any answer after an earlier attempt of the same payment was in
//     doubt). The payment may have settled; the amount stays counted until a reconciler
//     (package reconcile) finds it on its chain, or it expires. It is never re-quoted.
//
// Before giving up on a network failure or a 5xx, the payer sends the same signed payment
// again (WithResend), which cannot settle twice.
//
// # Other transports
//
// Payer.Prepare pays a challenge that reached the program some other way than a 402: it
// chooses, checks, reserves and signs as the RoundTripper does, and returns an Attempt
// whose Payload the transport sends. The transport then books what came back
// (Attempt.Answered, with an Answer) or that nothing did (Attempt.NoAnswer), and gets the
// same typed outcomes, with the same meaning for the budget. Package x402/mcppay pays the
// paid tools of MCP servers this way; the RoundTripper itself pays through attempts.
//
// # Budgets
//
// A Payer draws on a budget (package budget): its own, capped at Policy.MaxTotal, or one
// given with WithBudget, which other payers and rails (gpuprice's key purchase) share, in
// memory, in a file (x402/budgetfile) or in PostgreSQL (x402/budgetpg) for a fleet of
// processes. However many goroutines and processes pay at once, committed plus held never
// passes a limit. Payments left in doubt are resolved by a reconcile.Reconciler, which asks
// each scheme's chain (evm.Lookup, svm.Lookup).
//
// # Money safety
//
// Amounts are big integers in the token's atomic units, never floats (package usdc formats
// and parses them). The default policy pays at most 1 USDC a request, in USDC only, on each
// scheme's mainnet; MaxTotal is required, and spending without a total limit is said on
// purpose (budget.Unlimited). A Policy without PayTo pays any payee: set it for unattended
// use. Every quote is fresh: the payer pays the amount of the latest 402, never a remembered
// price. A request that an HTTP redirect brought to another origin is paid only when
// Policy.RedirectOrigins lists it. Addresses are compared per chain family: EVM hex in any
// letter case, Solana base58 exactly.
//
// Private keys never appear in errors or logs; signatures, signed transactions and payment
// headers never appear in errors, even when a server echoes them. The schemes' signers are
// interfaces, so a hardware wallet or a key management service can sign instead of a key in
// memory.
//
// An outer retry layer (such as the retry loop of an SDK client built on top of this
// transport) must not retry a request that failed with one of this package's errors: each
// retry would be a new quote and a new payment. The errors say so through RetryableError.
//
// # Writing a scheme
//
// A scheme implements Scheme: it names its scheme and chain family, reads addresses, checks
// what its chains need of an offer, and signs a payment, returning what identifies it on its
// chain (Signed); its package brings a reconcile.Lookup for its payments left in doubt, and
// a verifier for the fakes (evm.VerifyExact, svm.VerifyExact). Package x402test settles
// both of the SDK's schemes in memory.
package x402
