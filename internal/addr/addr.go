// Package addr compares the addresses of every chain family the SDK pays on, in one place:
// an EVM address (0x and 40 hex digits) is the same account in any letter case, so its
// canonical form is lower case; a Solana address (base58, whose alphabet has no "0") is
// case-sensitive, so it is kept exactly as written.
package addr

import (
	"strings"

	"github.com/agentapis/sdk/internal/hexstr"
)

// Canonical returns the form in which two addresses of the same account are equal strings:
// an EVM hex address in lower case, anything else as it is.
func Canonical(s string) string {
	if hexstr.IsAddress(s) {
		return strings.ToLower(s)
	}
	return s
}

// Same reports whether a and b are the same account's address.
func Same(a, b string) bool { return Canonical(a) == Canonical(b) }
