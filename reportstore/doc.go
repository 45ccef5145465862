// Package reportstore is a client of the macroeconomic report store: reports built from open
// country statistics (2015-2025, 20 or 10 economies), browsed for free and bought one fetch
// at a time in USDC over the x402 protocol. No account is needed, only a wallet.
//
// # Browsing for free
//
// Catalog lists every product (catalog reports, bespoke and bundle products) with its live
// price; Preview returns the latest-year cross-section of a report; Start returns the store's
// recommended first purchase with its client code. None of them needs a payer:
//
//	client, err := reportstore.New(reportstore.WithBaseURL("https://store.example"))
//	if err != nil {
//		return err
//	}
//	catalog, err := client.Catalog(ctx)
//	if err != nil {
//		return err
//	}
//	fmt.Println(len(catalog.Products), "products")
//
// The store does not document these response bodies, so they are decoded leniently (an array
// or an object holding the list under a plausible key, member names in any case or
// separator style, prices as strings or numbers) and every value keeps its raw JSON
// (Product.Raw, Preview.Raw, FirstPurchase.Raw).
//
// # Buying reports
//
// A purchase is paid by an [x402.Payer], which signs an EIP-3009 USDC authorisation within
// the limits of its [x402.Policy]: a cap per payment, a total budget, the allowed payees and
// networks. The client sends purchases, and only purchases, through the payer's
// RoundTripper: a free request is never paid. Always set a total
// budget and pin the store's address, so that a program left alone can spend no more than
// MaxTotal, and only at the store:
//
//	const storeAddress = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C" // the store's payTo
//	signer, err := evm.NewPrivateKeySigner(os.Getenv("EVM_PRIVATE_KEY"))
//	if err != nil {
//		return err
//	}
//	scheme, err := evm.NewExact(signer)
//	if err != nil {
//		return err
//	}
//	payer, err := x402.NewPayer(x402.Policy{
//		MaxPerPayment: usdc.Cents(50),  // $0.50 per report
//		MaxTotal:      usdc.Dollars(5), // $5.00 in all
//		PayTo:         []string{storeAddress},
//	}, []x402.Scheme{scheme})
//	if err != nil {
//		return err
//	}
//	client, err := reportstore.New(
//		reportstore.WithBaseURL("https://store.example"),
//		reportstore.WithPayer(payer),
//		reportstore.WithExpectedPayee(storeAddress),
//	)
//	if err != nil {
//		return err
//	}
//	report, err := client.Report(ctx, "macro-gdp", reportstore.FormatCSV)
//	if err != nil {
//		return err
//	}
//	records, err := report.Records()
//	if err != nil {
//		return err
//	}
//	spent, err := payer.Spent(ctx)
//	if err != nil {
//		return err
//	}
//	fmt.Println(len(records), "rows; spent so far", usdc.Format(spent))
//
// Quote reads the live price of a report from the store's 402 challenge without paying, and
// says in Quote.Refusal why the payer would refuse it. Report buys a report into memory (up
// to MaxReportBytes) with its settlement receipt; OpenReport buys it as a stream of any size,
// with the receipt available before the first read; Fetch buys any other product by path,
// such as /report/custom with its query. Report.JSON decodes FormatJSON into a
// ReportPayload, and Report.Records (or ScanRecords on a stream) parses FormatCSV into typed
// rows whose missing values are nil, never 0.
//
// # Money safety
//
// The payer's Budget counts every signed authorization until it is settled or expires, so
// MaxTotal bounds what can leave the wallet whatever the network or the store does. What
// each failure of a purchase means for the money:
//
//   - Every purchase pays the amount of its own most recent 402: the store re-quotes prices on
//     every request, and a quote or a catalog price is never paid from memory.
//   - The payer's policy is applied before anything is signed. A refusal is an
//     *x402.PolicyError (errors.Is with x402.ErrAmountOverCap, x402.ErrBudgetExceeded,
//     x402.ErrPayToNotAllowed, x402.ErrOriginNotAllowed) and nothing is signed or paid.
//   - WithExpectedPayee refuses any challenge whose payTo is another address, before the payer
//     sees it, with a *PayeeMismatchError; the store pays one fixed address.
//   - A payment the store refused before settling it is an *x402.PaymentRejectedError: no
//     money moved as far as the store says, but it still holds a signed authorization, so its amount stays
//     counted in the payer's budget (Reserved) until the authorization expires.
//   - A payment that settled without the report being delivered (a success receipt on an
//     error answer) is an *x402.PaymentSettledError carrying the receipt: the money moved
//     and counts as spent.
//   - A paid request whose outcome is unknown (no answer, a 5xx, a redirect, the context
//     ending, a time bound firing) is an *x402.PaymentUnconfirmedError: the payment may have settled, and its
//     amount stays reserved until Budget.Resolve says otherwise or it expires. The payer
//     re-sends the same signed payment a few times first (x402.WithResend), which cannot
//     settle twice.
//   - A report paid for but not read in full (the connection broke during the body, the
//     context ended, a time bound fired) is a *DeliveryError carrying the receipt; the
//     payment is committed, since a 2xx came.
//   - A redirect is never followed after a payment, and a request redirected to another
//     origin is not paid (see x402.Policy.RedirectOrigins).
//   - Purchases are never retried by the client (WithRetry applies to the free operations
//     only), since a new request would be a new payment. None of the payment errors is
//     retryable.
//   - Without WithPayer, a purchase is a *PaymentRequiredError carrying the quote; nothing is
//     paid.
//   - The payer's key and the signed payment are never sent elsewhere, logged or quoted in
//     an error; WithLogger records request metadata only.
//
// # Errors and responses
//
// The client returns the SDK's error types. Bad input (an empty report id, one with "/", "?"
// or "#", a product path with a query) is an *sdk.ValidationError before any request. A
// report request answered 400 matches ErrUnsupportedFormat (an *UnsupportedFormatError).
// Other failure answers are an *sdk.APIError with the status, the store's error code and
// message, and the body; a 404 matches ErrNotFound, and a 429 is an *sdk.RateLimitError
// (matching ErrRateLimited) with the wait the store asked for and its rate-limit headers. A
// free answer whose body cannot be read is an *sdk.DecodeError, and a request that got no
// answer an *sdk.RequestError.
//
// Every result (Catalog, Preview, FirstPurchase, Quote, Report, ReportStream) carries the HTTP
// answer it came from as Response: status, headers, request id, rate-limit state.
//
// # How long a call can take
//
// No call waits for ever on a store that sends nothing, or one byte at a time. With the
// default sdk.Timeouts (Header 30s, Attempt 60s, Idle 30s) and sdk.RetryPolicy:
//
//   - Catalog, Preview, Start and Quote: each attempt ends within 60s, its headers within
//     30s; up to 4 attempts, at most 30s apart (MaxRetryAfter): 4 × 60s + 3 × 30s = 5.5
//     minutes at worst.
//   - Report and Fetch: one attempt, never retried, within 60s from the first request to
//     the report's last byte; the answer to the paid request (after the 402, the signature
//     and the payer's re-sends) must begin within 30s of the first request.
//   - OpenReport returns within 60s (the paid answer's headers within 30s), then each Read
//     waits at most 30s (Idle) for the next bytes. The stream as a whole has no bound: a
//     large report takes the time it takes.
//
// WithTimeouts shortens the bounds, WithRetry(sdk.RetryPolicy{MaxAttempts: 1}) turns the
// retries of the free calls off, and a context deadline bounds everything, reads of a stream
// included. A bound that fires ends the call with an error matching context.DeadlineExceeded
// that names it ("no response headers within 30s"). After a payment left, it means what any
// lost answer means: an *x402.PaymentUnconfirmedError before the paid answer came (the
// amount stays counted in the budget), a *DeliveryError after.
//
// # Configuration
//
// The base URL is {base_url} of the store's API description; the store's paths carry no
// prefix. Without WithBaseURL, New reads REPORTSTORE_URL. The package
// reportstore/reportstoretest provides an in-memory store that takes real x402 payments in a
// fake ledger, for tests and examples.
//
// KnownReports lists the 44 reports of the API description with their prices at the time it
// was written, as a snapshot for documentation; the live price always comes from the store.
package reportstore
