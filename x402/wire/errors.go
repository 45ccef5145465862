package wire

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

// RetryableError reports false: an HTTP retry layer must not send the request again, since
// a malformed challenge stays malformed.
func (e *FormatError) RetryableError() bool { return false }

// VerifyError reports a payment payload that does not satisfy its requirements, as a
// facilitator finds it. Reason is the reference facilitator's code for the scheme (the
// Reason constants of packages evm and svm), so a server can return it as is.
type VerifyError struct {
	// Reason is the machine-readable code, such as "invalid_exact_evm_signature".
	Reason string
	// Message explains the failure; it never quotes a signature or a transaction.
	Message string
	// Payer is the paying address when it could be read.
	Payer string
}

// Error returns the code and the explanation.
func (e *VerifyError) Error() string {
	if e.Message == "" {
		return "x402: invalid payment: " + e.Reason
	}
	return "x402: invalid payment: " + e.Reason + ": " + e.Message
}
