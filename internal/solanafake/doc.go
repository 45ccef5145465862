// Package solanafake is an in-memory Solana cluster for the SDK's fakes: a ledger of SOL
// balances, mints and token accounts, a runtime that executes transactions against it as a
// real cluster would, and a JSON-RPC node (Cluster.ServeHTTP) consistent with both. A fake
// that takes Solana payments (gpupricetest's key purchases, an x402 facilitator's "exact"
// settlements) embeds a Cluster, serves its node to the client under test, and reads what
// landed.
//
// An embedding fake creates the cluster on its own clock (New), adds the mints its payments
// use (AddMint), funds the wallets of a test (FundSOL, FundToken), serves the node to the
// client under test (the Cluster is an http.Handler), and settles or checks transactions
// itself with Submit and Simulate, which return the node's errors as *Error values; the
// package example shows an x402 payment settled so.
//
// # Blocks and commitments
//
// The cluster produces a block per BlockInterval (400 ms) of its clock, and one per
// blockhash it gives out (getLatestBlockhash, LatestBlockhash), so that every call returns a
// fresh blockhash even on a clock that stands still. Slots and block heights advance
// together. A blockhash is usable for BlockhashWindow (150) blocks: lastValidBlockHeight is
// its height plus 150, and a transaction whose blockhash the cluster did not give out or
// that expired is refused (BlockhashNotFound). The commitment "finalized", the default of
// every method as on a node, trails "confirmed" and "processed" by FinalityDepth (32)
// blocks in getLatestBlockhash, getBlockHeight and getSlot; "confirmed" and "processed" are
// the newest block.
//
// A landed transaction's stage (confirmationStatus) comes from the Config's StageRule: by
// default (ByAge) confirmed as it lands and finalized once 32 blocks old. getTransaction and
// getSignaturesForAddress show a transaction only once it reached their commitment, and
// refuse "processed" as a node does.
//
// # The runtime
//
// A transaction is decoded with solana-go, legacy or v0 (a v0 message may not use address
// lookup tables), and checked as Agave checks it, in Agave's order: sanitize (one signature
// per required signer, a writable fee payer, distinct keys, indexes in range); signatures
// (every one verified over the message bytes as sent, except in a simulation without
// sigVerify, where a fee payer's signature may still be 64 zero bytes); blockhash age; the
// status cache (a message that already landed is refused AlreadyProcessed for as long as
// its blockhash is valid, whoever signs it); the Compute Budget instructions; the fee
// payer (key 0), who must hold the fee (AccountNotFound without any SOL,
// InsufficientFundsForFee) and not be left with less than a wallet's rent-exempt minimum
// and more than nothing (InsufficientFundsForRent). A transaction refused there never lands
// and pays nothing. Then its instructions run in order, atomically, on a staged ledger: on
// success the ledger changes; a failure rolls everything back but, when the transaction
// lands (sendTransaction with skipPreflight), the fee is still taken.
//
// The fee is LamportsPerSignature (5,000) per signature plus the prioritization fee,
// ceil(price × limit / 1,000,000) lamports for a SetComputeUnitPrice of price micro-lamports
// and the compute unit limit: SetComputeUnitLimit's, or by default (SIMD-0170, as Agave has
// it) 200,000 for each instruction of a program that is not a builtin and 3,000 for each of
// a builtin (Compute Budget, System), capped at 1,400,000. A repeated Compute Budget
// instruction is refused (DuplicateInstruction), as is a malformed one
// (InstructionError InvalidInstructionData); RequestHeapFrame and
// SetLoadedAccountsDataSizeLimit are checked and otherwise have no effect. Compute units are
// reported (unitsConsumed) at 150 per Compute Budget instruction and nominal figures for the
// other programs; no limit is enforced with them.
//
// The programs:
//
//   - SPL Token (TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA) and Token-2022
//     (TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb): TransferChecked only (12, the amount
//     u64 LE, the decimals; accounts source (writable), mint, destination (writable),
//     authority (signer)), run by the program that owns the mint and both accounts
//     (IncorrectProgramId otherwise), with the program's checks in its order: a missing
//     account InvalidAccountData, insufficient funds 0x1, mint mismatch 0x3 (the accounts'
//     mints differ, or differ from the mint named), decimals mismatch 0x12, owner mismatch
//     0x4, an authority that did not sign MissingRequiredSignature. Every other token
//     instruction, a plain Transfer included, fails with InvalidInstructionData.
//   - Associated token account (ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL): Create (data
//     empty or [0]; IllegalOwner if the account exists) and CreateIdempotent ([1]), at the
//     address derived from the seeds wallet, token program, mint (InvalidSeeds otherwise),
//     under the mint's own program. The payer funds the account's rent-exempt balance through
//     the System program: 2,039,280 lamports for an SPL Token account (165 bytes), 2,074,080
//     for a Token-2022 one (170 bytes: the ImmutableOwner extension); a payer short of it
//     fails with the System program's custom error 0x1.
//   - Memo (MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr): every account it names must sign
//     and the data be UTF-8; the data is recorded exactly as sent.
//   - Compute Budget (ComputeBudget111111111111111111111111111111): read before running, as
//     above.
//   - Any other program fails with UnsupportedProgramId.
//
// # The node
//
// ServeHTTP speaks JSON-RPC 2.0 at any path (single or batched; errors in the body of a
// 200 with the node's codes and messages; every result with a value has context
// {apiVersion, slot}): getLatestBlockhash, getBlockHeight, getSlot, getBalance,
// getAccountInfo (base64 by default, base58, jsonParsed; dataSlice; null for a missing
// account; token accounts and mints in their programs' layouts and owned by them; a mint has
// no authorities and the supply its accounts hold), getTokenAccountBalance,
// getFeeForMessage (null for a blockhash that is not valid), getMinimumBalanceForRentExemption,
// sendTransaction (base58 by default or base64, up to 1,232 bytes; see Submit),
// simulateTransaction (sigVerify, replaceRecentBlockhash; value {err, logs, accounts,
// unitsConsumed, returnData, innerInstructions, replacementBlockhash}), getSignatureStatuses
// (null for an unknown signature, and for one older than 300 blocks without
// searchTransactionHistory), getSignaturesForAddress (newest first; memo formatted as Agave
// does, "[<length>] <text>" per memo joined by "; ") and getTransaction (json, base64 or
// base58; v0 transactions need maxSupportedTransactionVersion, -32015 otherwise). Any other
// method is -32601 "Method not found".
//
// A failed preflight is -32002 "Transaction simulation failed: <text>" with data {err,
// logs, unitsConsumed, ...}; a bad signature -32003; a malformed parameter or transaction
// -32602. Submit and Simulate return the same errors as *Error values.
//
// # For the embedding fake
//
// Calls counts the calls per method; InjectFaults makes the next calls of a method answer
// an error instead; Received lists what sendTransaction and Submit received and their
// Outcome; Landed, Transfers and Memos tell what landed; SOLBalance, TokenBalance and
// TokenAccount read the ledger.
package solanafake
