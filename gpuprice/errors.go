package gpuprice

import (
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402/usdc"
)

// sentinels are the package's sentinel errors and the codes that mean each; the client gives
// them to the HTTP core, which puts the sentinel of an answer's code in the *sdk.APIError's
// Sentinels. The API description shows no error body, so the codes are the likely ones (those
// of package gpupricetest); the error codes that report a used-up quota, whatever the status
// that carries them, mean ErrRateLimited.
var sentinels = httpcore.NewSentinels(serviceName).Alias(sdk.ErrRateLimited, "rate_limit_exceeded", "rate_limited",
	"quota_exceeded", "daily_quota_exceeded", "daily_limit_exceeded", "too_many_requests", "limit_exceeded",
	"request_limit_exceeded")

// ErrAlreadyRedeemed (409 already_redeemed): a key was already issued for the transaction.
var ErrAlreadyRedeemed = sentinels.New("already_redeemed")

// ErrConflict matches every 409 answer; it is [sdk.ErrConflict].
var ErrConflict = sdk.ErrConflict

// ErrForbidden matches every 403 answer: the key's plan does not include the endpoint. It is
// [sdk.ErrForbidden].
var ErrForbidden = sdk.ErrForbidden

// ErrInsufficientAmount (422 insufficient_amount): less than the plan's price was paid.
var ErrInsufficientAmount = sentinels.New("insufficient_amount")

// ErrInsufficientFunds matches an *InsufficientFundsError.
var ErrInsufficientFunds = sentinels.New("the payer's USDC balance is below the plan's price")

// ErrInsufficientSOL matches an *InsufficientSOLError.
var ErrInsufficientSOL = sentinels.New("the payer's SOL balance does not cover the purchase's fee and rent")

// ErrInvalidAPIKey (401 invalid_api_key): the service does not know the key.
var ErrInvalidAPIKey = sentinels.Code("invalid_api_key")

// ErrInvalidParameter (400 invalid_parameter): a query parameter was refused.
var ErrInvalidParameter = sentinels.Code("invalid_parameter")

// ErrKeyExpired (401 api_key_expired): the key's month is over.
var ErrKeyExpired = sentinels.Code("api_key_expired")

// ErrKeyRequired (401 api_key_required): History needs a Pro or Unlimited key. The client
// returns an *sdk.MissingCredentialError matching it, without a request, when it has no key.
var ErrKeyRequired = sentinels.Code("api_key_required")

// ErrNoTransfer (422 no_transfer): the transaction moved no USDC to the treasury.
var ErrNoTransfer = sentinels.New("no_transfer")

// ErrNotFound matches every 404 answer, such as ErrUnknownModel's; it is [sdk.ErrNotFound].
var ErrNotFound = sdk.ErrNotFound

// ErrNotRedeemed matches a *PaymentError of PaymentNotRedeemed: paid, but no key yet.
var ErrNotRedeemed = sentinels.New("the key payment went through but was not redeemed")

// ErrPaymentInDoubt matches a *PaymentError of PaymentInDoubt: the payment may still land.
var ErrPaymentInDoubt = sentinels.New("the key payment's outcome is unknown")

// ErrPaymentRefused matches a *PaymentError of PaymentRejected, PaymentFailed or
// PaymentExpired: no money moved.
var ErrPaymentRefused = sentinels.New("the key payment did not go through")

// ErrPlanRequired (403 plan_required): a free key asked for a paid endpoint.
var ErrPlanRequired = sentinels.Code("plan_required")

// ErrRateLimited matches every *sdk.RateLimitError: a 429, or a quota code in any error body.
// It is [sdk.ErrRateLimited].
var ErrRateLimited = sdk.ErrRateLimited

// ErrTxFailed (422 tx_failed): the transaction failed on chain.
var ErrTxFailed = sentinels.New("tx_failed")

// ErrTxNotConfirmed (409 tx_not_confirmed): the transaction is not confirmed yet; redeem it
// again later.
var ErrTxNotConfirmed = sentinels.New("tx_not_confirmed")

// ErrTxNotFound (404 tx_not_found): the service has not seen the transaction.
var ErrTxNotFound = sentinels.New("tx_not_found")

// ErrUnauthorized matches every 401 answer: the key is missing, unknown or expired. It is
// [sdk.ErrUnauthorized].
var ErrUnauthorized = sdk.ErrUnauthorized

// ErrUnknownModel (404 unknown_model): no such GPU model in the data set.
var ErrUnknownModel = sentinels.Code("unknown_model")

// ErrUnknownPlatform (404 unknown_platform): no such platform in the data set.
var ErrUnknownPlatform = sentinels.Code("unknown_platform")

// ErrWrongDestination (422 wrong_destination): the transfer did not reach the treasury.
var ErrWrongDestination = sentinels.New("wrong_destination")

// ErrWrongMemo (422 wrong_memo): the memo is not exactly one plan's memo.
var ErrWrongMemo = sentinels.New("wrong_memo")

// ErrWrongMint (422 wrong_mint): the transaction moved a token other than USDC.
var ErrWrongMint = sentinels.New("wrong_mint")

// redemptionRefusals is the one table of the redemption's refusals: for each sentinel, the
// codes a service may send for it. The API description does not show them, so each family
// holds the spellings a service would likely use; a code is compared folded (letter case and
// the separators "_", "-", "." and spaces ignored: ALREADY-REDEEMED and AlreadyRedeemed are
// already_redeemed). The codes mean something on the redemption only: the same code on
// another endpoint matches none of these sentinels.
var redemptionRefusals = []struct {
	sentinel error
	codes    []string
}{
	{ErrTxNotConfirmed, []string{"tx_not_confirmed", "transaction_not_confirmed", "signature_not_confirmed", "not_confirmed",
		"unconfirmed", "tx_unconfirmed", "not_finalized", "tx_not_finalized", "pending", "tx_pending", "transaction_pending"}},
	{ErrAlreadyRedeemed, []string{"already_redeemed", "signature_already_redeemed", "tx_already_redeemed",
		"transaction_already_redeemed", "already_used", "signature_already_used", "tx_already_used", "already_claimed",
		"already_processed", "duplicate_signature", "duplicate_transaction", "signature_reused", "replay"}},
	{ErrTxNotFound, []string{"tx_not_found", "transaction_not_found", "signature_not_found", "unknown_transaction",
		"unknown_signature", "unknown_tx", "tx_unknown", "no_such_transaction"}},
	{ErrTxFailed, []string{"tx_failed", "transaction_failed", "failed_transaction", "tx_error", "transaction_error"}},
	{ErrNoTransfer, []string{"no_transfer", "no_usdc_transfer", "no_token_transfer", "transfer_not_found", "missing_transfer"}},
	{ErrWrongMint, []string{"wrong_mint", "invalid_mint", "unsupported_mint", "mint_mismatch", "wrong_token", "invalid_token"}},
	{ErrWrongDestination, []string{"wrong_destination", "invalid_destination", "destination_mismatch", "wrong_recipient",
		"invalid_recipient", "recipient_mismatch", "wrong_treasury"}},
	{ErrWrongMemo, []string{"wrong_memo", "invalid_memo", "missing_memo", "no_memo", "unknown_memo", "memo_mismatch"}},
	{ErrInsufficientAmount, []string{"insufficient_amount", "amount_too_low", "underpaid", "underpayment",
		"insufficient_payment", "wrong_amount", "invalid_amount", "amount_mismatch"}},
}

// redemptionCodes maps each folded code of redemptionRefusals to its sentinel.
var redemptionCodes = func() map[string]error {
	m := map[string]error{}
	for _, r := range redemptionRefusals {
		for _, code := range r.codes {
			m[fold(code)] = r.sentinel
		}
	}
	return m
}()

// refusedRedemption gives a refused redemption the sentinel its code means, by
// redemptionRefusals; a 409 is ErrAlreadyRedeemed whatever its code, unless the code says
// the transaction is not confirmed yet (a 409 too).
func refusedRedemption(err error) error {
	var ae *sdk.APIError
	if !errors.As(err, &ae) {
		return err
	}
	s := redemptionCodes[fold(ae.Code)]
	if s != nil {
		ae.Sentinels = append(ae.Sentinels, s)
	}
	if ae.StatusCode == http.StatusConflict && s != ErrTxNotConfirmed && s != ErrAlreadyRedeemed {
		ae.Sentinels = append(ae.Sentinels, ErrAlreadyRedeemed)
	}
	return err
}

// invalid returns the *sdk.ValidationError for a refused parameter or setting.
func invalid(field, reason string) error {
	return &sdk.ValidationError{Service: serviceName, Field: field, Reason: reason}
}

// classify is the HTTP core's Service.ClassifyAt: a quota answer, read at now, becomes an
// *sdk.RateLimitError (a 429 already is one; a quota code at another status is wrapped) whose
// RateLimit.Reset is always set (see quotaReset).
func classify(err error, now time.Time) error {
	switch e := err.(type) {
	case *sdk.RateLimitError:
		e.RateLimit = withReset(e.RateLimit, e.APIError, now)
	case *sdk.APIError:
		if sentinels.Match(strings.ToLower(e.Code)) == ErrRateLimited {
			return &sdk.RateLimitError{APIError: e, RateLimit: withReset(httpcore.ParseRateLimit(e.Header, now), e, now)}
		}
	}
	return err
}

// withReset returns rl (a new RateLimit when nil) with Reset set: from the rate-limit headers
// when they had it, else from a reset time in the error body, else until the next UTC
// midnight, when the daily quotas of the plans start again.
func withReset(rl *sdk.RateLimit, e *sdk.APIError, now time.Time) *sdk.RateLimit {
	if rl == nil {
		rl = &sdk.RateLimit{}
	}
	if rl.Reset == nil {
		d := quotaReset(e.Body, now).Sub(now)
		rl.Reset = &d
	}
	return rl
}

// quotaReset returns the time the quota of a refused request resets: a reset time in the
// body (under the names of fieldReset, inside {"error":{...}} or at the top), or the next UTC
// midnight.
func quotaReset(body []byte, now time.Time) time.Time {
	if m, err := readMembers(body); err == nil {
		inner, _ := m.object(fieldError)
		if t := inner.time(fieldReset); t != nil && t.After(now) {
			return *t
		}
		if t := m.time(fieldReset); t != nil && t.After(now) {
			return *t
		}
	}
	return nextMidnightUTC(now)
}

// nextMidnightUTC returns the first midnight UTC after now.
func nextMidnightUTC(now time.Time) time.Time {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
}

// PaymentOutcome says where a key payment stands after BuyKey failed past the signing.
type PaymentOutcome int

// The outcomes of a payment that did not end with a key.
const (
	// PaymentRejected: the Solana node refused the transaction before it landed (its
	// simulation failed). Nothing moved; the budget counts the amount until the blockhash
	// expires, since nothing a server says releases a signed payment early.
	PaymentRejected PaymentOutcome = iota + 1
	// PaymentFailed: the transaction landed with an error. Nothing moved; the budget counts
	// the amount until the blockhash expires.
	PaymentFailed
	// PaymentInDoubt: the node did not answer, or the transaction was not confirmed in time.
	// It may still land: the budget counts the amount until Budget.Resolve. Look the
	// signature up on chain, then redeem it or resolve it.
	PaymentInDoubt
	// PaymentExpired: the node had not seen the transaction when its blockhash expired, so
	// it can no longer land. Nothing moved; the budget counts the amount until the
	// blockhash's expiry passes.
	PaymentExpired
	// PaymentNotRedeemed: the payment is confirmed (and spent in the budget) but the
	// redemption failed. Call RedeemKey with the signature again.
	PaymentNotRedeemed
)

// String names the outcome.
func (o PaymentOutcome) String() string {
	switch o {
	case PaymentRejected:
		return "rejected by the node"
	case PaymentFailed:
		return "failed on chain"
	case PaymentInDoubt:
		return "in doubt"
	case PaymentExpired:
		return "expired before it landed"
	case PaymentNotRedeemed:
		return "paid but not redeemed"
	}
	return "unknown"
}

// PaymentError reports a key purchase that failed after its transaction was signed. It
// carries the transaction signature, so that the caller can look the payment up on chain,
// redeem it again (RedeemKey) or resolve it in the budget. Its text never shows the
// signature, which redeems a key until it is used.
type PaymentError struct {
	// Outcome says where the payment stands.
	Outcome PaymentOutcome
	// Signature is the transaction's signature (base58), printed as a mask; Reveal gives it.
	Signature sdk.Secret
	// Plan is the plan paid for.
	Plan Plan
	// Err is the cause: the node's or the service's error, or the wait's.
	Err error
}

// Error names the plan, its price in dollars of USDC, the outcome and the cause.
func (e *PaymentError) Error() string {
	msg := serviceName + ": buying a key of plan " + string(e.Plan)
	if amount, ok := e.Plan.Price(); ok {
		msg += " for " + usdc.Format(amount)
	}
	msg += ": payment " + e.Outcome.String()
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the cause.
func (e *PaymentError) Unwrap() error { return e.Err }

// Is matches the sentinel of the outcome.
func (e *PaymentError) Is(target error) bool {
	switch target {
	case ErrPaymentRefused:
		return e.Outcome == PaymentRejected || e.Outcome == PaymentFailed || e.Outcome == PaymentExpired
	case ErrPaymentInDoubt:
		return e.Outcome == PaymentInDoubt
	case ErrNotRedeemed:
		return e.Outcome == PaymentNotRedeemed
	}
	return false
}

// InsufficientFundsError reports a purchase refused because the payer's USDC account holds
// less than the plan's price. Nothing was signed or sent.
type InsufficientFundsError struct {
	// Have is the balance, in atomic USDC units (package usdc); 0 when the account does not
	// exist.
	Have *big.Int
	// Need is the plan's price, in atomic USDC units.
	Need *big.Int
}

// Error names both amounts, in dollars of USDC (usdc.Format).
func (e *InsufficientFundsError) Error() string {
	return serviceName + ": the payer's USDC balance is " + usdc.Format(e.Have) + ", the plan costs " + usdc.Format(e.Need)
}

// Is matches ErrInsufficientFunds.
func (e *InsufficientFundsError) Is(target error) bool { return target == ErrInsufficientFunds }

// InsufficientSOLError reports a purchase refused because the payer's wallet holds too little
// SOL for what the transaction costs it besides the USDC: the fee, the rent of the treasury's
// USDC account when the purchase creates it, and the rent-exempt minimum of the wallet itself
// when it would keep some SOL (the runtime refuses a transaction that leaves a wallet with
// less than that and more than nothing). A Solana runtime refuses such a transaction too, or
// takes its fee and fails it; BuyKey checks first, so that nothing is signed or sent and the
// budget's reservation is given back. Amounts are in lamports (1 SOL = 1,000,000,000).
type InsufficientSOLError struct {
	// Have is the payer's balance; 0 when the wallet does not exist on chain.
	Have uint64
	// Need is the smallest balance above Have with which the purchase goes through: Fee plus
	// Rent, plus Reserve when it is set.
	Need uint64
	// Fee is the transaction's fee.
	Fee uint64
	// Rent is the rent-exempt balance of the treasury's USDC account, which the purchase
	// creates and the payer funds; 0 when the purchase creates no account.
	Rent uint64
	// Reserve is the rent-exempt minimum of the payer's wallet, counted when Have covers Fee
	// and Rent but would leave the wallet less than this (spending exactly Fee plus Rent is
	// allowed too); 0 otherwise.
	Reserve uint64
}

// Error names both balances in SOL, and what the need is made of.
func (e *InsufficientSOLError) Error() string {
	msg := serviceName + ": the payer holds " + formatSOL(e.Have) + " SOL, the purchase needs " + formatSOL(e.Need) +
		" SOL (fee " + formatSOL(e.Fee) + " SOL"
	if e.Rent > 0 {
		msg += ", rent of the treasury's new USDC account " + formatSOL(e.Rent) + " SOL"
	}
	if e.Reserve > 0 {
		msg += ", and " + formatSOL(e.Reserve) + " SOL the wallet must keep to stay rent-exempt; or exactly " +
			formatSOL(e.Fee+e.Rent) + " SOL, spending it all"
	}
	return msg + ")"
}

// Is matches ErrInsufficientSOL.
func (e *InsufficientSOLError) Is(target error) bool { return target == ErrInsufficientSOL }

// formatSOL writes an amount of lamports as a decimal number of SOL, such as "0.000005".
func formatSOL(lamports uint64) string {
	text := strconv.FormatUint(lamports/1_000_000_000, 10) + "." + fmt.Sprintf("%09d", lamports%1_000_000_000)
	return strings.TrimSuffix(strings.TrimRight(text, "0"), ".")
}
