// Package gpupricetest is an in-memory fake of the GPU price API and of the Solana JSON-RPC
// node its keys are bought through, for tests, examples and anyone who wants to exercise code
// that uses package gpuprice without a network or real money.
//
//	srv := gpupricetest.NewServer()
//	defer srv.Close()
//	wallet, err := svm.NewPrivateKeySigner(solana.NewWallet().PrivateKey) // a throwaway key
//	if err != nil {
//		return err
//	}
//	srv.FundUSDC(wallet.PublicKey(), usdc.Dollars(10))
//	srv.FundSOL(wallet.PublicKey(), 10_000_000) // 0.01 SOL for fees and rent
//	client, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL), gpuprice.WithRPCURL(srv.RPCURL))
//	if err != nil {
//		return err
//	}
//	key, err := client.BuyKey(ctx, &gpuprice.BuyKeyParams{Plan: gpuprice.PlanPro, Payer: wallet, Treasury: srv.Treasury})
//	if err != nil {
//		return err
//	}
//	fmt.Println(key.Plan, key.ExpiresAt)
//
// The two servers share one state: a USDC payment sent to the node (Server.RPCURL) is
// redeemed for a key on the price API (Server.URL), which then opens /v1/history. The fake
// imports neither package gpuprice nor the SDK's HTTP core, so a field or shape the client
// gets wrong is caught by the client's end-to-end tests. Every shape below that the API
// description leaves "not shown" is this fake's choice; a client must not depend on more of
// it than the description says.
//
// # Data
//
// The data are synthetic and deterministic. The on-demand table has 9 models (B200, H200,
// H100, A100-80GB, A100-40GB, L40S, RTX-4090, A10G, L4) on 6 platforms (aws, azure, gcp,
// coreweave, lambda, runpod), every pair priced. The futures index covers 14 models (the 9
// plus GH200, MI300X, A6000, V100, T4) and 23 platforms. Models and platforms are matched
// without regard to letter case. Timestamps are RFC 3339 in UTC on the fake's clock.
//
// # Price API shapes (all under /v1)
//
//   - GET /gpus?model=&platform=: {updated_at, currency:"USD", unit:"hour", count, prices:
//     [{model, platform, price_usd_hr, vram_gb, updated_at}]}, model by model in the order
//     above, platform by platform. An unknown model or platform (or a futures-only model)
//     is a 404 unknown_model or unknown_platform whose message lists the valid ones, never
//     an empty table.
//   - GET /cheapest?model=H100: exactly the description's object {model, best_platform,
//     best_price_usd_hr, saving_pct_vs_dearest, all_on_demand:{platform: USD per hour}};
//     saving_pct_vs_dearest has one decimal; a tie goes to the platform listed first.
//     Without model: {count:9, cheapest:[that object for each model]}. An unknown model is
//     a 404 unknown_model.
//   - GET /platforms: {count:23, platforms:[{id, name, kind, website, on_demand_index,
//     futures_index, models:[...]}]}; the 6 with on_demand_index true make the table.
//   - GET /futures/index: {symbol:"GCFI", name, value, bid, ask, spread, spread_bps,
//     currency, unit:"USD per H100-equivalent hour", basis:"H100", platforms:23, models:14,
//     timestamp}. value is the weighted mean of the components' price_per_h100e_usd_hr.
//   - GET /futures/components: {symbol, timestamp, count:14, components:[{model,
//     spot_price_usd_hr, h100_equivalent, price_per_h100e_usd_hr, weight, platforms}]};
//     the weights add up to 1.
//   - GET /exchange/book?model=: the spot book of one of the 14 models (default H100):
//     {market:"H100-USD", model, unit:"USD per GPU-hour", best_bid, best_ask, mid, spread,
//     bids:[{price, quantity, orders}] (highest first), asks (lowest first), recent_matches:
//     [{price, quantity, side:"buy"|"sell", matched_at}], timestamp}; quantities in
//     GPU-hours, 10 levels a side, 5 matches.
//   - GET /history?model=&platform=&from=&to=&limit=: daily snapshots at midnight UTC of the
//     on-demand table, kept 365 days. from and to are RFC 3339 times or dates (2026-01-31);
//     to defaults to now (a later to means now), from to 30 days before to (or the start
//     of the history); limit is 1 to 1,000 (default 100) and keeps the newest snapshots.
//     Answer: {from, to, interval:"1d", total, count, truncated, snapshots:[{timestamp,
//     model, platform, price_usd_hr}] (oldest first), benchmarks:[{model, samples,
//     min_usd_hr, max_usd_hr, mean_usd_hr, change_pct}]} with the benchmarks over all total
//     snapshots. A malformed or out-of-range parameter is a 400 invalid_parameter.
//   - GET /health: {status:"ok", service, version, time, last_refresh, models, platforms,
//     futures_models, futures_platforms}.
//   - POST /keys/redeem (WithRedeemPath moves it) with {"tx_signature":"<base58>"}: see
//     Keys and quotas.
//
// Every error is {"error":{"code","message"}} with a machine-readable code: not_found (404),
// method_not_allowed (405, with Allow), key_in_query (400: a query parameter named api_key,
// apikey, key or x-api-key, whatever its case, is refused, because keys travel in the
// X-API-Key header only), and those below. CORS is on: Access-Control-Allow-Origin is *,
// and OPTIONS answers 204.
//
// # Keys and quotas
//
// /health and the redemption operation are public and uncounted. The other endpoints are
// free and count against the caller's daily quota; /history also needs the X-API-Key of a
// Pro or Unlimited key. A key sent to any counted endpoint is checked and charged: an
// unknown key is a 401 invalid_api_key and an expired one a 401 api_key_expired, on every
// counted endpoint. /history without a key is a 401 api_key_required, and with a free key a
// 403 plan_required. Requests refused for their key (401, 403), for a key in the URL or
// for the quota (429) count against nothing; any other answer of a counted endpoint, a 404
// unknown_model included, counts.
//
// A UTC day (of the fake's clock) allows 10 requests to a caller without a key (callers
// are told apart by remote address, so the clients of one test share one quota), 10 to
// each free key, 1,000 to each Pro key, and no limit to an Unlimited key (WithFreeQuota
// and WithProQuota change the first three). Counted answers carry X-RateLimit-Limit,
// X-RateLimit-Remaining (after this request) and X-RateLimit-Reset (the next UTC midnight
// in Unix seconds); Unlimited answers carry none. Past the quota the answer is a 429
// {"error":{"code":"rate_limit_exceeded", message, plan, daily_quota, reset_at}} with
// Retry-After in seconds. WithoutRateLimitHeaders drops every one of these headers and
// reset_at, so that a client must fall back to the next UTC midnight.
//
// Redemption issues a key for a transaction the node confirmed (see getSignatureStatuses)
// and answers 201 {api_key:"gpk_...", plan:"pro"|"unlimited", expires_at, tx_signature};
// the key expires one month after redemption. A payment is USDC (USDCMint, 6 decimals)
// transferred to the treasury's USDC associated token account (Server.TreasuryATA); the
// transfers of one transaction to it add up; exactly one plan's memo must appear, byte for
// byte: MemoPro ("API-PRO") for Pro at 5 USDC, MemoUnlimited ("API-ULTRA") for Unlimited at
// 19 USDC. solana-go's memo builder prefixes a length byte ("\aAPI-PRO"), which is not the
// memo. Refusals: 400 invalid_request (a body other than
// the object above) or invalid_signature (not base58 of 64 bytes); 404 tx_not_found; 409
// tx_not_confirmed or already_redeemed (one key per signature); 422 tx_failed (it landed
// with an error), no_transfer, wrong_mint, wrong_destination, wrong_memo (the message
// quotes the memos found) or insufficient_amount.
//
// # The Solana node
//
// Server.RPCURL speaks JSON-RPC 2.0 as a Solana node does (single or batched; errors in the
// body of a 200, with the node's codes and messages; every result with a value has
// context {apiVersion, slot}). Methods: getLatestBlockhash ({blockhash,
// lastValidBlockHeight}), getBlockHeight, getSlot, getBalance, getAccountInfo (encodings
// base64, the default, base58 and jsonParsed; dataSlice; value null for a missing account;
// token accounts and mints in the SPL Token layouts), getTokenAccountBalance (-32602
// "Invalid param: could not find account" for a missing account), getFeeForMessage,
// getMinimumBalanceForRentExemption, sendTransaction, simulateTransaction,
// getSignatureStatuses, getSignaturesForAddress and getTransaction. Any other method is
// -32601 "Method not found".
//
// The cluster produces a block per 400 ms of the fake's clock and one per
// getLatestBlockhash call, so every call returns a fresh blockhash; a blockhash is usable
// for 150 blocks. The commitment "finalized", a node's default, trails "confirmed" by 32
// blocks in getLatestBlockhash, getBlockHeight and getSlot. sendTransaction takes a base58
// (the default) or base64 wire transaction, legacy or v0, up to 1,232 bytes and the options
// object; it decodes the transaction with solana-go, verifies every ed25519 signature over
// the message bytes as sent (-32003 otherwise), requires a blockhash the fake issued and
// that has not expired, reads its Compute Budget instructions, and runs the instructions in
// order, atomically:
//
//   - SPL Token: TransferChecked only (source, mint, destination, owner), with the
//     program's checks and custom errors: insufficient funds 0x1, mint mismatch 0x3, owner
//     mismatch 0x4, decimals mismatch 0x12; a missing account is InvalidAccountData and an
//     owner that did not sign MissingRequiredSignature. Other Token instructions fail with
//     InvalidInstructionData.
//   - Associated token account: Create (data empty or [0]; IllegalOwner if the account
//     exists) and CreateIdempotent ([1]), at the derived address only (InvalidSeeds).
//   - Memo (MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr): every named account must sign and
//     the data be UTF-8; the data is recorded exactly as sent.
//   - Compute Budget: SetComputeUnitLimit and SetComputeUnitPrice set the priority fee.
//   - Any other program fails with UnsupportedProgramId. Address lookup tables are refused.
//
// With preflight (the default) a transaction that fails is answered -32002 "Transaction
// simulation failed: ..." with data {err, logs, ...} as a node does, and never lands; this
// includes BlockhashNotFound and AlreadyProcessed (a message that already landed, while its
// blockhash is valid). With skipPreflight a failing transaction lands as failed (its status
// carries err), one with a bad signature or blockhash is answered but never lands, and a
// repeated one is not applied again.
//
// SOL is charged as the runtime charges it (FundSOL gives it; getBalance reports it): the
// fee payer (the first account) pays 5,000 lamports per signature plus the priority fee of
// its Compute Budget instructions (getFeeForMessage says so, or null for a blockhash the
// fake did not issue or that expired), and a Create of a token account moves its
// rent-exempt balance (getMinimumBalanceForRentExemption(165), 2,039,280 lamports) from the
// payer through the System program. A fee payer without lamports is AccountNotFound
// ("Attempt to debit an account but found no record of a prior credit."), one short of the
// fee InsufficientFundsForFee, and one the fee would leave with less than a wallet's
// rent-exempt minimum (890,880 lamports) and more than nothing InsufficientFundsForRent:
// such a transaction never lands. A payer short of the rent fails the creation with the
// System program's "custom program error: 0x1" (short USDC fails the transfer with the Token
// program's, the same text: the logs tell them apart); one the whole transaction would leave
// below a wallet's minimum fails with InsufficientFundsForRent. A transaction that lands and
// fails still pays its fee.
//
// getSignatureStatuses answers null for an unknown signature, and for one that landed more
// than 300 blocks ago unless searchTransactionHistory is set. A landed transaction is
// "processed" (confirmations 0) until the WithConfirmAfter-th call that asks for it (default
// 1, the first), which reports it "confirmed" (confirmations: the blocks since it landed, at
// least 1) and makes it redeemable; later calls report "finalized" (confirmations null).
// WithConfirmAfter(0) confirms it as it lands. getSignaturesForAddress and getTransaction
// show a transaction once it reached their commitment (finalized by default).
//
// # Inspection and faults
//
// The price API's server has the vocabulary every fake of the SDK shares (package sdktest):
// URL and Close; Client, an *http.Client for it; Requests, the requests it received in order
// as sdktest.Request values (method, escaped path, query, header, body, status, the fake's
// time), with the X-API-Key value and any key-like query parameter replaced by
// sdktest.Redacted, so a record never holds a key; RequestCount(method, path); and
// InjectFaults, which makes the next matching requests answer an sdktest.Fault (a status
// with {"error":{"code","message"}}, Retry-After, headers, a delay or a dropped connection)
// before any check, counted against no quota.
//
// The node and the ledger have their own inspection: RPCCalls counts the node's calls per
// method; Transactions lists what sendTransaction received and its Outcome; Transfers and
// Memos list what landed; USDCBalance, TokenBalance and TokenAccountExists read the ledger.
// FundUSDC, FundToken (with WithMint) and FundSOL fund wallets; IssueKey and WithKey create
// keys without a purchase; KeyPlan reads a key's plan. Token amounts are *big.Int atomic
// units (of package usdc for USDC). Time moves with the clock of WithClock: a test gives an
// sdktest.Clock and calls its Advance.
//
// Close never waits on a handler: the delay of a fault ends when the server closes, and no
// other handler of the fake waits.
//
// # Stability
//
// The fake follows the SDK's versioning like the client does. The shapes above that the API
// description shows are fixed; the others are this fake's choices, which a minor release may
// refine where the description stays silent. The shared vocabulary (Requests, RequestCount,
// InjectFaults, Client) is the same in every fake and changes with sdktest only.
package gpupricetest
