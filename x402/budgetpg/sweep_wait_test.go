package budgetpg_test

import (
	"fmt"
	"math/big"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/budgetpg"
	"github.com/agentapis/sdk/x402/ledger"
)

// A reservation waits for the budget's lock while its store's session connection is cut, and
// no sweep runs meanwhile: it gets the lock once the other transaction ends and records its
// hold under the cut session, which is still registered. The hold is never orphaned: it
// counts until a sweep finds the session dead (the next store to open), which releases it, so
// that the late Sign fails and nothing is sent; the store goes on under a new session. (When
// a sweep holding the lock removes the session while the reservation waits, the reservation
// is made under a new session: TestReservationWaitingForTheLockWhileItsSessionIsSwept.)
func TestReservationWaitingForTheLockWhenItsSessionIsCutIsSweptLater(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	budget := budgetName(t)
	u, err := url.Parse(requireDSN(t))
	require.NoError(t, err)
	app := fmt.Sprintf("budgetpg-test-%d", budgets.Add(1)) // so that the test sees its own connections only
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	s, err := budgetpg.Open(ctx, u.String(), budgetpg.WithName(budget))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	limits := ledger.Limits{Total: big.NewInt(100)}
	require.NoError(t, s.Configure(ctx, limits))
	db, other := admin(t), admin(t)

	tx, err := db.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	var id int64
	require.NoError(t, tx.QueryRow(ctx, "SELECT id FROM x402_budgets WHERE name = $1 FOR UPDATE", budget).Scan(&id))
	hold := ledger.NewHoldID()
	done := make(chan error, 1)
	go func() { done <- s.Reserve(ctx, hold, ledger.Reservation{Amount: big.NewInt(60), PayTo: "0xaa"}) }()
	require.Eventually(t, func() bool {
		var waiting int
		require.NoError(t, other.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = $1 AND wait_event_type = 'Lock' AND query LIKE '%x402_budget_reserve%'`, app).Scan(&waiting))
		return waiting > 0
	}, 10*time.Second, 5*time.Millisecond, "the reservation waits for the budget's lock")
	var cut int64
	var killed bool
	require.NoError(t, other.QueryRow(ctx, `SELECT id, pg_terminate_backend(pid, 10000) FROM x402_budget_sessions WHERE budget_id = $1`,
		id).Scan(&cut, &killed))
	require.True(t, killed)
	require.NoError(t, tx.Commit(ctx), "the lock is given up without a sweep")

	require.NoError(t, <-done, "the reservation is recorded")
	var session int64
	require.NoError(t, other.QueryRow(ctx, `SELECT session_id FROM x402_budget_holds WHERE budget_id = $1 AND hold = $2`,
		id, hold[:]).Scan(&session))
	assert.Equal(t, cut, session, "under the cut session, which no sweep has removed yet")
	assert.Zero(t, orphans(t, budget))
	tot, err := s.Totals(ctx)
	require.NoError(t, err)
	assert.Equal(t, "60", tot.Held.String(), "until a sweep finds the session dead, the hold counts")

	later := openBudget(t, budget, limits) // its opening sweeps the dead sessions
	assert.Equal(t, ledger.Released, stateOf(t, later, hold), "the next store to open releases the hold of the cut session")
	assert.Zero(t, orphans(t, budget))
	err = s.Sign(ctx, hold, ledger.Signature{ID: "0xlate", Expires: time.Now().Add(time.Minute)})
	require.ErrorIs(t, err, ledger.ErrNotReserved, "the late Sign fails: nothing may be sent")

	again := ledger.NewHoldID()
	require.NoError(t, s.Reserve(ctx, again, ledger.Reservation{Amount: big.NewInt(100), PayTo: "0xaa"}),
		"the store goes on under a new session, the released 60 given back")
	openBudget(t, budget, limits)
	assert.Equal(t, ledger.Reserved, stateOf(t, later, again), "the new session is live: another store's start leaves it alone")
	assert.Zero(t, orphans(t, budget))
}
