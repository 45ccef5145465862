package budgetpg

import (
	"context"
	"fmt"
	"maps"
	"math/big"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/agentapis/sdk/x402/ledger"
)

// recorded returns the limits budget id recorded, nil when it has none yet, and locks its row
// until tx ends.
func recorded(ctx context.Context, tx pgx.Tx, id int64) (*ledger.Limits, error) {
	var text *string
	if err := tx.QueryRow(ctx, "SELECT limits FROM x402_budgets WHERE id = $1 FOR UPDATE", id).Scan(&text); err != nil {
		return nil, err
	}
	if text == nil {
		return nil, nil
	}
	var l ledger.Limits
	if err := l.UnmarshalJSON([]byte(*text)); err != nil {
		return nil, fmt.Errorf("the budget's recorded limits are unreadable: %w", err)
	}
	return &l, nil
}

// setLimits records l as the limits of budget id, whose recorded limits were old (nil:
// none), and makes its running sums again at the time now gives (nil: the server's clock).
func setLimits(ctx context.Context, tx pgx.Tx, id int64, old *ledger.Limits, l ledger.Limits, now *int64) error {
	text, err := l.MarshalJSON()
	if err != nil {
		return err
	}
	n := len(l.Windows)
	lengths, counts, amounts := make([]int64, n), make([]int64, n), make([]*string, n)
	for i, w := range l.Windows {
		lengths[i], counts[i], amounts[i] = int64(w.Length), int64(w.Count), decimal(w.Amount)
	}
	payees := append([]string{}, slices.Sorted(maps.Keys(l.Payees))...)
	caps := make([]string, len(payees))
	for i, p := range payees {
		caps[i] = l.Payees[p].String()
	}
	changed := old == nil || !(ledger.Limits{PerPayee: old.PerPayee, Payees: old.Payees}).Equal(ledger.Limits{PerPayee: l.PerPayee, Payees: l.Payees})
	_, err = tx.Exec(ctx, `SELECT x402_budget_set_limits($1, $2, $3::numeric, $4::numeric, $5::numeric, $6, $7::numeric[], $8,
		$9::text[], $10::numeric[], $11, $12)`,
		id, string(text), decimal(l.Total), decimal(l.PerPayment), decimal(l.PerPayee), lengths, amounts, counts,
		payees, caps, changed, now)
	return err
}

// decimal returns v in decimal, or nil.
func decimal(v *big.Int) *string {
	if v == nil {
		return nil
	}
	s := v.String()
	return &s
}
