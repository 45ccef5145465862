package budgetpg

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/jackc/pgx/v5"

	"github.com/agentapis/sdk/x402/ledger"
)

// usage is what a refused reservation's ledger.Checker reads of a budget, inside the
// transaction that holds the budget's lock: the limits the budget records, the sums as the
// reservation left them (the windows moved to its time), and walks, through the index by
// deadline and, for a window, through the index by reservation time from the window's start,
// each stopping at the hold that frees enough. The first error of a walk is kept in err, and
// the walk answers that nothing frees up.
type usage struct {
	ctx    context.Context
	tx     pgx.Tx
	budget int64
	limits ledger.Limits

	total, refused big.Int // spent plus held; the refused holds that expire
	payee          *big.Int
	payeeRefused   big.Int
	cuts, counts   []int64 // for each window: its reading minus its length; its number of holds
	sums           []*big.Int
	err            error
}

// errSums reports sums the database returned that are not integers, or windows that are
// not the limits'.
var errSums = errors.New("the budget's sums are not integers, one per window of its limits")

// loadUsage reads the limits and sums of budget id and of payTo's account.
func loadUsage(ctx context.Context, tx pgx.Tx, id int64, payTo string) (*usage, error) {
	u := &usage{ctx: ctx, tx: tx, budget: id}
	var limits, total, refused string
	var marks, lengths []int64
	var sums []string
	err := tx.QueryRow(ctx, "SELECT limits, (spent + held)::text, refused::text, w_mark, w_length, w_n, w_sum::text[] FROM x402_budgets WHERE id = $1", id).
		Scan(&limits, &total, &refused, &marks, &lengths, &u.counts, &sums)
	if err != nil {
		return nil, err
	}
	if err := u.limits.UnmarshalJSON([]byte(limits)); err != nil {
		return nil, fmt.Errorf("the budget's recorded limits are unreadable: %w", err)
	}
	ok := setInt(&u.total, total) && setInt(&u.refused, refused)
	for _, s := range sums {
		v := new(big.Int)
		ok = ok && setInt(v, s)
		u.sums = append(u.sums, v)
	}
	var used, payeeRefused string
	switch err := tx.QueryRow(ctx, "SELECT used::text, refused::text FROM x402_budget_payees WHERE budget_id = $1 AND payee = $2",
		id, payTo).Scan(&used, &payeeRefused); {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return nil, err
	default:
		u.payee = new(big.Int)
		ok = ok && setInt(u.payee, used) && setInt(&u.payeeRefused, payeeRefused)
	}
	n := len(u.limits.Windows)
	if !ok || len(u.sums) != n || len(marks) != n || len(lengths) != n || len(u.counts) != n {
		return nil, errSums
	}
	for i := range n {
		u.cuts = append(u.cuts, marks[i]-lengths[i])
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

// freeingSQL finds the deadline at which the refused holds, by deadline then reservation,
// free need ($2), through the index by deadline: %s narrows them to a payee.
const freeingSQL = `SELECT deadline FROM (
	SELECT deadline, sum(amount) OVER (ORDER BY deadline, seq ROWS UNBOUNDED PRECEDING) AS freed
	FROM x402_budget_holds
	WHERE budget_id = $1 AND state = 2 AND deadline IS NOT NULL%s
	ORDER BY deadline, seq) w
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
func (u *usage) PayeeFreeing(payTo string, need *big.Int) (int64, bool) {
	if u.payee == nil || u.payeeRefused.Cmp(need) < 0 {
		return 0, false
	}
	return u.walk(payeeFreeingSQL, u.budget, need.String(), payTo)
}

// Window returns a window's running sums; see ledger.Usage.
func (u *usage) Window(i int) (int, *big.Int) { return int(u.counts[i]), u.sums[i] }

// Nth walks window i by reservation time from its start, skipping the released holds; see
// ledger.Usage.
func (u *usage) Nth(i, n int) (int64, bool) {
	return u.walk(`SELECT reserved_at FROM x402_budget_holds
		WHERE budget_id = $1 AND reserved_at > $2 AND state <> 5
		ORDER BY reserved_at, seq OFFSET $3 LIMIT 1`, u.budget, u.cuts[i], n-1)
}

// Leaving walks window i by reservation time from its start, skipping the released holds;
// see ledger.Usage.
func (u *usage) Leaving(i int, need *big.Int) (int64, bool) {
	return u.walk(`SELECT reserved_at FROM (
		SELECT reserved_at, sum(amount) OVER (ORDER BY reserved_at, seq ROWS UNBOUNDED PRECEDING) AS freed
		FROM x402_budget_holds
		WHERE budget_id = $1 AND reserved_at > $2 AND state <> 5
		ORDER BY reserved_at, seq) w
	WHERE freed >= $3::numeric LIMIT 1`, u.budget, u.cuts[i], need.String())
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
