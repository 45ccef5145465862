package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/budgetfile"
	"github.com/agentapis/sdk/x402/budgetpg"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/reconcile"
	"github.com/agentapis/sdk/x402/usdc"
)

// EnvBudgetDSN names the environment variable holding the PostgreSQL DSN of a budget shared
// by several servers; a DSN carries a password, so it is read from the environment only.
const EnvBudgetDSN = "AGENTAPIS_MCP_BUDGET_DSN"

// DefaultBudgetPath returns where the budget file is kept when no other store is given:
// agentapis-mcp/budget.db under the user's configuration folder.
func DefaultBudgetPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("the budget file's default folder: %w (give -budget)", err)
	}
	return filepath.Join(dir, "agentapis-mcp", "budget.db"), nil
}

// openBudget opens the store that Options name (PostgreSQL with a DSN, else the budget file,
// created with its folder when missing) and returns the budget of l over it, with a function
// that closes the store. The policy's limits replace the store's (budget.WithLimitChange): the
// configuration is where limits are set, and every hold and every amount spent stay.
func openBudget(ctx context.Context, o *Options, l *limits) (*budget.Budget, string, func(), error) {
	store, where, err := openStore(ctx, o, "")
	if err != nil {
		return nil, "", nil, err
	}
	opts := []budget.Option{budget.WithStore(store), budget.WithLimitChange(), budget.WithPaymentLimit(l.perPayment)}
	if l.window > 0 {
		opts = append(opts, budget.WithWindowLimit(l.window, l.windowAmount, l.windowPayments))
	}
	if l.perPayee != nil {
		opts = append(opts, budget.WithPayeeLimit(l.perPayee))
	}
	for payee, max := range l.payees {
		opts = append(opts, budget.WithPayeeLimitFor(payee, max))
	}
	b, err := budget.New(l.total, opts...)
	if err != nil {
		store.Close()
		return nil, "", nil, fmt.Errorf("the budget: %w", err)
	}
	return b, where, func() { store.Close() }, nil
}

// openStore opens the store that Options name (PostgreSQL with a DSN, else the budget file,
// created with its folder when missing), or with a suffix the store of the same kind beside
// it: the budget named BudgetName+suffix, or the file BudgetPath+suffix. It also returns where
// the store is.
func openStore(ctx context.Context, o *Options, suffix string) (ledger.Store, string, error) {
	if o.BudgetDSN != "" {
		name := o.BudgetName
		if name == "" {
			name = budgetpg.DefaultName
		}
		pg, err := budgetpg.Open(ctx, o.BudgetDSN, budgetpg.WithName(name+suffix))
		if err != nil {
			return nil, "", fmt.Errorf("the PostgreSQL budget: %w", err)
		}
		return pg, "PostgreSQL budget " + pg.Name(), nil
	}
	path := o.BudgetPath + suffix
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, "", fmt.Errorf("the budget file's folder: %w", err)
	}
	// A restarted server may meet its previous run still closing the file.
	f, err := budgetfile.Open(path, budgetfile.WithWait(10*time.Second))
	if err != nil {
		return nil, "", fmt.Errorf("the budget file: %w", err)
	}
	return f, "budget file " + path, nil
}

// openToolBudgets opens, beside the server's budget, one budget per tool cap of l: what the
// tool has paid in all, durable like the main budget and capped at the tool's cap.
func openToolBudgets(ctx context.Context, o *Options, l *limits) (map[string]*budget.Budget, func(), error) {
	out := map[string]*budget.Budget{}
	var closers []func()
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	for _, tool := range sortedKeys(l.toolCaps) {
		store, _, err := openStore(ctx, o, ".tool."+tool)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("tool cap of %s: %w", tool, err)
		}
		closers = append(closers, func() { store.Close() })
		b, err := budget.New(l.toolCaps[tool], budget.WithStore(store), budget.WithLimitChange())
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("tool cap of %s: %w", tool, err)
		}
		out[tool] = b
	}
	return out, closeAll, nil
}

// Money is an amount of USDC in a tool result: its atomic units (6 decimals) as a decimal
// string, exact at any size, and the same amount written as dollars.
type Money struct {
	Atomic  string `json:"atomic" jsonschema:"the amount in USDC atomic units (1000000 is one dollar)"`
	Dollars string `json:"dollars" jsonschema:"the amount in dollars, such as $5.13"`
}

// money returns n as Money; nil is zero.
func money(n *big.Int) Money {
	if n == nil {
		n = new(big.Int)
	}
	return Money{Atomic: n.String(), Dollars: usdc.Format(n)}
}

// moneyPtr returns n as *Money, nil for nil.
func moneyPtr(n *big.Int) *Money {
	if n == nil {
		return nil
	}
	m := money(n)
	return &m
}

// BudgetIn is the input of budget_status and budget_outstanding: nothing.
type BudgetIn struct{}

// LimitStatus is one limit of the budget and where it stands.
type LimitStatus struct {
	Limit string `json:"limit" jsonschema:"which limit: total, per_payment, window, per_payee, payee, tool_cap or approve_above"`
	// Max is the limit's amount; Left what it has left when the store can say.
	Max  *Money `json:"max,omitempty"`
	Left *Money `json:"left,omitempty"`
	// Payments is the count cap of a window; Window its length; Subject the payee or tool.
	Payments int    `json:"max_payments,omitempty"`
	Window   string `json:"window,omitempty"`
	Subject  string `json:"subject,omitempty"`
	Note     string `json:"note,omitempty"`
}

// BudgetStatus is what budget_status returns.
type BudgetStatus struct {
	Store    string        `json:"store" jsonschema:"where the budget is kept"`
	Spent    Money         `json:"spent" jsonschema:"what settled payments spent, for the life of the budget"`
	Reserved Money         `json:"reserved" jsonschema:"what payments in flight, refused but still usable, or of unknown outcome hold"`
	Left     Money         `json:"left" jsonschema:"what the total limit has left"`
	Limits   []LimitStatus `json:"limits"`
}

// budgetStatus returns the budget's totals and every limit of the policy.
func (s *Server) budgetStatus(ctx context.Context, _ *mcp.CallToolRequest, _ BudgetIn) (BudgetStatus, string, error) {
	spent, reserved, err := s.budget.Totals(ctx)
	if err != nil {
		return BudgetStatus{}, "", err
	}
	left, _, err := s.budget.Left(ctx)
	if err != nil {
		return BudgetStatus{}, "", err
	}
	out := BudgetStatus{Store: s.budgetWhere, Spent: money(spent), Reserved: money(reserved), Left: money(left)}
	l := s.limits
	out.Limits = append(out.Limits,
		LimitStatus{Limit: "total", Max: moneyPtr(l.total), Left: moneyPtr(left)},
		LimitStatus{Limit: "per_payment", Max: moneyPtr(l.perPayment), Note: "the most one payment may be"})
	if l.window > 0 {
		out.Limits = append(out.Limits, LimitStatus{Limit: "window", Max: moneyPtr(l.windowAmount), Payments: l.windowPayments,
			Window: l.window.String(), Note: "counted by the store over the rolling window; a refusal says what is left"})
	}
	if l.perPayee != nil {
		out.Limits = append(out.Limits, LimitStatus{Limit: "per_payee", Max: moneyPtr(l.perPayee), Note: "the most any one payee may receive"})
	}
	for _, payee := range sortedKeys(l.payees) {
		out.Limits = append(out.Limits, LimitStatus{Limit: "payee", Subject: payee, Max: moneyPtr(l.payees[payee])})
	}
	for _, tool := range sortedKeys(l.toolCaps) {
		toolLeft, _, err := s.toolBudgets[tool].Left(ctx)
		if err != nil {
			return BudgetStatus{}, "", err
		}
		out.Limits = append(out.Limits, LimitStatus{Limit: "tool_cap", Subject: tool, Max: moneyPtr(l.toolCaps[tool]), Left: moneyPtr(toolLeft),
			Note: "the most the tool may pay in all"})
	}
	if l.approveAbove != nil {
		out.Limits = append(out.Limits, LimitStatus{Limit: "approve_above", Max: moneyPtr(l.approveAbove), Note: "payments above it ask the user first"})
	}
	text := fmt.Sprintf("spent %s, reserved %s, %s left of %s (%s)", usdc.Format(spent), usdc.Format(reserved),
		usdc.Format(left), usdc.Format(l.total), s.budgetWhere)
	return out, text, nil
}

// OutstandingPayment is a payment the budget still holds.
type OutstandingPayment struct {
	Amount   Money  `json:"amount"`
	PayTo    string `json:"pay_to"`
	Rail     string `json:"rail"`
	Resource string `json:"resource"`
	State    string `json:"state" jsonschema:"reserved, signed, refused or in_doubt"`
	Reserved string `json:"reserved_at"`
	Expires  string `json:"expires,omitempty"`
}

// OutstandingList is what budget_outstanding returns.
type OutstandingList struct {
	Payments []OutstandingPayment `json:"payments"`
	Total    Money                `json:"total"`
}

// budgetOutstanding lists the payments neither settled nor released. Payment identifiers
// (nonces, signatures) are not shown.
func (s *Server) budgetOutstanding(ctx context.Context, _ *mcp.CallToolRequest, _ BudgetIn) (OutstandingList, string, error) {
	held, err := s.budget.Outstanding(ctx)
	if err != nil {
		return OutstandingList{}, "", err
	}
	out := OutstandingList{Payments: []OutstandingPayment{}}
	total := new(big.Int)
	for _, h := range held {
		p := OutstandingPayment{Amount: money(h.Amount), PayTo: h.PayTo, Rail: h.Rail, Resource: h.Resource,
			State: stateName(h.State), Reserved: h.Reserved.UTC().Format(time.RFC3339)}
		if !h.Expires.IsZero() {
			p.Expires = h.Expires.UTC().Format(time.RFC3339)
		}
		out.Payments = append(out.Payments, p)
		total.Add(total, h.Amount)
	}
	out.Total = money(total)
	return out, fmt.Sprintf("%d outstanding payments holding %s", len(out.Payments), usdc.Format(total)), nil
}

// stateName names a hold's state in a tool result.
func stateName(st ledger.State) string {
	switch st {
	case ledger.Reserved:
		return "reserved"
	case ledger.Signed:
		return "signed"
	case ledger.Refused:
		return "refused"
	case ledger.InDoubt:
		return "in_doubt"
	case ledger.Committed:
		return "committed"
	case ledger.Released:
		return "released"
	}
	return "unknown"
}

// ReconcileResult is what budget_reconcile returns.
type ReconcileResult struct {
	Committed int      `json:"committed" jsonschema:"payments found settled and now counted as spent"`
	Released  int      `json:"released" jsonschema:"payments found unsettled after their expiry and given back"`
	Pending   int      `json:"pending" jsonschema:"payments whose outcome is still unknown"`
	Caveats   []string `json:"caveats"`
	Spent     Money    `json:"spent"`
	Reserved  Money    `json:"reserved"`
}

// budgetReconcile looks the outstanding payments up on their rails and settles the books.
func (s *Server) budgetReconcile(ctx context.Context, _ *mcp.CallToolRequest, _ BudgetIn) (ReconcileResult, string, error) {
	if len(s.lookups) == 0 {
		return ReconcileResult{}, "", errors.New("no payment rail can be looked up: give SOLANA_RPC_URL, or run -offline")
	}
	opts := []reconcile.Option{reconcile.WithLogger(s.logger)}
	for _, l := range s.lookups {
		opts = append(opts, reconcile.WithLookup(l))
	}
	r, err := reconcile.New(s.budget, opts...)
	if err != nil {
		return ReconcileResult{}, "", err
	}
	rep, err := r.Reconcile(ctx)
	if err != nil {
		return ReconcileResult{}, "", err
	}
	out := ReconcileResult{Caveats: append([]string{}, rep.Caveats...)}
	out.Committed, out.Released, out.Pending = len(rep.Committed), len(rep.Released), len(rep.Pending)
	spent, reserved, err := s.budget.Totals(ctx)
	if err != nil {
		return ReconcileResult{}, "", err
	}
	out.Spent, out.Reserved = money(spent), money(reserved)
	return out, fmt.Sprintf("reconciled: %d committed, %d released, %d pending; spent %s, reserved %s",
		out.Committed, out.Released, out.Pending, usdc.Format(spent), usdc.Format(reserved)), nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
