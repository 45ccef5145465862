package budgetfile_test

import (
	"math/big"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/budgetfile"
	"github.com/agentapis/sdk/x402/ledger"
)

// A process leaves payments in every state in a budget file; the next one records new limits
// on purpose (budget.WithLimitChange): Spent and every hold stay as the reopening rules leave
// them (the reservation released, the signed payment in doubt, the refused one counting
// until its deadline), and the new limits hold from the next reservation on, a new payee
// limit counting what was already spent and held with the payee. A process that then opens
// the file with the old limits, without saying it changes them, fails; with the new ones it
// opens and finds the same.
func TestLimitChangeOnPurposeKeepsEveryHold(t *testing.T) {
	t.Parallel()
	const payee, other = "0x00000000000000000000000000000000000000aa", "0x00000000000000000000000000000000000000bb"
	t0 := time.Date(2031, 3, 4, 5, 6, 0, 0, time.UTC)
	clock := sdktest.NewClock(t0)
	path := filepath.Join(t.TempDir(), "budget.db")
	ctx := t.Context()
	open := func(limit int64, opts ...budget.Option) (*budgetfile.Store, *budget.Budget, error) {
		t.Helper()
		s, err := budgetfile.Open(path, budgetfile.WithClock(clock))
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		b, err := budget.New(big.NewInt(limit), append([]budget.Option{budget.WithStore(s)}, opts...)...)
		return s, b, err
	}
	oldOpts := []budget.Option{budget.WithWindowLimit(time.Hour, nil, 100)}
	s, b, err := open(1000, oldOpts...)
	require.NoError(t, err)
	ids := map[ledger.State]ledger.HoldID{}
	for i, st := range []ledger.State{ledger.Committed, ledger.Reserved, ledger.Signed, ledger.Refused, ledger.InDoubt, ledger.Released} {
		ids[st] = budgettest.HoldIn(t, b, int64(100-10*i), payee, st, clock).ID() // 100, 90, 80, 70, 60, 50
	}
	require.NoError(t, s.Close())

	clock.Set(t0.Add(2 * time.Minute)) // the holds are out of the new window of a minute, the refused one not expired
	newOpts := []budget.Option{budget.WithPayeeLimit(big.NewInt(410)), budget.WithWindowLimit(time.Minute, nil, 3)}
	s, b, err = open(500, append(newOpts, budget.WithLimitChange())...)
	require.NoError(t, err, "a change on purpose")
	const spent, held = 100, 80 + 70 + 60
	totals := func(wantSpent, wantHeld int64, msg string) {
		t.Helper()
		sp, h, err := b.Totals(ctx)
		require.NoError(t, err)
		assert.Equal(t, wantSpent, sp.Int64(), msg)
		assert.Equal(t, wantHeld, h.Int64(), msg)
	}
	totals(spent, held, "Spent and every hold stay, the reservation released on reopening")
	for st, want := range map[ledger.State]ledger.State{
		ledger.Committed: ledger.Committed, ledger.Reserved: ledger.Released, ledger.Signed: ledger.InDoubt,
		ledger.Refused: ledger.Refused, ledger.InDoubt: ledger.InDoubt, ledger.Released: ledger.Released,
	} {
		got, err := s.HoldState(ctx, ids[st])
		require.NoError(t, err)
		assert.Equal(t, want, got, "a hold %s before the change", st)
	}

	// The payee has 100 spent and 210 held, of 410 now.
	le := budgettest.LimitError(t, b, 101, payee)
	assert.ErrorIs(t, le, budget.ErrPayeeLimitExceeded)
	assert.Equal(t, int64(410), le.Max.Int64())
	assert.Equal(t, int64(100), le.Left.Int64())
	_, err = b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(100), PayTo: payee})
	require.NoError(t, err)
	// 410 of 500 in all; the window of a minute holds three payments, one so far.
	le = budgettest.LimitError(t, b, 91, other)
	assert.ErrorIs(t, le, budget.ErrBudgetExceeded)
	assert.Equal(t, int64(500), le.Max.Int64())
	for range 2 {
		_, err = b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(1), PayTo: other})
		require.NoError(t, err)
	}
	le = budgettest.LimitError(t, b, 1, other)
	assert.ErrorIs(t, le, budget.ErrPaymentCountExceeded, "the new window")
	assert.Equal(t, time.Minute, le.Window)

	deadline := t0.Add(time.Minute + ledger.ExpiryMargin)
	clock.Set(deadline)
	totals(spent, held+100+2, "at its deadline the refused payment counts")
	clock.Set(deadline.Add(time.Nanosecond))
	totals(spent, held+100+2-70, "then it has expired")
	require.NoError(t, s.Close())

	s, _, err = open(1000, oldOpts...)
	require.ErrorIs(t, err, ledger.ErrLimitsDiffer, "a silent mismatch")
	assert.Contains(t, err.Error(), "total 500, per payee 410, window 1m0s: 3 payments")
	assert.Contains(t, err.Error(), "total 1000, window 1h0m0s: 100 payments")
	require.NoError(t, s.Close())
	_, b, err = open(500, newOpts...)
	require.NoError(t, err, "the limits recorded")
	totals(spent, 80+60, "the reservations of the process before released on reopening")
}
