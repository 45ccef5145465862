package gpuprice

import (
	"context"
	"encoding/base64"
	"errors"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/poll"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/usdc"
)

// PaymentRail names the Solana rail in a budget's outstanding payments (svm.PurchaseRail). A
// key purchase's hold records the payer's wallet (Payer), the USDC mint (Asset), the
// transaction signature (ID), and as Ref what svm.HoldSignature records of any Solana
// payment (its blockhash, its last valid block height, the payer's USDC account and the
// memo): what svm.Lookup needs to look it up on chain.
const PaymentRail = svm.PurchaseRail

// slotTime is a conservative length of a Solana block, used to estimate when a blockhash
// expires (blocks take about 400 ms; a longer estimate keeps a refused payment counted
// longer, never shorter).
const slotTime = 600 * time.Millisecond

// unknownExpiry is how long a signed payment counts as usable when the node did not say
// when its blockhash expires.
const unknownExpiry = 2 * time.Minute

// BuyKey buys a key of params.Plan with a USDC payment on Solana, redeems it, makes the client
// send the key from now on, and returns it with its plan, expiry and the payment's signature.
//
// In order: the plan's price is reserved in params.Budget, to the treasury (a refusal is the
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
// "confirmed") or the WithWait timeout passes; then it is redeemed with RedeemKey, again
// while the service has not seen the confirmation yet, within the WithWait policy.
// Each call of the node is bounded by the attempt timeout of WithTimeouts (60s by default),
// which ends it with an *RPCError matching context.DeadlineExceeded; a status check that
// fails so is repeated until the confirmation bound. No step waits forever: a purchase takes
// at most about one attempt bound per node call, plus twice the WithWait timeout (the wait for
// confirmation, then the repeated redemption).
//
// Money is accounted in the budget as x402 payments are: a failure before the transaction
// is handed to the node gives the reservation back; once it may have left, the amount stays
// counted. A node that refuses the transaction, or a transaction that fails on chain, is a
// *PaymentError (ErrPaymentRefused) and the amount counts until the blockhash expires (a
// refusal wraps the node's *RPCError, with the failing instruction and the program logs); no
// answer or no confirmation in time is a *PaymentError (ErrPaymentInDoubt, holding an
// *sdk.WaitError when the wait gave up) that counts until the caller resolves it
// (budget.Budget.Resolve with the signature); a confirmed payment is spent, and a redemption
// that fails after it is a *PaymentError (ErrNotRedeemed) carrying the signature for
// RedeemKey.
func (c *Client) BuyKey(ctx context.Context, params *BuyKeyParams) (*Key, error) {
	amount, memo, err := params.terms()
	if err != nil {
		return nil, err
	}
	if c.node == nil {
		return nil, invalid("RPC URL", "not set: use WithRPCURL, WithRPCClient or the "+EnvRPCURL+" environment variable")
	}
	spend := params.Budget
	if spend == nil {
		if spend, err = budget.New(budget.Unlimited); err != nil {
			return nil, err
		}
	}
	payer := params.Payer.PublicKey()
	hold, err := spend.Reserve(ctx, ledger.Reservation{Amount: amount, PayTo: params.Treasury.String(), Rail: PaymentRail,
		Resource: "gpuprice key " + string(params.Plan), Payer: payer.String(), Asset: USDCMint.String()})
	if err != nil {
		return nil, underOwnName(err)
	}
	// The budget records each outcome whatever becomes of ctx; a store that fails to record
	// it leaves the amount counted, and changes nothing else.
	book := context.WithoutCancel(ctx)
	tx, lastValid, expires, err := c.preparePayment(ctx, params, amount, memo)
	if err == nil {
		source, _ := usdcAccount(payer, "payer") // derived when the transaction was built
		ref := svm.Ref{Blockhash: tx.Message.RecentBlockhash, LastValid: lastValid, Source: source, Memo: []byte(memo)}
		err = hold.Sign(ctx, svm.HoldSignature(tx.Signatures[0], ref, expires))
	}
	if err != nil {
		_ = hold.Release(book) // nothing was handed to the node: the reservation is given back
		return nil, err
	}
	sig := tx.Signatures[0]
	fail := func(outcome PaymentOutcome, cause error) error {
		return &PaymentError{Outcome: outcome, Signature: sdk.NewSecret(sig.String()), Plan: params.Plan, Err: withoutSecret(cause, sig.String())}
	}

	if _, err := c.node.Send(ctx, tx); err != nil {
		var rerr *svm.RPCError
		if errors.As(err, &rerr) && rerr.Code != 0 {
			_ = hold.Refused(book) // the node answered no; the signed transaction still counts until it expires
			return nil, fail(PaymentRejected, err)
		}
		_ = hold.InDoubt(book) // no answer: the transaction may have reached the cluster
		return nil, fail(PaymentInDoubt, err)
	}
	confirming := poll.Waiting{Service: serviceName, Operation: "BuyKey", Subject: "confirmation of the payment for plan " + string(params.Plan),
		Policy: c.wait, Clock: c.clock}
	switch err := poll.AsWaitError(confirming, c.node.Confirm(ctx, sig, lastValid, c.clock, c.wait.Timeout)); {
	case errors.Is(err, svm.ErrFailedOnChain):
		_ = hold.Refused(book)
		return nil, fail(PaymentFailed, err)
	case errors.Is(err, svm.ErrExpired):
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
func (c *Client) preparePayment(ctx context.Context, p *BuyKeyParams, amount *big.Int, memo string) (*solana.Transaction, uint64, time.Time, error) {
	have, err := c.usdcBalance(ctx, p.Payer.PublicKey())
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	if have.Cmp(amount) < 0 {
		return nil, 0, time.Time{}, &InsufficientFundsError{Have: have, Need: amount}
	}
	lamports, err := svm.Call(ctx, c.node, "getBalance", func(ctx context.Context, rc *rpc.Client) (*rpc.GetBalanceResult, error) {
		return rc.GetBalance(ctx, p.Payer.PublicKey(), rpc.CommitmentConfirmed)
	})
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	if lamports == nil {
		return nil, 0, time.Time{}, nodeAnswer("getBalance", "the node returned no balance")
	}
	rent, err := c.treasuryRent(ctx, p)
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	blockhash, lastValid, err := c.node.LatestBlockhash(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	expires := c.clock.Now().Add(unknownExpiry)
	if height, err := c.node.BlockHeight(ctx, rpc.CommitmentConfirmed); err == nil && lastValid >= height {
		expires = c.clock.Now().Add(time.Duration(lastValid-height+1) * slotTime)
	}
	tx, err := unsignedPayment(p, amount, memo, blockhash)
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
	return tx, lastValid, expires, nil
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
	res, err := svm.Call(ctx, c.node, "getFeeForMessage", func(ctx context.Context, rc *rpc.Client) (*rpc.GetFeeForMessageResult, error) {
		return rc.GetFeeForMessage(ctx, base64.StdEncoding.EncodeToString(message), rpc.CommitmentConfirmed)
	})
	if err != nil {
		if rerr := asRPCError(err); rerr == nil || rerr.Code != codeMethodNotFound {
			return 0, err
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
	_, err = svm.Call(ctx, c.node, "getAccountInfo", func(ctx context.Context, rc *rpc.Client) (*rpc.GetAccountInfoResult, error) {
		return rc.GetAccountInfoWithOpts(ctx, ata, &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed})
	})
	switch {
	case err == nil:
		return 0, nil // it exists: the creation is a no-op
	case !errors.Is(err, rpc.ErrNotFound):
		return 0, err
	}
	return c.rentExempt(ctx, tokenAccountSize)
}

// rentExempt returns the node's rent-exempt minimum balance of an account of size bytes.
func (c *Client) rentExempt(ctx context.Context, size uint64) (uint64, error) {
	return svm.Call(ctx, c.node, "getMinimumBalanceForRentExemption", func(ctx context.Context, rc *rpc.Client) (uint64, error) {
		return rc.GetMinimumBalanceForRentExemption(ctx, size, rpc.CommitmentConfirmed)
	})
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

// usdcBalance returns the USDC balance of owner's associated token account, in atomic units
// of package usdc, 0 when it is absent.
func (c *Client) usdcBalance(ctx context.Context, owner solana.PublicKey) (*big.Int, error) {
	ata, err := usdcAccount(owner, "payer")
	if err != nil {
		return nil, err
	}
	res, err := svm.Call(ctx, c.node, "getTokenAccountBalance", func(ctx context.Context, rc *rpc.Client) (*rpc.GetTokenAccountBalanceResult, error) {
		return rc.GetTokenAccountBalance(ctx, ata, rpc.CommitmentConfirmed)
	})
	if err != nil {
		if rerr := asRPCError(err); rerr != nil && rerr.Code == codeInvalidParams && strings.Contains(strings.ToLower(rerr.Message), "could not find account") {
			return new(big.Int), nil
		}
		return nil, err
	}
	if res == nil || res.Value == nil {
		return new(big.Int), nil
	}
	if res.Value.Decimals != usdc.Decimals {
		return nil, nodeAnswer("getTokenAccountBalance", "the payer's USDC account reports "+
			strconv.Itoa(int(res.Value.Decimals))+" decimals, not 6")
	}
	have, ok := new(big.Int).SetString(res.Value.Amount, 10)
	if !ok || have.Sign() < 0 {
		return nil, nodeAnswer("getTokenAccountBalance", "the balance is not a whole number of atomic units")
	}
	return have, nil
}

// redeemConfirmed redeems a confirmed payment, repeating the redemption within the client's
// WithWait policy while the service has not seen the payment or its confirmation yet; giving
// up is an *sdk.WaitError.
func (c *Client) redeemConfirmed(ctx context.Context, sig string) (*Key, error) {
	var key *Key
	redeeming := poll.Waiting{Service: serviceName, Operation: "BuyKey", Subject: "redemption of the payment", Policy: c.wait, Clock: c.clock}
	err := poll.Wait(ctx, redeeming,
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

// nodeAnswer returns the *svm.RPCError of an answer of method the purchase cannot use.
func nodeAnswer(method, msg string) *svm.RPCError {
	return &svm.RPCError{Service: serviceName, Method: method, Message: msg, Err: errors.New(msg)}
}

// asRPCError returns the *svm.RPCError err is, or nil.
func asRPCError(err error) *svm.RPCError {
	var rerr *svm.RPCError
	if errors.As(err, &rerr) {
		return rerr
	}
	return nil
}

// withoutSecret returns err with secret (a signed transaction's signature, which redeems a
// key) scrubbed from every text it carries, as the node or the service may echo it: an
// *RPCError's message and logs, or any other error's text. An error that does not carry it is
// returned as it is, so that errors.Is still sees its cause.
func withoutSecret(err error, secret string) error {
	if err == nil {
		return nil
	}
	if rerr := asRPCError(err); rerr != nil {
		return rerr.Scrubbed(secret)
	}
	if text := httpcore.Scrub(err.Error(), secret); text != err.Error() {
		return errors.New(text)
	}
	return err
}

// underOwnName returns a refusal of the budget's limits as this client reports it, under its
// own name ("gpuprice: payment would exceed the total budget: ..."); any other error as it is.
func underOwnName(err error) error {
	var limit *budget.LimitError
	if !errors.As(err, &limit) {
		return err
	}
	c := *limit
	c.Service = serviceName
	return &c
}
