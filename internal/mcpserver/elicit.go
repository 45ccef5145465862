package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/internal/addr"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/usdc"
)

// call is what the payment rules know of the tool call a payment is made for.
type call struct {
	tool    string
	session *mcp.ServerSession
	// max is the caller's own ceiling for the call (a tool's max_amount); nil for none.
	max *big.Int
	// holds are the call's payments in its tool's budget, settled when the call ends.
	mu    sync.Mutex
	holds []*budget.Hold
}

// settle ends the call's holds in its tool's budget once the call returned err: committed
// when the call succeeded or its money may have left (a payment in doubt, refused after it
// was signed, or settled without delivery), released otherwise. A hold whose process dies
// before this is released when the budget reopens: the main budget still counts the payment.
func (c *call) settle(ctx context.Context, logger *slog.Logger, err error) {
	c.mu.Lock()
	holds := c.holds
	c.holds = nil
	c.mu.Unlock()
	ctx = context.WithoutCancel(ctx)
	for _, h := range holds {
		var serr error
		if err == nil || moneyMayHaveLeft(err) {
			serr = h.Commit(ctx)
		} else {
			serr = h.Release(ctx)
		}
		if serr != nil {
			logger.Error("a tool cap's hold could not be settled", "tool", c.tool, "error", serr)
		}
	}
}

// moneyMayHaveLeft reports whether err says a payment was signed and sent, so that the money
// may have moved whatever the call's outcome.
func moneyMayHaveLeft(err error) bool {
	var (
		unconfirmed *x402.PaymentUnconfirmedError
		rejected    *x402.PaymentRejectedError
		settled     *x402.PaymentSettledError
		delivery    *reportstore.DeliveryError
		purchase    *gpuprice.PaymentError
	)
	return errors.As(err, &unconfirmed) || errors.As(err, &rejected) || errors.As(err, &settled) ||
		errors.As(err, &delivery) || errors.As(err, &purchase)
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

// withMax makes ctx's call pay at most maxAmount (dollars, "" for no ceiling of its own).
func withMax(ctx context.Context, maxAmount string) (context.Context, error) {
	c := callFrom(ctx)
	if maxAmount == "" || c == nil {
		return ctx, nil
	}
	n, err := usdc.Parse(maxAmount)
	if err != nil {
		return ctx, fmt.Errorf("max_amount: %w", err)
	}
	c.max = n
	return ctx, nil
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
	// Limit names the rule that refused, such as "tool cap of x402_fetch".
	Limit string
	// Reason says why, with the amounts and what the limit has left.
	Reason string
}

// Error says which limit refused, and what it leaves.
func (e *LimitRefusal) Error() string {
	return "refused by the " + e.Limit + ": " + e.Reason + "; nothing was paid"
}

// approve applies the server's own rules to a payment of the current tool call, in order:
// the allowed hosts and payees, the call's ceiling, above the approval threshold the user's
// approval through MCP elicitation (refused when the client cannot ask), then the tool's cap,
// where the payment is held until the call ends. The budget's limits are checked by the
// budget itself.
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
	if c.max != nil && p.amount.Cmp(c.max) > 0 {
		return &LimitRefusal{Limit: "max_amount of this call", Reason: fmt.Sprintf("amount %s is above the call's max_amount of %s (%s left for this call)",
			usdc.Format(p.amount), usdc.Format(c.max), usdc.Format(c.max))}
	}
	if l.approveAbove != nil && p.amount.Cmp(l.approveAbove) > 0 {
		if err := s.askApproval(ctx, c, p); err != nil {
			return err
		}
	}
	return s.holdForTool(ctx, c, p)
}

// holdForTool reserves payment p in the budget of its tool's cap, if the tool has one.
func (s *Server) holdForTool(ctx context.Context, c *call, p payment) error {
	tb := s.toolBudgets[c.tool]
	if tb == nil {
		return nil
	}
	h, err := tb.Reserve(ctx, ledger.Reservation{Amount: p.amount, PayTo: addr.Canonical(p.payTo), Rail: "tool " + c.tool, Resource: p.what})
	var le *budget.LimitError
	if errors.As(err, &le) {
		return &LimitRefusal{Limit: "tool cap of " + c.tool, Reason: fmt.Sprintf("amount %s, %s left of the %s %s may pay in all",
			usdc.Format(p.amount), usdc.Format(le.Left), usdc.Format(le.Max), c.tool)}
	}
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.holds = append(c.holds, h)
	c.mu.Unlock()
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
