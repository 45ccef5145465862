package x402

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/excerpt"
)

// invalid returns the *sdk.ValidationError for field: a configuration the package refuses (a
// malformed private key, a negative cap, an unknown network), found before anything is
// signed or sent. The message never quotes a key.
func invalid(field, reason string) error {
	return &sdk.ValidationError{Service: "x402", Field: field, Reason: reason}
}

// FormatError reports an x402 message that could not be read: a PAYMENT-REQUIRED challenge, a
// PAYMENT-SIGNATURE payload or a PAYMENT-RESPONSE receipt that is not base64 of the expected
// JSON.
type FormatError struct {
	// What names the message: a header name, or "402 body" for a v1 challenge.
	What string
	// Err is the decoding failure.
	Err error
}

// Error names the message and the failure.
func (e *FormatError) Error() string { return "x402: malformed " + e.What + ": " + e.Err.Error() }

// Unwrap returns the decoding failure.
func (e *FormatError) Unwrap() error { return e.Err }

// Sentinels for the policy rules, matched with errors.Is against a *PolicyError.
var (
	// ErrAmountOverCap reports a price above Policy.MaxPerPayment, or above the budget's
	// WithPaymentLimit.
	ErrAmountOverCap = errors.New("x402: amount above the per-payment cap")
	// ErrBudgetExceeded reports a payment that would take the total past Policy.MaxTotal
	// (the Budget's limit).
	ErrBudgetExceeded = errors.New("x402: payment would exceed the total budget")
	// ErrWindowExceeded reports a payment that would take the amount reserved in a rolling
	// window past its bound (WithWindowLimit).
	ErrWindowExceeded = errors.New("x402: payment would exceed the amount allowed in a rolling window")
	// ErrPaymentCountExceeded reports a payment that would take the number of payments in a
	// rolling window past its bound (WithWindowLimit).
	ErrPaymentCountExceeded = errors.New("x402: payment would exceed the number of payments allowed in a rolling window")
	// ErrPayeeLimitExceeded reports a payment that would take what a payee gets past its
	// bound (WithPayeeLimit, WithPayeeLimitFor).
	ErrPayeeLimitExceeded = errors.New("x402: payment would exceed what the payee may get")
	// ErrPayToNotAllowed reports a recipient that is not in Policy.PayTo.
	ErrPayToNotAllowed = errors.New("x402: recipient not in the allowed list")
	// ErrNotApproved reports a quote the Policy.Approve hook refused.
	ErrNotApproved = errors.New("x402: payment not approved")
	// ErrOriginNotAllowed reports a payment asked for by an origin the request was
	// redirected to, which Policy.RedirectOrigins does not list.
	ErrOriginNotAllowed = errors.New("x402: payment asked for after a redirect to another origin")
)

// PolicyError reports a payment the policy or the budget refused. Nothing was signed.
type PolicyError struct {
	// Rule is the sentinel of the rule that refused: ErrAmountOverCap, ErrBudgetExceeded,
	// ErrWindowExceeded, ErrPaymentCountExceeded, ErrPayeeLimitExceeded,
	// ErrPayToNotAllowed, ErrNotApproved or ErrOriginNotAllowed.
	Rule error
	// Origin is the origin that asked for payment (ErrOriginNotAllowed only).
	Origin string
	// Requirements is the accepts entry that was refused; for a refusal of the budget on
	// another rail, its Amount and PayTo only.
	Requirements PaymentRequirements
	// Limit is the cap (ErrAmountOverCap), or what the limit had left (ErrBudgetExceeded,
	// ErrWindowExceeded and ErrPayeeLimitExceeded: atomic units; ErrPaymentCountExceeded: a
	// number of payments); nil for the other rules.
	Limit *big.Int
	// Window is the length of the rolling window that refused (ErrWindowExceeded,
	// ErrPaymentCountExceeded).
	Window time.Duration
	// RetryAt is when enough frees up under the limit for this payment, if nothing else
	// happens: the oldest payments leave the window, or refused authorizations expire. Zero
	// when only a release or a resolution can free enough, or nothing can.
	RetryAt time.Time
	// Cause is the error the Approve hook returned (ErrNotApproved only).
	Cause error
}

// RetryableError reports false: an HTTP retry layer must not send the request again, since
// a malformed challenge stays malformed.
func (e *FormatError) RetryableError() bool { return false }

// Error names the rule, the amount and the limit.
func (e *PolicyError) Error() string {
	var b strings.Builder
	b.WriteString(e.Rule.Error())
	if e.Requirements.Amount != nil {
		fmt.Fprintf(&b, ": amount %s", FormatUSDC(e.Requirements.Amount))
	}
	switch {
	case e.Limit != nil && errors.Is(e.Rule, ErrPaymentCountExceeded):
		fmt.Fprintf(&b, ", payments left %s", e.Limit)
	case e.Limit != nil:
		fmt.Fprintf(&b, ", limit %s", FormatUSDC(e.Limit))
	}
	if e.Window > 0 {
		fmt.Fprintf(&b, ", window %s", e.Window)
	}
	if errors.Is(e.Rule, ErrPayToNotAllowed) || errors.Is(e.Rule, ErrPayeeLimitExceeded) {
		fmt.Fprintf(&b, ", payTo %s", e.Requirements.PayTo)
	}
	if !e.RetryAt.IsZero() {
		fmt.Fprintf(&b, ", enough frees up at %s", e.RetryAt.UTC().Format(time.RFC3339Nano))
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

// Unwrap returns the rule's sentinel and the hook's error, so errors.Is matches either.
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
	// Nonce is the EIP-3009 nonce of the authorization, 0x hex: its identifier on chain,
	// and its Signature.ID in the budget.
	Nonce string
	// Payer is the paying address.
	Payer string
	// Network is the chain, in CAIP-2 form (such as "eip155:8453").
	Network string
	// PayTo is the recipient.
	PayTo string
	// Amount is the amount authorized, in atomic units.
	Amount *big.Int
	// Resource is the URL paid for, without its query.
	Resource string
}

// clone returns a copy of p that shares nothing with it.
func (p *Payment) clone() Payment {
	c := *p
	if p.Amount != nil {
		c.Amount = new(big.Int).Set(p.Amount)
	}
	return c
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
	Requirements PaymentRequirements
	// StatusCode is the status of the server's answer (402, or another 4xx).
	StatusCode int
	// Reason is the error field of the server's new challenge, such as
	// "invalid_exact_evm_payload_authorization_valid_after", or a short excerpt of the body of
	// another failure status; any part of the payment is scrubbed from it.
	Reason string
	// Settlement is the server's PAYMENT-RESPONSE receipt, when it sent one (usually with
	// Success false and an ErrorReason).
	Settlement *SettleResponse
	// Requote is why the server's new quote was not paid, when Policy.AllowRequote is set.
	Requote error
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
	return b.String()
}

// RetryableError reports false: an HTTP retry layer must not send the request again, since
// another attempt would meet a new quote and sign a new payment.
func (e *PaymentRejectedError) RetryableError() bool { return false }

// Unwrap returns the reason a new quote was not paid, if any.
func (e *PaymentRejectedError) Unwrap() error { return e.Requote }

// PaymentUnconfirmedError reports a paid request whose outcome is unknown: no answer came (a
// network failure, the context ending), the answer was a 5xx or a redirect, or the answer
// came to a request the transport had sent more than once, or after an attempt of the same
// payment ended in doubt. The server may have settled it: the amount stays counted against
// the budget until resolved (see Budget.Resolve), and Nonce identifies the authorization on
// chain.
type PaymentUnconfirmedError struct {
	// Payment identifies the authorization: Nonce is what to look up on chain.
	Payment
	// Requirements is the accepts entry that was paid.
	Requirements PaymentRequirements
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
	fmt.Fprintf(&b, "x402: outcome of the payment unknown; it may have settled (nonce %s)", e.Nonce)
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

// PaymentSettledError reports a payment the server settled (its receipt says so) without
// delivering the resource: it answered with a redirect or a failure status. The money is
// spent: the amount is committed. The redirect is not followed, since the next hop could ask
// to be paid again.
type PaymentSettledError struct {
	// Payment identifies the settled authorization.
	Payment
	// Requirements is the accepts entry that was paid.
	Requirements PaymentRequirements
	// StatusCode is the status of the answer.
	StatusCode int
	// Location is the answer's Location header, for a redirect.
	Location string
	// Receipt is the settlement receipt.
	Receipt *SettleResponse
}

// Error names the status and the settlement transaction.
func (e *PaymentSettledError) Error() string {
	msg := fmt.Sprintf("x402: payment settled (transaction %s) but the answer was status %d", e.Receipt.Transaction, e.StatusCode)
	if e.Location != "" {
		msg += ", a redirect that was not followed"
	}
	return msg
}

// RetryableError reports false: the payment is spent, and sending the request again would pay
// again.
func (e *PaymentSettledError) RetryableError() bool { return false }

// VerifyError reports a payment payload that does not satisfy its requirements. Reason is the
// reference facilitator's code (see the Reason constants), so a server can return it as is.
type VerifyError struct {
	// Reason is the machine-readable code, such as ReasonInvalidSignature.
	Reason string
	// Message explains the failure; it never quotes the signature.
	Message string
	// Payer is the authorization's from address when it could be read.
	Payer string
}

// Error returns the code and the explanation.
func (e *VerifyError) Error() string {
	if e.Message == "" {
		return "x402: invalid payment: " + e.Reason
	}
	return "x402: invalid payment: " + e.Reason + ": " + e.Message
}
