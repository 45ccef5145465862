// Package gpuprice is a client for the GPU price API: a neutral on-demand price index of 9
// GPU models on 6 platforms, the cheapest price per model, a platform directory, a compute
// futures index normalised to H100 equivalents with its components, a spot order book, and,
// for paid plans, the snapshot history and market benchmarks. It also buys the paid plans'
// keys with a USDC payment on Solana.
//
//	client, err := gpuprice.New(gpuprice.WithBaseURL("https://gpu.example")) // {gpu_api_url}; /v1 is added
//	if err != nil {
//		return err
//	}
//	best, err := client.Cheapest(ctx, "H100")
//	if err != nil {
//		return err
//	}
//	fmt.Println(best.BestPlatform, best.BestPriceUSDHr, best.SavingPctVsDearest)
//
// Package gpupricetest is an in-memory fake of the API and of a Solana node, for tests.
//
// # Configuration and environment
//
// New takes options: WithBaseURL, WithAPIKey, WithHTTPClient, WithLogger, WithRetry,
// WithUserAgent, WithKeyOnFreeEndpoints, WithRPCURL, WithRPCClient, WithRedeemPath and
// WithConfirmTimeout. Without WithBaseURL the base URL comes from GPUPRICE_URL (EnvURL), and
// then GPUPRICE_API_KEY (EnvAPIKey) supplies the key; with WithBaseURL the environment's key
// is ignored. The Solana node comes from WithRPCClient, WithRPCURL or SOLANA_RPC_URL
// (EnvRPCURL), and is used by BuyKey only. What a call sends goes in a *<Method>Params
// (GPUsParams, HistoryParams, BuyKeyParams); nil asks for the defaults where every field is
// optional.
//
// Errors are the SDK's: *sdk.APIError, *sdk.RateLimitError, *sdk.ValidationError,
// *sdk.MissingCredentialError, *sdk.DecodeError and *sdk.RequestError, matched with the
// package's sentinels, and the package's own *PaymentError, *InsufficientFundsError and
// *RPCError for the purchase.
//
// # Decoding
//
// Every body is decoded once, by encoding/json. The API description shows one body, the
// cheapest price: its five members are required, and an answer without one is an
// *sdk.DecodeError. Every other body is read leniently: each member under the family of
// spellings a JSON API would use for it, from one table (a price as price_usd_hr,
// best_price_usd_hr as in the cheapest price, usd_per_hour, price, px..., in snake_case,
// camelCase or any letter case), numbers also as text but always finite (NaN and infinities,
// however spelt, are absent), times as RFC 3339, dates or Unix seconds, a value that was not
// sent left nil rather than 0, and a copy of each value's JSON kept in its Raw. An order-book
// level or match without a readable price is kept with its Price nil, never dropped and never
// failing the book. A list the client cannot find at all is an *sdk.DecodeError, never an
// empty result; a count of 0 without a list is empty. /v1/health may answer a JSON object or
// a plain-text status such as ok: Health reads both.
//
// # Keys and quotas
//
// The free endpoints need no key; /v1/history needs the X-API-Key of a Pro or Unlimited key.
// The client sends its key, in X-API-Key only, to History and nowhere else: not to the free
// endpoints, /v1/health, the redemption or the Solana node. WithKeyOnFreeEndpoints also sends
// it to the free price endpoints, for a service that counts them against the key's plan
// (1,000 a day for Pro) rather than the free tier's 10.
// History without a key is an *sdk.MissingCredentialError (matching ErrKeyRequired) before
// any request, which says so when GPUPRICE_API_KEY is set but was not used because the
// address came from WithBaseURL (pass WithAPIKey(os.Getenv("GPUPRICE_API_KEY")) to send it
// there); 401 and 403 answers are *sdk.APIError values matching ErrUnauthorized or
// ErrForbidden and the sentinel of their code (ErrInvalidAPIKey, ErrPlanRequired...).
// SetAPIKey switches keys while requests run.
//
// Every result carries a Response with the rate-limit headers. A used-up daily quota (a 429,
// or a quota code in any error body) is an *sdk.RateLimitError matching ErrRateLimited, whose
// RateLimit.Reset is always set: from the headers, else from a reset time in the body, else
// the next midnight UTC. It is not retried before it resets: the client fills a 429's missing
// Retry-After with that reset and always stops on a Retry-After longer than
// sdk.RetryPolicy.MaxRetryAfter, so RetryAfter tells the caller when to try again.
//
// # Buying a key
//
// A Pro key costs 5 USDC (memo "API-PRO"), an Unlimited key 19 USDC (memo "API-ULTRA"), for
// one month. BuildKeyPayment signs the payment offline: a TransferChecked of exactly the
// price in USDC from the payer's associated token account to the treasury's, and a Memo
// instruction whose data is exactly the plan's memo (built by hand: solana-go's memo builder
// prefixes a length byte), optionally after an idempotent creation of the treasury's USDC
// account. The treasury has no default: the caller names it in BuyKeyParams.Treasury.
//
// BuyKey does the whole purchase: it reserves the price in BuyKeyParams.Budget (an
// *budget.Budget, so one limit bounds the x402 payments and this one; a budget of its own
// without a limit when none is given), reads the USDC balance and the SOL that pays the fee
// and any rent (short: an *InsufficientFundsError or *InsufficientSOLError, and nothing is
// sent), signs, sends with preflight, waits until the transaction is "confirmed", redeems the
// signature, and switches the client to the new key. The budget follows the money: given back
// when nothing was sent; counted until the blockhash expires when the node refused the
// transaction or it failed on chain; counted until Budget.Resolve when its outcome is unknown
// (ErrPaymentInDoubt); spent once confirmed, even when the redemption then fails
// (ErrNotRedeemed: redeem the PaymentError's signature again with RedeemKey). A purchase in
// doubt resolves itself when a reconcile.Reconciler of the budget has the client's
// PurchaseLookup (reconcile.WithLookup): it commits what landed and releases what can no longer
// land once its blockhash expired. A refusal of the budget's limits is a *budget.LimitError
// under this package's name; a failure of the Solana node an *svm.RPCError.
//
// The purchase is the SDK's one Solana payment path: the token account derivation, the
// TransferChecked, the memo, the signature, the send and the confirmation are package svm's,
// and so is the lookup. An svm.Signer holds the payer's key: svm.PrivateKeySigner prints only
// its public key, and the private key never travels, only signatures. The issued key and
// the transaction signature
// are sdk.Secret values, printed as masks; the signature, which redeems a key until it is
// used, never appears in an error text.
package gpuprice
