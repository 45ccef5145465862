package gpuprice

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/poll"
	"github.com/agentapis/sdk/x402"
)

// PaymentRail names the Solana rail in a budget's outstanding payments. A key purchase's
// hold records the payer's wallet (Payer), the USDC mint (Asset), the transaction signature
// (ID), and as Ref the transaction's blockhash and its last valid block height, separated by
// a space: what it takes to look the payment up on chain.
const PaymentRail = "solana"

// slotTime is a conservative length of a Solana block, used to estimate when a blockhash
// expires (blocks take about 400 ms; a longer estimate keeps a refused payment counted
// longer, never shorter).
const slotTime = 600 * time.Millisecond

// unknownExpiry is how long a signed payment counts as usable when the node did not say
// when its blockhash expires.
const unknownExpiry = 2 * time.Minute

// confirmSchedule spaces the confirmation checks of BuyKey.
var confirmSchedule = poll.Schedule{Min: 400 * time.Millisecond, Max: 2 * time.Second, Factor: 1.5, Jitter: 0.2}

// redeemSchedule spaces the redemptions BuyKey repeats while the service has not yet seen
// the confirmed payment.
var redeemSchedule = poll.Schedule{Min: time.Second, Max: 4 * time.Second, Factor: 2, Jitter: 0.2}

// redeemAttempts bounds those redemptions.
const redeemAttempts = 5

// BuyKey buys a key of p.Plan with a USDC payment on Solana, redeems it, makes the client send
// the key from now on, and returns it with its plan, expiry and the payment's signature.
//
// In order: the plan's price is reserved in p.Budget, to the treasury (a refusal is the
// budget's *x402.PolicyError, matching x402.ErrBudgetExceeded or another of its limits, and
// nothing is signed); the payer's USDC balance is read over RPC (short: an
// *InsufficientFundsError, and nothing is sent); a recent blockhash is fetched and the
// transaction of BuildKeyPayment is built; the payer's SOL is checked against what the
// transaction costs it: the fee (the node's getFeeForMessage, or 5,000 lamports a signature
// when the node does not say), the rent-exempt balance of the treasury's USDC account when
// the purchase creates it, and the wallet's own rent-exempt minimum when it would keep some
// SOL (short: an *InsufficientSOLError, and nothing is signed or sent); the transaction is
// signed and its signature recorded in the budget (when that fails, nothing is sent); it is
// sent with preflight, and its status is polled until it is confirmed (commitment
// "confirmed") or the WithConfirmTimeout bound passes; then it is redeemed with RedeemKey.
// Each call of the node is bounded by the attempt timeout of WithTimeouts (60s by default),
// which ends it with an *RPCError matching context.DeadlineExceeded; a status check that
// fails so is repeated until the confirmation bound. No step waits forever: a purchase takes
// at most about one attempt bound per node call, plus twice WithConfirmTimeout (the wait for
// confirmation, then the repeated redemption).
//
// Money is accounted in the budget as x402 payments are: a failure before the transaction
// is handed to the node gives the reservation back; once it may have left, the amount stays
// counted. A node that refuses the transaction, or a transaction that fails on chain, is a
// *PaymentError (ErrPaymentRefused) and the amount counts until the blockhash expires (a
// refusal wraps the node's *RPCError, with the failing instruction and the program logs); no
// answer or no confirmation in time is a *PaymentError (ErrPaymentInDoubt) that counts until
// the caller resolves it (x402.Budget.Resolve with the signature); a confirmed payment is
// spent, and a redemption that fails after it is a *PaymentError (ErrNotRedeemed) carrying
// the signature for RedeemKey.
func (c *Client) BuyKey(ctx context.Context, p *BuyKeyParams) (*Key, error) {
	amount, memo, err := p.terms()
	if err != nil {
		return nil, err
	}
	if c.node == nil {
		return nil, invalid("RPC URL", "not set: use WithRPCURL, WithRPCClient or the "+EnvRPCURL+" environment variable")
	}
	budget := p.Budget
	if budget == nil {
		if budget, err = x402.NewBudget(nil); err != nil {
			return nil, err
		}
	}
	hold, err := budget.Reserve(ctx, x402.Reservation{Amount: price(amount), PayTo: p.Treasury.String(), Rail: PaymentRail,
		Resource: "gpuprice key " + string(p.Plan), Payer: p.Payer.PublicKey().String(), Asset: USDCMint.String()})
	if err != nil {
		return nil, err
	}
	// The budget records each outcome whatever becomes of ctx; a store that fails to record
	// it leaves the amount counted, and changes nothing else.
	book := context.WithoutCancel(ctx)
	tx, lastValid, expires, err := c.preparePayment(ctx, p, amount, memo)
	if err == nil {
		err = hold.Sign(ctx, x402.Signature{ID: tx.Signatures[0].String(), Expires: expires,
			Ref: tx.Message.RecentBlockhash.String() + " " + strconv.FormatUint(lastValid, 10)})
	}
	if err != nil {
		_ = hold.Release(book) // nothing was handed to the node: the reservation is given back
		return nil, err
	}
	sig := tx.Signatures[0]
	fail := func(outcome PaymentOutcome, cause error) error {
		return &PaymentError{Outcome: outcome, Signature: sdk.NewSecret(sig.String()), Plan: p.Plan, Err: withoutSecret(cause, sig.String())}
	}

	_, err = nodeCall(ctx, c, func(ctx context.Context) (solana.Signature, error) {
		return c.node.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed})
	})
	if err != nil {
		rerr := c.rpcError("sendTransaction", err)
		rerr.Instruction = failedInstruction(tx, rerr.TransactionError, rerr.Logs)
		if rerr.Code != 0 {
			_ = hold.Refused(book) // the node answered no; the signed transaction still counts until it expires
			return nil, fail(PaymentRejected, rerr)
		}
		_ = hold.InDoubt(book) // no answer: the transaction may have reached the cluster
		return nil, fail(PaymentInDoubt, rerr)
	}
	switch err := c.confirm(ctx, sig, lastValid); {
	case errors.Is(err, errFailedOnChain):
		_ = hold.Refused(book)
		return nil, fail(PaymentFailed, err)
	case errors.Is(err, errExpired):
		_ = hold.Refused(book)
		return nil, fail(PaymentExpired, err)
	case err != nil:
		_ = hold.InDoubt(book)
		return nil, fail(PaymentInDoubt, err)
	}
	_ = hold.Commit(book)

	key, err := c.redeemConfirmed(ctx, sig.String())
	if err != nil {
		return key, fail(PaymentNotRedeemed, err)
	}
	return key, nil
}

// preparePayment checks the payer's balances, fetches a blockhash and builds the signed
// transaction, and returns it with the last block height and the time at which its
// blockhash can still land. Nothing is sent.
func (c *Client) preparePayment(ctx context.Context, p *BuyKeyParams, amount uint64, memo string) (*solana.Transaction, uint64, time.Time, error) {
	have, err := c.usdcBalance(ctx, p.Payer.PublicKey())
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	if have < amount {
		return nil, 0, time.Time{}, &InsufficientFundsError{Have: have, Need: amount}
	}
	lamports, err := nodeCall(ctx, c, func(ctx context.Context) (*rpc.GetBalanceResult, error) {
		return c.node.GetBalance(ctx, p.Payer.PublicKey(), rpc.CommitmentConfirmed)
	})
	if err != nil {
		return nil, 0, time.Time{}, c.rpcError("getBalance", err)
	}
	if lamports == nil {
		return nil, 0, time.Time{}, &RPCError{Method: "getBalance", Message: "the node returned no balance"}
	}
	rent, err := c.treasuryRent(ctx, p)
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	bh, err := nodeCall(ctx, c, func(ctx context.Context) (*rpc.GetLatestBlockhashResult, error) {
		return c.node.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
	})
	if err != nil {
		return nil, 0, time.Time{}, c.rpcError("getLatestBlockhash", err)
	}
	if bh == nil || bh.Value == nil || bh.Value.Blockhash.IsZero() {
		return nil, 0, time.Time{}, &RPCError{Method: "getLatestBlockhash", Message: "the node returned no blockhash"}
	}
	expires := time.Now().Add(unknownExpiry)
	if height, err := c.blockHeight(ctx); err == nil && bh.Value.LastValidBlockHeight >= height {
		expires = time.Now().Add(time.Duration(bh.Value.LastValidBlockHeight-height+1) * slotTime)
	}
	tx, err := unsignedPayment(p, amount, memo, bh.Value.Blockhash)
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	fee, err := c.fee(ctx, tx)
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	if err := c.checkSOL(ctx, lamports.Value, fee, rent); err != nil {
		return nil, 0, time.Time{}, err
	}
	if err := signPayment(tx, p.Payer); err != nil {
		return nil, 0, time.Time{}, err
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, time.Time{}, err
	}
	return tx, bh.Value.LastValidBlockHeight, expires, nil
}

// lamportsPerSignature is the fee a Solana cluster charges per signature of a transaction
// without a compute-budget instruction (such as a key payment). It is used when the node
// cannot price the message itself (no getFeeForMessage, or a blockhash it does not know).
const lamportsPerSignature = 5_000

// tokenAccountSize is the size of an SPL Token account, whose rent-exempt balance the payer
// funds when the purchase creates the treasury's USDC account.
const tokenAccountSize = 165

// fee returns the fee of the unsigned transaction tx: the node's getFeeForMessage, or
// lamportsPerSignature for each signature when the node does not say.
func (c *Client) fee(ctx context.Context, tx *solana.Transaction) (uint64, error) {
	message, err := tx.Message.MarshalBinary()
	if err != nil {
		return 0, errors.New(serviceName + ": encoding the payment message: " + err.Error())
	}
	res, err := nodeCall(ctx, c, func(ctx context.Context) (*rpc.GetFeeForMessageResult, error) {
		return c.node.GetFeeForMessage(ctx, base64.StdEncoding.EncodeToString(message), rpc.CommitmentConfirmed)
	})
	if err != nil {
		if rerr := c.rpcError("getFeeForMessage", err); rerr.Code != codeMethodNotFound {
			return 0, rerr
		}
	} else if res != nil && res.Value != nil {
		return *res.Value, nil
	}
	return lamportsPerSignature * uint64(tx.Message.Header.NumRequiredSignatures), nil
}

// treasuryRent returns what creating the treasury's USDC account costs the payer: its
// rent-exempt balance when the purchase creates it (CreateTreasuryAccount, and the account
// does not exist yet), else 0.
func (c *Client) treasuryRent(ctx context.Context, p *BuyKeyParams) (uint64, error) {
	if !p.CreateTreasuryAccount {
		return 0, nil
	}
	ata, err := usdcAccount(p.Treasury, "treasury")
	if err != nil {
		return 0, err
	}
	_, err = nodeCall(ctx, c, func(ctx context.Context) (*rpc.GetAccountInfoResult, error) {
		return c.node.GetAccountInfoWithOpts(ctx, ata, &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed})
	})
	switch {
	case err == nil:
		return 0, nil // it exists: the creation is a no-op
	case !errors.Is(err, rpc.ErrNotFound):
		return 0, c.rpcError("getAccountInfo", err)
	}
	return c.rentExempt(ctx, tokenAccountSize)
}

// rentExempt returns the node's rent-exempt minimum balance of an account of size bytes.
func (c *Client) rentExempt(ctx context.Context, size uint64) (uint64, error) {
	rent, err := nodeCall(ctx, c, func(ctx context.Context) (uint64, error) {
		return c.node.GetMinimumBalanceForRentExemption(ctx, size, rpc.CommitmentConfirmed)
	})
	if err != nil {
		return 0, c.rpcError("getMinimumBalanceForRentExemption", err)
	}
	return rent, nil
}

// checkSOL refuses a payer whose lamports do not cover the fee and the rent, or would leave
// its wallet holding less than the wallet's own rent-exempt minimum and more than nothing,
// which the runtime refuses too (InsufficientFundsForRent).
func (c *Client) checkSOL(ctx context.Context, have, fee, rent uint64) error {
	need := fee + rent
	if have < need {
		return &InsufficientSOLError{Have: have, Need: need, Fee: fee, Rent: rent}
	}
	if have == need {
		return nil
	}
	reserve, err := c.rentExempt(ctx, 0)
	if err != nil {
		return err
	}
	if have-need < reserve {
		return &InsufficientSOLError{Have: have, Need: need + reserve, Fee: fee, Rent: rent, Reserve: reserve}
	}
	return nil
}

// The JSON-RPC codes the purchase tells apart: an account the node does not have, and a
// method it does not implement.
const (
	codeInvalidParams  = -32602
	codeMethodNotFound = -32601
)

// usdcBalance returns the USDC balance of owner's associated token account, 0 when it is absent.
func (c *Client) usdcBalance(ctx context.Context, owner solana.PublicKey) (uint64, error) {
	ata, err := usdcAccount(owner, "payer")
	if err != nil {
		return 0, err
	}
	res, err := nodeCall(ctx, c, func(ctx context.Context) (*rpc.GetTokenAccountBalanceResult, error) {
		return c.node.GetTokenAccountBalance(ctx, ata, rpc.CommitmentConfirmed)
	})
	if err != nil {
		rerr := c.rpcError("getTokenAccountBalance", err)
		if rerr.Code == codeInvalidParams && strings.Contains(strings.ToLower(rerr.Message), "could not find account") {
			return 0, nil
		}
		return 0, rerr
	}
	if res == nil || res.Value == nil {
		return 0, nil
	}
	if res.Value.Decimals != USDCDecimals {
		return 0, &RPCError{Method: "getTokenAccountBalance", Message: "the payer's USDC account reports " +
			strconv.Itoa(int(res.Value.Decimals)) + " decimals, not 6"}
	}
	have, err := strconv.ParseUint(res.Value.Amount, 10, 64)
	if err != nil {
		return 0, &RPCError{Method: "getTokenAccountBalance", Message: "the balance is not a whole number of atomic units"}
	}
	return have, nil
}

// errFailedOnChain marks a transaction whose status carries an error.
var errFailedOnChain = errors.New("the transaction failed on chain")

// errExpired marks a transaction unseen when its blockhash expired: it can no longer land.
var errExpired = errors.New("the blockhash expired before the transaction landed")

// confirm polls the status of sig until it is confirmed or finalized (nil), failed on chain
// (errFailedOnChain), unseen past lastValid, the last block height of its blockhash
// (errExpired), or the confirmation bound passes (a *poll.StoppedError).
func (c *Client) confirm(ctx context.Context, sig solana.Signature, lastValid uint64) error {
	return poll.Run(ctx, poll.Options{Schedule: confirmSchedule, Timeout: c.confirmTimeout, Clock: c.clock},
		func(ctx context.Context, _ int) (bool, time.Duration, error) {
			res, err := nodeCall(ctx, c, func(ctx context.Context) (*rpc.GetSignatureStatusesResult, error) {
				return c.node.GetSignatureStatuses(ctx, false, sig)
			})
			if err != nil {
				return false, 0, c.rpcError("getSignatureStatuses", err)
			}
			if res == nil || len(res.Value) == 0 || res.Value[0] == nil {
				height, err := c.blockHeight(ctx)
				if err == nil && height > lastValid {
					return true, 0, errExpired
				}
				return false, 0, nil // not seen yet
			}
			st := res.Value[0]
			if st.Err != nil {
				return true, 0, errors.Join(errFailedOnChain, errors.New("status error: "+describe(st.Err)))
			}
			switch st.ConfirmationStatus {
			case rpc.ConfirmationStatusConfirmed, rpc.ConfirmationStatusFinalized:
				return true, 0, nil
			}
			return false, 0, nil
		})
}

// redeemConfirmed redeems a confirmed payment, repeating the redemption (on the shared poll
// loop) while the service has not seen the payment or its confirmation yet.
func (c *Client) redeemConfirmed(ctx context.Context, sig string) (*Key, error) {
	var key *Key
	err := poll.Run(ctx, poll.Options{Schedule: redeemSchedule, MaxAttempts: redeemAttempts, Timeout: c.confirmTimeout, Clock: c.clock},
		func(ctx context.Context, _ int) (bool, time.Duration, error) {
			var err error
			key, err = c.RedeemKey(ctx, sig)
			if errors.Is(err, ErrTxNotConfirmed) || errors.Is(err, ErrTxNotFound) {
				return false, 0, err
			}
			return true, 0, err
		})
	return key, err
}

// nodeCall makes call, one call of the Solana node, within the client's attempt timeout
// (sdk.Timeouts.Attempt, see WithTimeouts): solana-go's client does not go through the HTTP
// core, so each of its calls is bounded through its context, whatever client WithRPCClient
// gave. A call the bound ends fails with an error that says so and matches
// context.DeadlineExceeded; its text holds no URL.
func nodeCall[T any](ctx context.Context, c *Client, call func(context.Context) (T, error)) (T, error) {
	bound := fmt.Errorf("no answer from the Solana node within %s: %w", c.nodeTimeout, context.DeadlineExceeded)
	callCtx, cancel := context.WithTimeoutCause(ctx, c.nodeTimeout, bound)
	defer cancel()
	v, err := call(callCtx)
	if err != nil && ctx.Err() == nil && context.Cause(callCtx) == bound {
		err = bound
	}
	return v, err
}

// blockHeight returns the node's block height at commitment "confirmed".
func (c *Client) blockHeight(ctx context.Context) (uint64, error) {
	return nodeCall(ctx, c, func(ctx context.Context) (uint64, error) { return c.node.GetBlockHeight(ctx, rpc.CommitmentConfirmed) })
}

// rpcError converts an error of the solana-go client into an *RPCError whose texts hold no
// URL: solana-go quotes the node's URL, which may carry an access key. The transaction error
// and the logs of the node's error data are kept.
func (c *Client) rpcError(method string, err error) *RPCError {
	var je *jsonrpc.RPCError
	if errors.As(err, &je) {
		rerr := &RPCError{Method: method, Code: je.Code, Message: c.scrubURL(je.Message), Err: errors.New(c.scrubURL(je.Message))}
		rerr.TransactionError, rerr.Logs = c.errorData(je.Data)
		return rerr
	}
	msg := c.scrubURL(err.Error())
	cause := errors.New(msg)
	for _, ctxErr := range []error{context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, ctxErr) {
			cause = ctxErr
		}
	}
	return &RPCError{Method: method, Message: msg, Err: cause}
}

// errorData returns the transaction error ("err") and the program logs ("logs") of a
// node's error data, such as that of a sendTransaction whose simulation failed; nothing
// when the data has neither.
func (c *Client) errorData(data any) (json.RawMessage, []string) {
	if data == nil {
		return nil, nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, nil
	}
	var d struct {
		Err  json.RawMessage `json:"err"`
		Logs []string        `json:"logs"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return nil, nil
	}
	if string(d.Err) == "null" {
		d.Err = nil
	}
	for i, line := range d.Logs {
		d.Logs[i] = c.scrubURL(line)
	}
	return d.Err, d.Logs
}

// failedInstruction reads an instruction error ({"InstructionError":[index, reason]}) of tx:
// the instruction's program from tx, and from the logs the program that raised the error,
// the first that logged "Program <address> failed" (an invoked program logs its failure
// before its caller). It returns nil for any other transaction error, or an index tx does
// not have.
func failedInstruction(tx *solana.Transaction, txErr json.RawMessage, logs []string) *InstructionFailure {
	var e struct {
		InstructionError []json.RawMessage `json:"InstructionError"`
	}
	if json.Unmarshal(txErr, &e) != nil || len(e.InstructionError) != 2 {
		return nil
	}
	var index int
	if json.Unmarshal(e.InstructionError[0], &index) != nil || index < 0 || index >= len(tx.Message.Instructions) {
		return nil
	}
	program, err := tx.Message.Program(tx.Message.Instructions[index].ProgramIDIndex)
	if err != nil {
		return nil
	}
	f := &InstructionFailure{Index: index, Program: program, FailedIn: program, Reason: e.InstructionError[1]}
	var custom struct {
		Custom *uint32 `json:"Custom"`
	}
	if json.Unmarshal(f.Reason, &custom) == nil {
		f.Custom = custom.Custom
	}
	for _, line := range logs {
		rest, ok := strings.CutPrefix(line, "Program ")
		address, _, failed := strings.Cut(rest, " failed")
		if !ok || !failed {
			continue
		}
		if pk, err := solana.PublicKeyFromBase58(address); err == nil {
			f.FailedIn = pk
			break
		}
	}
	return f
}

// urlPattern finds URLs in an error text.
var urlPattern = regexp.MustCompile(`(?i)\b(?:https?|wss?)://[^\s"']+`)

// scrubURL removes the node's URL, and any other URL, from s.
func (c *Client) scrubURL(s string) string {
	if c.nodeURL != "" {
		s = strings.ReplaceAll(s, c.nodeURL, "[rpc url]")
	}
	return urlPattern.ReplaceAllString(s, "[rpc url]")
}

// describe renders a transaction error of a status, such as {"InstructionError":[0,{"Custom":1}]}.
func describe(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "unreadable error"
	}
	return string(b)
}

// withoutSecret returns err with secret (a signed transaction's signature, which redeems a
// key) scrubbed from every text it carries, as the node or the service may echo it: an
// *RPCError's message and logs, or any other error's text. An error that does not carry it is
// returned as it is, so that errors.Is still sees its cause.
func withoutSecret(err error, secret string) error {
	if err == nil {
		return nil
	}
	var rerr *RPCError
	if errors.As(err, &rerr) {
		scrubbed := *rerr
		scrubbed.Message = httpcore.Scrub(rerr.Message, secret)
		scrubbed.Logs = make([]string, len(rerr.Logs))
		for i, l := range rerr.Logs {
			scrubbed.Logs[i] = httpcore.Scrub(l, secret)
		}
		scrubbed.TransactionError = []byte(httpcore.Scrub(string(rerr.TransactionError), secret))
		if rerr.Err != nil && httpcore.Scrub(rerr.Err.Error(), secret) != rerr.Err.Error() {
			scrubbed.Err = errors.New(httpcore.Scrub(rerr.Err.Error(), secret))
		}
		return &scrubbed
	}
	if text := httpcore.Scrub(err.Error(), secret); text != err.Error() {
		return errors.New(text)
	}
	return err
}
