package reportstore

import (
	"fmt"
	"strings"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402/usdc"
)

// sentinels are the store's own sentinel errors; the store answers without error codes, so
// none is registered.
var sentinels = httpcore.NewSentinels(serviceName)

// ErrConflict matches a 409, which the store does not send; it is [sdk.ErrConflict], as every
// status sentinel here is sdk's.
var ErrConflict = sdk.ErrConflict

// ErrForbidden matches a 403; it is [sdk.ErrForbidden].
var ErrForbidden = sdk.ErrForbidden

// ErrNoChallenge is returned by Quote when the store served the report without asking for
// payment, so there is no price to quote.
var ErrNoChallenge = sentinels.New("the store did not ask for payment")

// ErrNotFound matches a 404, such as the preview of an id the store does not know; it is
// [sdk.ErrNotFound].
var ErrNotFound = sdk.ErrNotFound

// ErrPaymentRequired is matched by a *PaymentRequiredError: the store asked for payment and
// the client had no payer to pay it.
var ErrPaymentRequired = sentinels.New("payment required")

// ErrRateLimited matches every *sdk.RateLimitError: the store answered 429; it is
// [sdk.ErrRateLimited].
var ErrRateLimited = sdk.ErrRateLimited

// ErrUnauthorized matches a 401, which the store, paid through x402, does not send; it is
// [sdk.ErrUnauthorized].
var ErrUnauthorized = sdk.ErrUnauthorized

// ErrUnsupportedFormat is matched by the error of a report request the store answered with
// 400, which its API description reserves for an unsupported format value.
var ErrUnsupportedFormat = sentinels.New("unsupported report format")

// UnsupportedFormatError is the store's 400 answer to a report request: the format value is
// not one it serves. It matches ErrUnsupportedFormat and unwraps to the *sdk.APIError.
type UnsupportedFormatError struct {
	// Format is the value that was sent.
	Format Format
	// Err is the store's response.
	Err *sdk.APIError
}

// Error names the format and quotes the store's answer.
func (e *UnsupportedFormatError) Error() string {
	return fmt.Sprintf("reportstore: unsupported format %q: %v", string(e.Format), e.Err)
}

// Is reports whether target is ErrUnsupportedFormat.
func (e *UnsupportedFormatError) Is(target error) bool { return target == ErrUnsupportedFormat }

// Unwrap returns the store's *sdk.APIError.
func (e *UnsupportedFormatError) Unwrap() error { return e.Err }

// PaymentRequiredError is the store's 402 answer to a purchase made without a payer (no
// WithPayer): nothing was paid. Quote holds the price the store asked, when its challenge
// could be read. It matches ErrPaymentRequired and unwraps to the *sdk.APIError.
type PaymentRequiredError struct {
	// Quote is the store's price for this request; nil when its challenge was unreadable.
	Quote *Quote
	// Err is the store's 402 response.
	Err *sdk.APIError
}

// Error says that payment is required and, when known, how much.
func (e *PaymentRequiredError) Error() string {
	if e.Quote == nil {
		return "reportstore: payment required (no payer configured; use WithPayer): " + e.Err.Error()
	}
	return fmt.Sprintf("reportstore: payment of %s required for %s (no payer configured; use WithPayer)",
		usdc.Format(e.Quote.Amount), e.Err.Path)
}

// Is reports whether target is ErrPaymentRequired.
func (e *PaymentRequiredError) Is(target error) bool { return target == ErrPaymentRequired }

// Unwrap returns the store's *sdk.APIError.
func (e *PaymentRequiredError) Unwrap() error { return e.Err }

// PayeeMismatchError reports a payment challenge whose recipient (payTo) is not the address
// given to WithExpectedPayee. The store pays one fixed address, so another one means a
// misconfigured or impersonated store: nothing was signed and nothing was paid.
type PayeeMismatchError struct {
	// Expected is the address given to WithExpectedPayee.
	Expected string
	// Got lists the other recipients the challenge named.
	Got []string
	// Err is the payer's error when the foreign payee came in the answer to a payment (the
	// store refusing a first payment and asking for another); nil otherwise.
	Err error
}

// Error names both addresses (public addresses, not secrets).
func (e *PayeeMismatchError) Error() string {
	return fmt.Sprintf("reportstore: payment refused: the store asked to pay %s, expected %s",
		strings.Join(e.Got, ", "), e.Expected)
}

// Unwrap returns the payer's error, if any.
func (e *PayeeMismatchError) Unwrap() error { return e.Err }

// invalid returns the *sdk.ValidationError for a refused parameter.
func invalid(field, reason string) error {
	return &sdk.ValidationError{Service: serviceName, Field: field, Reason: reason}
}
