package budgetpg

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/jackc/pgx/v5"

	"github.com/agentapis/sdk/internal/ledger"
)

// usage is what a refused reservation's ledger.Checker reads of a budget, inside the
// transaction that holds the budget's lock: the sums, as the reservation left them (the
// windows moved to its time), and walks, through the index by deadline and, for a window,
// by id from its tail, each stopping at the hold that frees enough. The first error of a walk is kept in
// err, and the walk answers that nothing frees up.
type usage struct {
	ctx    context.Context
	tx     pgx.Tx
	budget int64

	total, refused big.Int // spent plus held; the refused holds that expire
	payee          *big.Int
	payeeRefused   big.Int
	tails, counts  []int64
	sums           []*big.Int
	err            error
}

// errSums reports sums the database returned that are not integers, or windows that are
// not the limits'.
var errSums = errors.New("the budget's sums are not integers, one per window of its limits")

// loadUsage reads the sums of budget id and of payee's account.
func loadUsage(ctx context.Context, tx pgx.Tx, id int64, limits *ledger.Limits, payee string) (*usage, error) {
	u := &usage{ctx: ctx, tx: tx, budget: id}
	var total, refused string
	var sums []string
	err := tx.QueryRow(ctx, "SELECT (spent + held)::text, refused::text, w_tail, w_n, w_sum::text[] FROM x402_budgets WHERE id = $1", id).
		Scan(&total, &refused, &u.tails, &u.counts, &sums)
	if err != nil {
		return nil, err
	}
	ok := setInt(&u.total, total) && setInt(&u.refused, refused)
	for _, s := range sums {
		v := new(big.Int)
		ok = ok && setInt(v, s)
		u.sums = append(u.sums, v)
	}
	var used, payeeRefused string
	switch err := tx.QueryRow(ctx, "SELECT used::text, refused::text FROM x402_budget_payees WHERE budget_id = $1 AND payee = $2",
		id, payee).Scan(&used, &payeeRefused); {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return nil, err
	default:
		u.payee = new(big.Int)
		ok = ok && setInt(u.payee, used) && setInt(&u.payeeRefused, payeeRefused)
	}
	if n := len(limits.Windows); !ok || len(u.sums) != n || len(u.tails) != n || len(u.counts) != n {
		return nil, errSums
	}
	return u, nil
}

// setInt sets v to decimal s and reports whether s was one.
func setInt(v *big.Int, s string) bool {
	_, ok := v.SetString(s, 10)
	return ok
}

// Total returns the spent plus held; see ledger.Usage.
func (u *usage) Total() *big.Int { return &u.total }

// Payee returns the payee's use; see ledger.Usage.
func (u *usage) Payee(string) *big.Int { return u.payee }

// freeingSQL finds the deadline at which the refused holds, by deadline then id, free need
// ($2), through the index by deadline: %s narrows them to a payee.
const freeingSQL = `SELECT deadline FROM (
	SELECT deadline, sum(amount) OVER (ORDER BY deadline, id ROWS UNBOUNDED PRECEDING) AS freed
	FROM x402_budget_holds
	WHERE budget_id = $1 AND state = 2 AND deadline IS NOT NULL%s
	ORDER BY deadline, id) w
WHERE freed >= $2::numeric LIMIT 1`

// The walks by deadline of every refused hold, and of a payee's ($3).
var (
	totalFreeingSQL = fmt.Sprintf(freeingSQL, "")
	payeeFreeingSQL = fmt.Sprintf(freeingSQL, " AND payee = $3")
)

// TotalFreeing walks the refused holds by deadline; see ledger.Usage.
func (u *usage) TotalFreeing(need *big.Int) (int64, bool) {
	if u.refused.Cmp(need) < 0 {
		return 0, false
	}
	return u.walk(totalFreeingSQL, u.budget, need.String())
}

// PayeeFreeing walks the payee's refused holds by deadline; see ledger.Usage.
func (u *usage) PayeeFreeing(payee string, need *big.Int) (int64, bool) {
	if u.payee == nil || u.payeeRefused.Cmp(need) < 0 {
		return 0, false
	}
	return u.walk(payeeFreeingSQL, u.budget, need.String(), payee)
}

// Window returns a window's running sums; see ledger.Usage.
func (u *usage) Window(i int) (int, *big.Int) { return int(u.counts[i]), u.sums[i] }

// Nth walks window i by id from its tail, skipping the released holds; see ledger.Usage.
func (u *usage) Nth(i, n int) (int64, bool) {
	return u.walk(`SELECT reserved_at FROM x402_budget_holds
		WHERE budget_id = $1 AND id >= $2 AND state <> 5
		ORDER BY id OFFSET $3 LIMIT 1`, u.budget, u.tails[i], n-1)
}

// Leaving walks window i by id from its tail, skipping the released holds; see
// ledger.Usage.
func (u *usage) Leaving(i int, need *big.Int) (int64, bool) {
	return u.walk(`SELECT reserved_at FROM (
		SELECT reserved_at, sum(amount) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) AS freed
		FROM x402_budget_holds
		WHERE budget_id = $1 AND id >= $2 AND state <> 5
		ORDER BY id) w
	WHERE freed >= $3::numeric LIMIT 1`, u.budget, u.tails[i], need.String())
}

// walk runs a query returning at most one time; false when it returns none or fails (the
// failure kept in u.err).
func (u *usage) walk(sql string, args ...any) (int64, bool) {
	if u.err != nil {
		return 0, false
	}
	var at int64
	switch err := u.tx.QueryRow(u.ctx, sql, args...).Scan(&at); {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, false
	case err != nil:
		u.err = err
		return 0, false
	}
	return at, true
}
