// Package gpuprice is a client for the GPU price API: a neutral on-demand price index of GPU
// models on several platforms, the cheapest price per model, a platform directory, a compute
// futures index with its components, a spot order book, and, for paid plans, the snapshot
// history. It also buys the paid plans' keys with a USDC payment on Solana (BuyKey), the SDK's
// one Solana purchase path: the transfer, memo, signature, send, confirmation and lookup are
// package svm's. The Example functions show each call against package gpupricetest, an
// in-memory fake of the API and of a Solana node.
//
// # Configuration
//
// New takes the options every client of the SDK has (see [sdk], "Client options") and the
// service's own. The base URL comes from WithBaseURL or GPUPRICE_URL (EnvURL), and only in the
// second case does GPUPRICE_API_KEY (EnvAPIKey) supply the key WithAPIKey did not. A key is at
// least 8 characters, without white space or control characters. The Solana node, needed by
// BuyKey only, comes from WithRPCClient, WithRPCURL or SOLANA_RPC_URL (EnvRPCURL).
//
// The key travels in X-API-Key to History only, the one endpoint that needs it (and to the
// free price endpoints with WithKeyOnFreeEndpoints); never to /v1/health, the redemption or
// the node. The client is unpaced. Reads are retried; the retries stop on a Retry-After longer
// than sdk.RetryPolicy.MaxRetryAfter, so a used-up daily quota is returned at once as an
// *sdk.RateLimitError whose RateLimit.Reset is always set (from the headers, a reset time in
// the body, or the next midnight UTC). A redemption is sent once. BuyKey waits, by default, up
// to 90 seconds for its payment's confirmation, then redeems it up to 5 times, about 1 to 4
// seconds apart, while the service has not seen the confirmation (WithWait).
//
// Every body but the cheapest price, whose members the API description names and requires, is
// read by one table of the names a JSON API would give each member, in any letter case;
// numbers are finite, a member not sent is nil rather than 0, and each value keeps its JSON in
// Raw. A list the client cannot find is an *sdk.DecodeError, never an empty result.
//
// # Money
//
// Plan prices (Plan.Price) and USDC balances are *big.Int atomic units of package usdc, which
// parses and formats them ($5.00); lamports of SOL are uint64. The USD-per-hour prices of the
// index are third-party market data, float64. BuyKey reserves the price in a *budget.Budget
// shared with the x402 payments, and accounts the outcome as they do: given back when nothing
// was sent, counted until the blockhash expires when the payment was refused, counted until
// Budget.Resolve when its outcome is unknown (a reconcile.Reconciler with PurchaseLookup
// resolves it), spent once confirmed.
//
// # Errors
//
// Besides the SDK's error types and the status sentinels, a purchase fails with a
// *PaymentError (ErrPaymentRefused, ErrPaymentInDoubt, ErrNotRedeemed; giving up a wait is an
// *sdk.WaitError inside it), an *InsufficientFundsError or *InsufficientSOLError (nothing
// sent), a *budget.LimitError or an *svm.RPCError. The redemption's refusals match
// ErrAlreadyRedeemed, ErrTxNotConfirmed, ErrTxNotFound and the others by what their code means,
// whatever its spelling. The issued key and the transaction signature are sdk.Secret values;
// the signature, which redeems a key, never appears in an error or a log line.
//
// # Time limits
//
// A read is bounded as [sdk.Timeouts] says. A purchase takes at most one attempt bound per
// call to the node, plus twice the WithWait timeout: the wait for confirmation, then the
// repeated redemption.
package gpuprice
