package svm

import sdk "github.com/agentapis/sdk"

// invalid returns the *sdk.ValidationError for field: a configuration or an input the package
// refuses before anything is signed. The message never quotes a key.
func invalid(field, reason string) error {
	return &sdk.ValidationError{Service: "x402", Field: field, Reason: reason}
}
