package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentapis/sdk/internal/addr"
	"github.com/agentapis/sdk/x402/usdc"
)

// call is what the payment rules know of the tool call a payment is made for.
type call struct {
	tool    string
	session *mcp.ServerSession
	// max is the caller's own ceiling for the call (a tool's max_amount); nil for none.
	max *big.Int
}

// callKey is the context key of the call.
type callKey struct{}

// withCall returns ctx carrying c.
func withCall(ctx context.Context, c *call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// callFrom returns the call ctx carries, or nil.
func callFrom(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

// withMax returns ctx whose call may pay at most maxAmount (dollars, "" for no ceiling of
// its own).
func withMax(ctx context.Context, maxAmount string) (context.Context, error) {
	c := callFrom(ctx)
	if maxAmount == "" || c == nil {
		return ctx, nil
	}
	n, err := usdc.Parse(maxAmount)
	if err != nil {
		return ctx, fmt.Errorf("max_amount: %w", err)
	}
	cc := *c
	cc.max = n
	return withCall(ctx, &cc), nil
}

// payment describes a payment about to be made, for the rules of approve.
type payment struct {
	amount *big.Int
	payTo  string
	host   string
	what   string
}

// LimitRefusal is a payment a rule of the server refused before anything was reserved or
// signed: a per-tool cap, the call's own ceiling, the allowed hosts or payees, or the user
// declining (or being unable) to approve.
type LimitRefusal struct {
	Limit  string
	Reason string
}

// Error says which limit refused, and what it leaves.
func (e *LimitRefusal) Error() string {
	return "refused by the " + e.Limit + ": " + e.Reason + "; nothing was paid"
}

// approve applies the server's own rules to a payment of the current tool call, in order:
// the allowed hosts and payees, the tool's cap, the call's ceiling, then, above the approval
// threshold, the user's approval through MCP elicitation (refused when the client cannot
// ask). The budget's limits are checked by the budget itself.
func (s *Server) approve(ctx context.Context, p payment) error {
	c := callFrom(ctx)
	if c == nil {
		return &LimitRefusal{Limit: "server", Reason: "a payment outside a tool call"}
	}
	l := s.limits
	if len(l.allowedHosts) > 0 && p.host != "" && !listed(l.allowedHosts, p.host) && !listed(s.trustedHosts, p.host) {
		return &LimitRefusal{Limit: "allowed_hosts", Reason: fmt.Sprintf("%s is not an allowed host (%s)", p.host, strings.Join(l.allowedHosts, ", "))}
	}
	if len(l.allowedPayees) > 0 && !slices.ContainsFunc(l.allowedPayees, func(a string) bool { return addr.Same(a, p.payTo) }) {
		return &LimitRefusal{Limit: "allowed_payees", Reason: fmt.Sprintf("payee %s is not an allowed payee", p.payTo)}
	}
	if cap, ok := l.toolCaps[c.tool]; ok && p.amount.Cmp(cap) > 0 {
		return &LimitRefusal{Limit: "tool cap of " + c.tool, Reason: fmt.Sprintf("amount %s is above the %s one call of %s may pay (%s left for this call)",
			usdc.Format(p.amount), usdc.Format(cap), c.tool, usdc.Format(cap))}
	}
	if c.max != nil && p.amount.Cmp(c.max) > 0 {
		return &LimitRefusal{Limit: "max_amount of this call", Reason: fmt.Sprintf("amount %s is above the call's max_amount of %s (%s left for this call)",
			usdc.Format(p.amount), usdc.Format(c.max), usdc.Format(c.max))}
	}
	if l.approveAbove != nil && p.amount.Cmp(l.approveAbove) > 0 {
		return s.askApproval(ctx, c, p)
	}
	return nil
}

// approvalSchema is the form of an approval: one boolean.
var approvalSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"approve": map[string]any{"type": "boolean", "title": "Pay", "description": "true to pay, false to refuse"},
	},
	"required": []string{"approve"},
}

// askApproval asks the user, through the client, whether to make payment p.
func (s *Server) askApproval(ctx context.Context, c *call, p payment) error {
	threshold := usdc.Format(s.limits.approveAbove)
	if c.session == nil {
		return &LimitRefusal{Limit: "approval threshold", Reason: fmt.Sprintf("amount %s is above %s and no client can be asked", usdc.Format(p.amount), threshold)}
	}
	res, err := c.session.Elicit(ctx, &mcp.ElicitParams{
		Message:         fmt.Sprintf("%s wants to pay %s to %s for %s. Pay?", c.tool, usdc.Format(p.amount), p.payTo, p.what),
		RequestedSchema: approvalSchema,
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &LimitRefusal{Limit: "approval threshold", Reason: fmt.Sprintf("amount %s is above %s and the client cannot ask the user (%v)",
			usdc.Format(p.amount), threshold, err)}
	}
	if res.Action == "accept" {
		if ok, _ := res.Content["approve"].(bool); ok {
			s.logger.Info("payment approved by the user", "tool", c.tool, "amount", usdc.Format(p.amount))
			return nil
		}
	}
	return &LimitRefusal{Limit: "approval threshold", Reason: fmt.Sprintf("the user did not approve paying %s (above %s): %s",
		usdc.Format(p.amount), threshold, res.Action)}
}

// errNoWallet is the error of a payment without a wallet for its rail.
var errNoWallet = errors.New("no wallet: set EVM_PRIVATE_KEY (hex) in the server's environment to pay x402 resources")
