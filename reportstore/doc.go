// Package reportstore is a client of the macroeconomic report store: reports built from open
// country statistics (2015-2025, 20 or 10 economies), browsed for free and bought one fetch
// at a time in USDC over the x402 protocol. No account is needed, only a wallet.
//
// Catalog lists every product with its live price, Preview returns the latest-year
// cross-section of a report, and Start the store's recommended first purchase (FirstPurchase)
// with its client code; none of them needs a payer. Quote reads the live price of a report
// from the store's 402 challenge without paying, and says in Quote.Refusal why the payer
// would refuse it. Report buys a report into memory (up to MaxReportBytes), OpenReport as a
// stream of any size, and Fetch any other product named by FetchParams. The examples
// (ExampleClient_Catalog, ExampleClient_Report) show a purchase end to end; package
// reportstoretest is an in-memory store that takes real x402 payments in a fake ledger.
//
// Prices are *big.Int atomic USDC units, the SDK's one representation of money: x402/usdc
// parses and formats them ("$0.13"). The store does not document its free answers' bodies,
// so they are read leniently and every value keeps its raw JSON (Raw).
//
// # Configuration
//
// The options every client has are described once in [sdk] (Client options). What the store
// adds: the base URL is {base_url} of its API description, whose paths carry no prefix
// (REPORTSTORE_URL without WithBaseURL); there is no credential, only the [x402.Payer] of
// WithPayer; WithExpectedPayee pins the one address the store is paid at. The client is
// unpaced by default; the free calls (Catalog, Preview, Start, Quote) are retried, purchases
// never, since a new request would be a new payment.
//
// # Money safety
//
// The payer's budget counts every signed authorization until it settles or expires, so
// MaxTotal bounds what can leave the wallet whatever the network or the store does.
//
//   - Every purchase pays the amount of its own most recent 402; a quote or a catalog price is
//     never paid from memory. The payer's policy applies before anything is signed.
//   - WithExpectedPayee refuses a challenge naming another payTo, before signing, with a
//     *PayeeMismatchError. Without WithPayer a purchase is a *PaymentRequiredError.
//   - The x402 errors say what happened to the money: *x402.PaymentRejectedError (refused
//     before settling), *x402.PaymentSettledError (settled, report not delivered),
//     *x402.PaymentUnconfirmedError (the outcome is unknown: the amount stays reserved).
//   - A report paid for but not read in full is a *DeliveryError carrying the receipt.
//   - A redirect is never followed after a payment; the payer's key and the signed payment are
//     never logged or quoted in an error.
//
// # Errors
//
// The status sentinels are sdk's (ErrUnauthorized, ErrForbidden, ErrNotFound, ErrConflict,
// ErrRateLimited). A report request answered 400 matches ErrUnsupportedFormat (an
// *UnsupportedFormatError), a purchase without a payer ErrPaymentRequired, and a Quote of a
// free answer ErrNoChallenge.
//
// # Time limits
//
// See [sdk.Timeouts] for the general rule, which the free calls follow. A purchase is one
// attempt, never retried: Report and Fetch end within Attempt (60 s by default) from the first
// request to the report's last byte; OpenReport returns within Attempt, then each Read waits
// at most Idle. A bound that fires after a payment left is a lost answer: an
// *x402.PaymentUnconfirmedError before the paid answer came, a *DeliveryError after.
//
// KnownReports lists the 44 reports of the API description with their prices when it was
// written, a snapshot for documentation; the live price always comes from the store.
package reportstore
