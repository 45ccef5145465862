package budgetpg_test

import (
	"context"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/budgetpg"
	"github.com/agentapis/sdk/x402/ledger"
)

// holderLimits are the limits of the budgets the holder child shares.
var holderLimits = ledger.Limits{Total: big.NewInt(100)}

// holderChild reserves 60 and leaves it reserved, reserves 40 and signs it, prints the two
// holds ("holds R S"), and waits for its standard input to close (or to be killed).
func holderChild(ctx context.Context) error {
	s, err := budgetpg.Open(ctx, os.Getenv(envDSN), budgetpg.WithName(os.Getenv(envBudget)))
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.Configure(ctx, holderLimits); err != nil {
		return err
	}
	reserved, signed := ledger.NewHoldID(), ledger.NewHoldID()
	if err := s.Reserve(ctx, reserved, ledger.Reservation{Amount: big.NewInt(60), PayTo: "0xaa"}); err != nil {
		return err
	}
	if err := s.Reserve(ctx, signed, ledger.Reservation{Amount: big.NewInt(40), PayTo: "0xaa"}); err != nil {
		return err
	}
	if err := s.Sign(ctx, signed, ledger.Signature{ID: "0xchild", Expires: time.Now().Add(time.Hour)}); err != nil {
		return err
	}
	fmt.Printf("holds %s %s\n", reserved, signed)
	waitForStdin(ctx)
	return nil
}

// holder starts a holder child on budget and returns it with its two holds.
func holder(t *testing.T, budget string) (c *child, reserved, signed ledger.HoldID) {
	c = startChild(t, "holder", budget)
	fields := strings.Fields(c.line(t, 30*time.Second))
	require.Len(t, fields, 3, "the child's holds")
	reserved, err := ledger.ParseHoldID(fields[1])
	require.NoError(t, err)
	signed, err = ledger.ParseHoldID(fields[2])
	require.NoError(t, err)
	return c, reserved, signed
}

// openBudget opens budget, configured with limits.
func openBudget(t *testing.T, budget string, limits ledger.Limits) *budgetpg.Store {
	t.Helper()
	s, err := budgetpg.Open(t.Context(), requireDSN(t), budgetpg.WithName(budget))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, s.Configure(t.Context(), limits))
	return s
}

// stateOf returns where hold id stands in s now.
func stateOf(t *testing.T, s *budgetpg.Store, id ledger.HoldID) ledger.State {
	t.Helper()
	st, err := s.HoldState(t.Context(), id)
	require.NoError(t, err)
	return st
}

// A process killed with SIGKILL: its reserved hold is released and its signed one is in
// doubt, by the next store to open; until it died, neither another store's opening nor a
// refusal touched them.
func TestDeadProcessHoldsAreSettledOnOpen(t *testing.T) {
	t.Parallel()
	budget := budgetName(t)
	c, reserved, signed := holder(t, budget)

	alive := openBudget(t, budget, holderLimits)
	assert.Equal(t, ledger.Reserved, stateOf(t, alive, reserved), "a live process's reservation survives another's start")
	assert.Equal(t, ledger.Signed, stateOf(t, alive, signed))
	err := alive.Reserve(t.Context(), ledger.NewHoldID(), ledger.Reservation{Amount: big.NewInt(1)})
	var r *ledger.Refusal
	require.ErrorAs(t, err, &r, "the live child holds the whole total")
	assert.Equal(t, ledger.KindTotal, r.Kind)
	assert.Equal(t, ledger.Reserved, stateOf(t, alive, reserved), "nor does a refusal's sweep release it")
	require.NoError(t, alive.Close())

	c.kill(t)
	require.Eventually(t, func() bool {
		s, err := budgetpg.Open(t.Context(), requireDSN(t), budgetpg.WithName(budget))
		require.NoError(t, err)
		defer s.Close()
		require.NoError(t, s.Configure(t.Context(), holderLimits))
		return stateOf(t, s, reserved) == ledger.Released
	}, 10*time.Second, 50*time.Millisecond, "the dead child's reservation is released by the next store to open")
	after := openBudget(t, budget, holderLimits)
	assert.Equal(t, ledger.InDoubt, stateOf(t, after, signed), "its signed payment is in doubt")
	tot, err := after.Totals(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "40", tot.Held.String())
	assert.Zero(t, tot.Spent.Sign())
}

// A store already open finds a dead process's holds when a reservation is refused for want
// of them.
func TestDeadProcessHoldsAreSettledOnRefusal(t *testing.T) {
	t.Parallel()
	budget := budgetName(t)
	s := openBudget(t, budget, holderLimits)
	c, reserved, signed := holder(t, budget)
	err := s.Reserve(t.Context(), ledger.NewHoldID(), ledger.Reservation{Amount: big.NewInt(60)})
	var r *ledger.Refusal
	require.ErrorAs(t, err, &r)

	c.kill(t)
	require.Eventually(t, func() bool {
		err := s.Reserve(t.Context(), ledger.NewHoldID(), ledger.Reservation{Amount: big.NewInt(60)})
		if err != nil {
			require.ErrorAs(t, err, &r, "only refusals until the child's death is seen")
		}
		return err == nil
	}, 10*time.Second, 50*time.Millisecond, "the dead child's 60 is given back")
	assert.Equal(t, ledger.Released, stateOf(t, s, reserved))
	assert.Equal(t, ledger.InDoubt, stateOf(t, s, signed))
}

// A process that closes its store cleanly is treated the same way: what it reserved and
// never signed is released when the next store opens.
func TestClosedStoreHoldsAreSettledOnOpen(t *testing.T) {
	t.Parallel()
	budget := budgetName(t)
	c, reserved, signed := holder(t, budget)
	require.NoError(t, c.in.Close())
	c.wait(t, 30*time.Second)
	s := openBudget(t, budget, holderLimits)
	assert.Equal(t, ledger.Released, stateOf(t, s, reserved))
	assert.Equal(t, ledger.InDoubt, stateOf(t, s, signed))
}

// When a store's session connection is cut while its process lives, its holds are treated
// as a dead process's: a late Sign of a hold released meanwhile fails, so that nothing is
// sent. The store registers a new session and goes on; the new one is live again.
func TestLostSessionLateSignFails(t *testing.T) {
	t.Parallel()
	budget := budgetName(t)
	a := openBudget(t, budget, ledger.Limits{})
	ctx := t.Context()
	h := ledger.NewHoldID()
	require.NoError(t, a.Reserve(ctx, h, ledger.Reservation{Amount: big.NewInt(5)}))

	var killed bool
	require.NoError(t, admin(t).QueryRow(ctx, `SELECT pg_terminate_backend(s.pid, 10000) FROM x402_budget_sessions s
		JOIN x402_budgets b ON b.id = s.budget_id WHERE b.name = $1`, budget).Scan(&killed))
	require.True(t, killed)
	b := openBudget(t, budget, ledger.Limits{})
	assert.Equal(t, ledger.Released, stateOf(t, b, h), "the cut session's reservation is released")
	err := a.Sign(ctx, h, ledger.Signature{ID: "0xlate", Expires: time.Now().Add(time.Minute)})
	require.ErrorIs(t, err, ledger.ErrNotReserved, "the late Sign fails: nothing may be sent")

	again := ledger.NewHoldID()
	require.NoError(t, a.Reserve(ctx, again, ledger.Reservation{Amount: big.NewInt(5)}), "the store goes on with a new session")
	c := openBudget(t, budget, ledger.Limits{})
	assert.Equal(t, ledger.Reserved, stateOf(t, c, again), "the new session is live: another store's start leaves it alone")
	require.NoError(t, a.Sign(ctx, again, ledger.Signature{ID: "0xagain", Expires: time.Now().Add(time.Minute)}))
}

// orphans returns the number of outstanding holds of budget whose session is registered no
// more: holds no sweep will ever find.
func orphans(t *testing.T, budget string) int {
	t.Helper()
	var n int
	require.NoError(t, admin(t).QueryRow(t.Context(), `SELECT count(*) FROM x402_budget_holds h JOIN x402_budgets b ON b.id = h.budget_id
		WHERE b.name = $1 AND h.state IN (0, 1) AND NOT EXISTS (SELECT 1 FROM x402_budget_sessions s WHERE s.id = h.session_id)`,
		budget).Scan(&n))
	return n
}

// A reservation that waits for the budget's lock while a sweep, holding it, finds the
// reservation's session dead (its connection was cut) and removes it, does not record its
// hold under the removed session, where no sweep would find it again: it sees the session
// gone once it has the lock, and reserves under a new one.
func TestReservationWaitingForTheLockWhileItsSessionIsSwept(t *testing.T) {
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
	require.NoError(t, s.Configure(ctx, ledger.Limits{Total: big.NewInt(100)}))
	db := admin(t)

	tx, err := db.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	var id int64
	require.NoError(t, tx.QueryRow(ctx, "SELECT id FROM x402_budgets WHERE name = $1 FOR UPDATE", budget).Scan(&id))
	hold := ledger.NewHoldID()
	done := make(chan error, 1)
	go func() { done <- s.Reserve(ctx, hold, ledger.Reservation{Amount: big.NewInt(60), PayTo: "0xaa"}) }()
	other := admin(t)
	require.Eventually(t, func() bool {
		var waiting int
		require.NoError(t, other.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = $1 AND wait_event_type = 'Lock' AND query LIKE '%x402_budget_reserve%'`, app).Scan(&waiting))
		return waiting > 0
	}, 10*time.Second, 5*time.Millisecond, "the reservation waits for the budget's lock")

	var killed bool
	require.NoError(t, other.QueryRow(ctx, `SELECT pg_terminate_backend(pid, 10000) FROM x402_budget_sessions WHERE budget_id = $1`,
		id).Scan(&killed))
	require.True(t, killed)
	var swept int
	require.NoError(t, tx.QueryRow(ctx, "SELECT x402_budget_sweep($1, $2)", id, budgetpg.LockClass).Scan(&swept))
	require.Equal(t, 1, swept, "the sweep, holding the lock, removes the cut session")
	require.NoError(t, tx.Commit(ctx))

	require.NoError(t, <-done, "the reservation goes on under a new session")
	assert.Zero(t, orphans(t, budget), "no hold sits under a session no sweep will find")
	assert.Equal(t, ledger.Reserved, stateOf(t, s, hold))
	later := openBudget(t, budget, ledger.Limits{Total: big.NewInt(100)})
	assert.Equal(t, ledger.Reserved, stateOf(t, later, hold), "its session is live: another store's start leaves it alone")
	tot, err := later.Totals(ctx)
	require.NoError(t, err)
	assert.Equal(t, "60", tot.Held.String())
}
