package budgetpg_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/x402/budgetpg"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/ledger/ledgertest"
)

// opener returns a ledgertest.Open that opens a new budget of its own for each test, whose
// database functions read the suite's clock.
func opener(t *testing.T) ledgertest.Open {
	dsn := requireDSN(t)
	return func(t *testing.T, clock sdk.Clock) ledger.Store {
		s, err := budgetpg.Open(t.Context(), dsn, budgetpg.WithName(budgetName(t)))
		require.NoError(t, err)
		budgetpg.SetClock(s, clock)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
}

// reopen closes a store and opens its budget again, as a new process would, on clock.
func reopen(t *testing.T, s ledger.Store, clock sdk.Clock) ledger.Store {
	name := s.(*budgetpg.Store).Name()
	require.NoError(t, s.Close())
	next, err := budgetpg.Open(t.Context(), requireDSN(t), budgetpg.WithName(name))
	require.NoError(t, err)
	budgetpg.SetClock(next, clock)
	t.Cleanup(func() { _ = next.Close() })
	return next
}

func TestStoreConforms(t *testing.T) {
	t.Parallel()
	ledgertest.Run(t, opener(t))
}

func TestStoreReopens(t *testing.T) {
	t.Parallel()
	ledgertest.RunReopen(t, opener(t), reopen)
}

func TestStoreMatchesTheReference(t *testing.T) {
	t.Parallel()
	open := opener(t)
	for seed := range uint64(testenv.Size(2, 4)) {
		ledgertest.Differential(t, open, seed, testenv.Size(500, 1000))
	}
}

func TestStoreMatchesTheReferenceAcrossReopenings(t *testing.T) {
	t.Parallel()
	open := opener(t)
	for seed := range uint64(4) {
		ledgertest.DifferentialReopen(t, open, reopen, seed, testenv.Size(300, 600), 50)
	}
}
