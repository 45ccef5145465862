package budgetpg_test

import (
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/budgetpg"
	"github.com/agentapis/sdk/x402/ledger"
)

// openOn opens budget name as a new process would, deciding with clock (budgetpg.SetClock),
// and makes a Budget of limit and opts on it; the error is New's.
func openOn(t *testing.T, name string, clock sdk.Clock, limit *big.Int, opts ...budget.Option) (*budget.Budget, error) {
	t.Helper()
	s, err := budgetpg.Open(t.Context(), requireDSN(t), budgetpg.WithName(name))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	budgetpg.SetClock(s, clock)
	return budget.New(limit, append([]budget.Option{budget.WithStore(s)}, opts...)...)
}

// While one process of a fleet holds payments in every state, another records new limits on
// purpose (budget.WithLimitChange): Spent and every hold stay as they are (the live process's
// reservation too), the refused payment still expires at its deadline, and every process,
// the one that configured the old limits included, is held to the new ones from its next
// reservation on, a new payee limit counting what was already spent and held with the
// payee. A process that starts with the old limits, without saying it changes them, fails;
// with the new ones it opens.
func TestLimitChangeOnPurposeKeepsEveryHoldOfTheFleet(t *testing.T) {
	t.Parallel()
	const payee, other = "0x00000000000000000000000000000000000000aa", "0x00000000000000000000000000000000000000bb"
	t0 := time.Date(2031, 3, 4, 5, 6, 0, 0, time.UTC)
	pg := sdktest.NewClock(t0)
	name := budgetName(t)
	ctx := t.Context()
	oldLimit := big.NewInt(1000)
	live, err := openOn(t, name, pg, oldLimit, budget.WithWindowLimit(time.Hour, nil, 100))
	require.NoError(t, err)
	holds := map[ledger.State]*budget.Hold{}
	for i, st := range []ledger.State{ledger.Committed, ledger.Reserved, ledger.Signed, ledger.Refused, ledger.InDoubt, ledger.Released} {
		holds[st] = budgettest.HoldIn(t, live, int64(100-10*i), payee, st, pg) // 100, 90, 80, 70, 60, 50
	}
	const spent, held = 100, 90 + 80 + 70 + 60

	pg.Set(t0.Add(2 * time.Minute)) // the holds are out of the new window of a minute, the refused one not expired
	newLimit := big.NewInt(500)
	newOpts := []budget.Option{budget.WithPayeeLimit(big.NewInt(410)), budget.WithWindowLimit(time.Minute, nil, 3)}
	changer, err := openOn(t, name, pg, newLimit, append(newOpts, budget.WithLimitChange())...)
	require.NoError(t, err, "a change on purpose")
	for who, b := range map[string]*budget.Budget{"the live process": live, "the process that changed the limits": changer} {
		s, h, err := b.Totals(ctx)
		require.NoError(t, err)
		assert.Equal(t, int64(spent), s.Int64(), "%s: Spent stays", who)
		assert.Equal(t, int64(held), h.Int64(), "%s: every hold stays", who)
	}
	for st, h := range holds {
		got, err := h.State(ctx)
		require.NoError(t, err)
		assert.Equal(t, st, got, "a hold %s before the change", st)
	}

	// The payee has 100 spent and 300 held, of 410 now.
	le := budgettest.LimitError(t, live, 11, payee)
	assert.ErrorIs(t, le, budget.ErrPayeeLimitExceeded, "the live process is held to the new payee limit")
	assert.Equal(t, int64(410), le.Max.Int64())
	assert.Equal(t, int64(10), le.Left.Int64())
	_, err = live.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(10), PayTo: payee})
	require.NoError(t, err)
	// 410 of 500 in all; the window of a minute holds three payments, none yet.
	le = budgettest.LimitError(t, changer, 91, other)
	assert.ErrorIs(t, le, budget.ErrBudgetExceeded)
	assert.Equal(t, int64(500), le.Max.Int64())
	for range 2 {
		_, err = live.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(1), PayTo: other})
		require.NoError(t, err)
	}
	le = budgettest.LimitError(t, live, 1, other)
	assert.ErrorIs(t, le, budget.ErrPaymentCountExceeded, "the new window counts from the change on")
	assert.Equal(t, time.Minute, le.Window)

	// The refused payment expires at its deadline, a minute and the margin after t0.
	deadline := t0.Add(time.Minute + ledger.ExpiryMargin)
	pg.Set(deadline)
	_, h, err := live.Totals(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(held+10+2), h.Int64(), "at its deadline the refused payment counts")
	pg.Set(deadline.Add(time.Nanosecond))
	_, h, err = changer.Totals(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(held+10+2-70), h.Int64(), "then it has expired")

	// A silent mismatch fails, naming both; the new limits open.
	_, err = openOn(t, name, pg, oldLimit, budget.WithWindowLimit(time.Hour, nil, 100))
	require.ErrorIs(t, err, ledger.ErrLimitsDiffer)
	assert.Contains(t, err.Error(), "total 500, per payee 410, window 1m0s: 3 payments")
	assert.Contains(t, err.Error(), "total 1000, window 1h0m0s: 100 payments")
	_, err = openOn(t, name, pg, newLimit, newOpts...)
	require.NoError(t, err)
}
