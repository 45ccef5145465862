package x402

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/excerpt"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/usdc"
	"github.com/agentapis/sdk/x402/wire"
)

// invalid returns the *sdk.ValidationError for field: a configuration the package refuses (a
// malformed private key, a negative cap, an unknown network), found before anything is
// signed or sent. The message never quotes a key.
func invalid(field, reason string) error {
	return &sdk.ValidationError{Service: "x402", Field: field, Reason: reason}
}

// Sentinels for the policy rules, matched with errors.Is against a *PolicyError. The limits
// of the budget are the same values as package budget's, so errors.Is matches them whether
// the refusal came through a payer (a *PolicyError) or straight from the budget (a
// *budget.LimitError).
var (
	// ErrAmountOverCap reports a price above Policy.MaxPerPayment, or above the budget's
	// budget.WithPaymentLimit.
	ErrAmountOverCap = budget.ErrAmountOverCap
	// ErrBudgetExceeded reports a payment that would take the total past the budget's limit
	// (Policy.MaxTotal).
	ErrBudgetExceeded = budget.ErrBudgetExceeded
	// ErrWindowExceeded reports a payment that would take the amount reserved in a rolling
	// window past its bound (budget.WithWindowLimit).
	ErrWindowExceeded = budget.ErrWindowExceeded
	// ErrPaymentCountExceeded reports a payment that would take the number of payments in a
	// rolling window past its bound (budget.WithWindowLimit).
	ErrPaymentCountExceeded = budget.ErrPaymentCountExceeded
	// ErrPayeeLimitExceeded reports a payment that would take what a payee gets past its
	// bound (budget.WithPayeeLimit, budget.WithPayeeLimitFor).
	ErrPayeeLimitExceeded = budget.ErrPayeeLimitExceeded
	// ErrPayToNotAllowed reports a recipient that is not in Policy.PayTo.
	ErrPayToNotAllowed = errors.New("recipient not in the allowed list")
	// ErrNotApproved reports a quote the Policy.Approve hook refused.
	ErrNotApproved = errors.New("payment not approved")
	// ErrOriginNotAllowed reports a payment asked for by an origin the request was
	// redirected to, which Policy.RedirectOrigins does not list.
	ErrOriginNotAllowed = errors.New("payment asked for after a redirect to another origin")
)

// PolicyError reports a payment the policy or the budget refused. Nothing was signed.
type PolicyError struct {
	// Rule is the sentinel of the rule that refused: ErrAmountOverCap, ErrBudgetExceeded,
	// ErrWindowExceeded, ErrPaymentCountExceeded, ErrPayeeLimitExceeded,
	// ErrPayToNotAllowed, ErrNotApproved or ErrOriginNotAllowed.
	Rule error
	// Origin is the origin that asked for payment (ErrOriginNotAllowed only).
	Origin string
	// Requirements is the accepts entry that was refused.
	Requirements wire.PaymentRequirements
	// Limit is the cap (ErrAmountOverCap), or what the limit had left (ErrBudgetExceeded,
	// ErrWindowExceeded and ErrPayeeLimitExceeded: atomic units; ErrPaymentCountExceeded: a
	// number of payments); nil for the other rules.
	Limit *big.Int
	// Max is the budget's limit that refused (the total, the window's or the payee's bound),
	// of which Limit was left; nil for the policy's own rules.
	Max *big.Int
	// Window is the length of the rolling window that refused (ErrWindowExceeded,
	// ErrPaymentCountExceeded).
	Window time.Duration
	// RetryAt is when enough frees up under the limit for this payment, if nothing else
	// happens: the oldest payments leave the window, or refused authorizations expire. Zero
	// when only a release or a resolution can free enough, or nothing can.
	RetryAt time.Time
	// Cause is the error the Approve hook returned (ErrNotApproved), or the budget's
	// *budget.LimitError (the budget's limits).
	Cause error
}

// Error names the rule, the amount and the limit: "x402: payment would exceed the total
// budget: amount $5.00, $1.00 left of $6.00".
func (e *PolicyError) Error() string {
	var limit *budget.LimitError
	if errors.As(e.Cause, &limit) {
		return "x402: " + limit.Describe()
	}
	var b strings.Builder
	b.WriteString("x402: ")
	b.WriteString(e.Rule.Error())
	if e.Requirements.Amount != nil {
		fmt.Fprintf(&b, ": amount %s", usdc.Format(e.Requirements.Amount))
	}
	switch {
	case e.Limit != nil && errors.Is(e.Rule, ErrPaymentCountExceeded):
		fmt.Fprintf(&b, ", payments left %s", e.Limit) // a number of payments, not money
	case e.Limit != nil:
		fmt.Fprintf(&b, ", limit %s", usdc.Format(e.Limit))
	}
	if errors.Is(e.Rule, ErrPayToNotAllowed) {
		fmt.Fprintf(&b, ", payTo %s", e.Requirements.PayTo)
	}
	if e.Origin != "" {
		fmt.Fprintf(&b, ", origin %s", e.Origin)
	}
	if e.Cause != nil {
		b.WriteString(": ")
		b.WriteString(e.Cause.Error())
	}
	return b.String()
}

// RetryableError reports false: an HTTP retry layer must not send the request again, since
// the policy refuses the same quote again.
func (e *PolicyError) RetryableError() bool { return false }

// Unwrap returns the rule's sentinel and the cause, so errors.Is and errors.As match either.
func (e *PolicyError) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Rule, e.Cause}
	}
	return []error{e.Rule}
}

// NoUsableRequirementsError reports a challenge none of whose accepts entries this payer can
// pay: wrong scheme, a network or asset the policy does not allow, or an unusable entry.
// Nothing was signed.
type NoUsableRequirementsError struct {
	// Reasons holds one line per accepts entry, in order.
	Reasons []string
}

// Error lists why each entry was passed over.
func (e *NoUsableRequirementsError) Error() string {
	if len(e.Reasons) == 0 {
		return "x402: no payment option offered (accepts is empty)"
	}
	return "x402: no usable payment option: " + strings.Join(e.Reasons, "; ")
}

// RetryableError reports false: an HTTP retry layer must not send the request again, since
// no entry will become payable by asking again.
func (e *NoUsableRequirementsError) RetryableError() bool { return false }

// ErrBodyNotReplayable reports a request answered with 402 whose body cannot be sent a second
// time: it has a body but no GetBody. Requests built with http.NewRequest from a
// *bytes.Buffer, *bytes.Reader or *strings.Reader have GetBody. Nothing was signed.
var ErrBodyNotReplayable = errors.New("x402: request body cannot be re-sent for payment (set http.Request.GetBody)")

// Payment identifies a signed x402 payment: what to look up on chain, and what it paid for.
// Every payment error carries it, and PaymentFrom reads it from a paid answer.
type Payment struct {
	// ID identifies the payment on its chain, and is its Signature.ID in the budget: the
	// EIP-3009 nonce of an EVM authorization (0x hex), the payer's signature of a Solana
	// transaction (base58, which error messages never show).
	ID string
	// Payer is the paying address.
	Payer string
	// Network is the chain, in CAIP-2 form (such as "eip155:8453").
	Network string
	// PayTo is the recipient.
	PayTo string
	// Asset is the token paid with (a contract, a mint).
	Asset string
	// Amount is the amount authorized, in atomic units.
	Amount *big.Int
	// Resource is the URL paid for, without its query.
	Resource string
	// idSecret says that ID is a signature, which error messages do not show.
	idSecret bool
}

// shownID returns how error messages name the payment: "nonce 0x..." for an EVM
// authorization, nothing for a payment whose ID is a signature.
func (p *Payment) shownID() string {
	if p.idSecret || p.ID == "" {
		return ""
	}
	return " (payment id " + p.ID + ")"
}

// clone returns a copy of p that shares nothing with it.
func (p *Payment) clone() Payment {
	c := *p
	if p.Amount != nil {
		c.Amount = new(big.Int).Set(p.Amount)
	}
	return c
}

// masked returns p with its ID replaced when the ID is a signature, for the %#v rendering of
// an error: no rendering of an error shows a signature.
func (p Payment) masked() Payment {
	if p.idSecret && p.ID != "" {
		p.ID = "[REDACTED]"
	}
	return p
}

// goString renders v, a copy of an error of this package of a type without methods, as %#v
// renders a *name.
func goString(name string, v any) string {
	s := fmt.Sprintf("%#v", v)
	if i := strings.IndexByte(s, '{'); i >= 0 {
		s = s[i:]
	}
	return "&x402." + name + s
}

// PaymentRejectedError reports that the server refused a paid request: it answered with
// another 402 (it refused the payment, or settling it failed), or with another failure status
// and no settlement receipt, and nothing about the payment was in doubt. No money moved as
// far as the server says, but the payee still holds the signed authorization until it
// expires: its amount stays counted against the budget until then (see Budget). The payer
// pays a new quote only with Policy.AllowRequote, once.
type PaymentRejectedError struct {
	// Payment identifies the refused authorization.
	Payment
	// Requirements is the accepts entry that was paid.
	Requirements wire.PaymentRequirements
	// StatusCode is the status of the server's answer (402, or another 4xx).
	StatusCode int
	// Reason is the error field of the server's new challenge, such as
	// "invalid_exact_evm_payload_authorization_valid_after", or a short excerpt of the body of
	// another failure status; any part of the payment is scrubbed from it.
	Reason string
	// Settlement is the server's PAYMENT-RESPONSE receipt, when it sent one (usually with
	// Success false and an ErrorReason).
	Settlement *wire.SettleResponse
	// Requote is why the server's new quote was not paid, when Policy.AllowRequote is set.
	Requote error
	// HeldUntil is when the budget stops counting the refused amount: the authorization's
	// expiry plus ledger.ExpiryMargin, on the budget's clock. Zero when the budget could not
	// book the refusal (the amount then stays counted as signed, until a reconciliation).
	HeldUntil time.Time
}

// Error names the server's reasons, quoted at most 200 bytes each.
func (e *PaymentRejectedError) Error() string {
	var b strings.Builder
	b.WriteString("x402: payment rejected by the server")
	if e.StatusCode != 0 && e.StatusCode != 402 {
		fmt.Fprintf(&b, " (status %d)", e.StatusCode)
	}
	if e.Reason != "" {
		fmt.Fprintf(&b, ": %q", excerpt.Of([]byte(e.Reason)))
	}
	if e.Settlement != nil && e.Settlement.ErrorReason != "" {
		fmt.Fprintf(&b, " (settlement: %q)", excerpt.Of([]byte(e.Settlement.ErrorReason)))
	}
	if e.Requote != nil {
		b.WriteString("; new quote not paid: ")
		b.WriteString(e.Requote.Error())
	}
	if !e.HeldUntil.IsZero() && e.Amount != nil {
		fmt.Fprintf(&b, "; the payee holds the signed authorization, so its %s stays reserved in the budget until %s",
			usdc.Format(e.Amount), e.HeldUntil.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	return b.String()
}

// RetryableError reports false: an HTTP retry layer must not send the request again, since
// another attempt would meet a new quote and sign a new payment.
func (e *PaymentRejectedError) RetryableError() bool { return false }

// Unwrap returns the reason a new quote was not paid, if any.
func (e *PaymentRejectedError) Unwrap() error { return e.Requote }

// GoString renders e as %#v does, but for a payment ID that is a signature (a Solana
// payer's), which it masks.
func (e *PaymentRejectedError) GoString() string {
	if e == nil {
		return "(*x402.PaymentRejectedError)(nil)"
	}
	type plain PaymentRejectedError
	c := plain(*e)
	c.Payment = c.Payment.masked()
	return goString("PaymentRejectedError", c)
}

// PaymentUnconfirmedError reports a paid request whose outcome is unknown: no answer came (a
// network failure, the context ending), the answer was a 5xx or a redirect, or the answer
// came to a request the transport had sent more than once, or after an attempt of the same
// payment ended in doubt. The server may have settled it: the amount stays counted against
// the budget until resolved (see budget.Budget.Resolve), and ID identifies the payment on
// chain.
type PaymentUnconfirmedError struct {
	// Payment identifies the payment: ID is what to look up on chain.
	Payment
	// Requirements is the accepts entry that was paid.
	Requirements wire.PaymentRequirements
	// StatusCode is the status of the last answer, 0 when none came.
	StatusCode int
	// Reason is the server's reason when its last answer gave one (a new challenge's error
	// field, or a short excerpt of a failure body); any part of the payment is scrubbed.
	Reason string
	// Err is the failure of the last attempt, when it got no answer.
	Err error
}

// Error says the payment's outcome is unknown and names the nonce to look up.
func (e *PaymentUnconfirmedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "x402: outcome of the payment unknown; it may have settled%s", e.shownID())
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, ": status %d", e.StatusCode)
	}
	if e.Reason != "" {
		fmt.Fprintf(&b, ": %q", excerpt.Of([]byte(e.Reason)))
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// RetryableError reports false: an HTTP retry layer must not send the request again, since
// the payment may have settled, and another attempt would sign a new one.
func (e *PaymentUnconfirmedError) RetryableError() bool { return false }

// Unwrap returns the failure of the last attempt.
func (e *PaymentUnconfirmedError) Unwrap() error { return e.Err }

// GoString renders e as %#v does, but for a payment ID that is a signature (a Solana
// payer's), which it masks.
func (e *PaymentUnconfirmedError) GoString() string {
	if e == nil {
		return "(*x402.PaymentUnconfirmedError)(nil)"
	}
	type plain PaymentUnconfirmedError
	c := plain(*e)
	c.Payment = c.Payment.masked()
	return goString("PaymentUnconfirmedError", c)
}

// PaymentSettledError reports a payment the server settled (its receipt says so) without
// delivering the resource: it answered with a redirect or a failure status. The money is
// spent: the amount is committed. The redirect is not followed, since the next hop could ask
// to be paid again.
type PaymentSettledError struct {
	// Payment identifies the settled authorization.
	Payment
	// Requirements is the accepts entry that was paid.
	Requirements wire.PaymentRequirements
	// StatusCode is the status of the answer; 0 for a transport without statuses (an MCP
	// tool error).
	StatusCode int
	// Location is the answer's Location header, for a redirect.
	Location string
	// Receipt is the settlement receipt.
	Receipt *wire.SettleResponse
}

// Error names the status and the settlement transaction.
func (e *PaymentSettledError) Error() string {
	msg := fmt.Sprintf("x402: payment settled (transaction %s) but the answer was status %d", e.Receipt.Transaction, e.StatusCode)
	if e.StatusCode == 0 { // a transport without statuses (Attempt.Answered)
		msg = fmt.Sprintf("x402: payment settled (transaction %s) but the answer was an error", e.Receipt.Transaction)
	}
	if e.Location != "" {
		msg += ", a redirect that was not followed"
	}
	return msg
}

// RetryableError reports false: the payment is spent, and sending the request again would pay
// again.
func (e *PaymentSettledError) RetryableError() bool { return false }

// GoString renders e as %#v does, but for a payment ID that is a signature (a Solana
// payer's), which it masks.
func (e *PaymentSettledError) GoString() string {
	if e == nil {
		return "(*x402.PaymentSettledError)(nil)"
	}
	type plain PaymentSettledError
	c := plain(*e)
	c.Payment = c.Payment.masked()
	return goString("PaymentSettledError", c)
}
