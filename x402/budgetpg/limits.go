package budgetpg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentapis/sdk/internal/ledger"
)

// ErrLimitsDiffer reports a Configure whose limits differ from those the budget was first
// configured with: every process sharing a budget must enforce the same limits, or each
// would let through what another refuses. The error says both.
var ErrLimitsDiffer = errors.New("budgetpg: the budget was configured with other limits")

// limitsForm is the canonical form of ledger.Limits kept with a budget: amounts as decimal
// strings, windows in order, payees sorted (encoding/json sorts map keys).
type limitsForm struct {
	Total      *string           `json:"total,omitempty"`
	PerPayment *string           `json:"per_payment,omitempty"`
	PerPayee   *string           `json:"per_payee,omitempty"`
	Payees     map[string]string `json:"payees,omitempty"`
	Windows    []windowForm      `json:"windows,omitempty"`
}

// windowForm is one window of a limitsForm.
type windowForm struct {
	Length int64   `json:"length_ns"`
	Amount *string `json:"amount,omitempty"`
	Count  int     `json:"count,omitempty"`
}

// decimal returns v in decimal, or nil.
func decimal(v *big.Int) *string {
	if v == nil {
		return nil
	}
	s := v.String()
	return &s
}

// canonical returns the canonical form of l.
func canonical(l *ledger.Limits) string {
	f := limitsForm{Total: decimal(l.Total), PerPayment: decimal(l.PerPayment), PerPayee: decimal(l.PerPayee),
		Payees: make(map[string]string, len(l.Payees))} // omitempty leaves it out when empty
	for k, v := range l.Payees {
		f.Payees[k] = v.String()
	}
	for _, w := range l.Windows {
		f.Windows = append(f.Windows, windowForm{Length: int64(w.Length), Amount: decimal(w.Amount), Count: w.Count})
	}
	b, _ := json.Marshal(f) // strings and numbers only: it cannot fail
	return string(b)
}

// describe says the limits of canonical form c for a person, or returns c when it cannot
// be read.
func describe(c string) string {
	var f limitsForm
	if err := json.Unmarshal([]byte(c), &f); err != nil {
		return c
	}
	var parts []string
	add := func(name string, v *string) {
		if v != nil {
			parts = append(parts, name+" "+*v)
		}
	}
	add("total", f.Total)
	add("per payment", f.PerPayment)
	add("per payee", f.PerPayee)
	for _, p := range slices.Sorted(maps.Keys(f.Payees)) {
		parts = append(parts, "payee "+p+" "+f.Payees[p])
	}
	for _, w := range f.Windows {
		part := "window " + time.Duration(w.Length).String() + ":"
		if w.Amount != nil {
			part += " amount " + *w.Amount
		}
		if w.Count > 0 {
			part += fmt.Sprintf(" %d payments", w.Count)
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return "no limits"
	}
	return strings.Join(parts, ", ")
}

// agree records l as the limits of budget id when it has none yet, and otherwise checks
// that they are the ones it has (ErrLimitsDiffer), under the budget's lock. The first
// Configure of a budget also sets its windows' running sums and its named payees' accounts.
func agree(ctx context.Context, tx pgx.Tx, id int64, name string, l *ledger.Limits) error {
	var stored *string
	if err := tx.QueryRow(ctx, "SELECT limits FROM x402_budgets WHERE id = $1 FOR UPDATE", id).Scan(&stored); err != nil {
		return err
	}
	mine := canonical(l)
	switch {
	case stored != nil && *stored == mine:
		return nil
	case stored != nil:
		return fmt.Errorf("%w: budget %q has %s; this process asked for %s", ErrLimitsDiffer, name, describe(*stored), describe(mine))
	}
	n := len(l.Windows)
	lengths, counts, zeros := make([]int64, n), make([]int64, n), make([]int64, n)
	amounts, sums := make([]*string, n), make([]string, n)
	for i, w := range l.Windows {
		lengths[i], counts[i], amounts[i], sums[i] = int64(w.Length), int64(w.Count), decimal(w.Amount), "0"
	}
	if _, err := tx.Exec(ctx, `UPDATE x402_budgets SET limits = $2, total = $3::numeric, per_payment = $4::numeric,
		per_payee = $5::numeric, w_length = $6, w_amount = $7::numeric[], w_count = $8, w_mark = $9, w_tail = $9,
		w_sum = $10::numeric[], w_n = $9, payee_caps = $11 WHERE id = $1`,
		id, mine, decimal(l.Total), decimal(l.PerPayment), decimal(l.PerPayee), lengths, amounts, counts, zeros, sums,
		l.PerPayee != nil || len(l.Payees) > 0); err != nil {
		return err
	}
	for payee, limit := range l.Payees {
		if _, err := tx.Exec(ctx, "INSERT INTO x402_budget_payees (budget_id, payee, cap) VALUES ($1, $2, $3::numeric)",
			id, payee, limit.String()); err != nil {
			return err
		}
	}
	return nil
}
