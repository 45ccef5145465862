package cli

import (
	"errors"
	"strings"

	"github.com/agentapis/sdk/x402"
)

// Message returns err's text with the USDC amounts of an *x402.PolicyError in its chain
// written in dollars, as x402.FormatUSDC writes every other amount the examples print: the
// policy error names the amount asked and the limit in atomic units ("amount 5000000, limit
// 870000"), which the example's own lines would show as "$5.00" and "$0.87".
func Message(err error) string {
	text := err.Error()
	var pe *x402.PolicyError
	if !errors.As(err, &pe) {
		return text
	}
	if a := pe.Requirements.Amount; a != nil {
		text = strings.Replace(text, "amount "+a.String(), "amount "+x402.FormatUSDC(a), 1)
	}
	if l := pe.Limit; l != nil {
		text = strings.Replace(text, "limit "+l.String(), "limit "+x402.FormatUSDC(l), 1)
	}
	return text
}
