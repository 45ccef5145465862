package budgetpg_test

import (
	"math/big"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/ledger"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budgetpg"
)

// Every process sharing a budget enforces the limits it was first configured with: the same
// limits are accepted, other ones are refused with both sets named.
func TestLimitsAreAgreedByEveryProcess(t *testing.T) {
	t.Parallel()
	budget := budgetName(t)
	limits := ledger.Limits{Total: big.NewInt(1000), PerPayment: big.NewInt(100), PerPayee: big.NewInt(300),
		Payees:  map[string]*big.Int{"0xbb": big.NewInt(50), "0xaa": big.NewInt(70)},
		Windows: []ledger.Window{{Length: time.Minute, Count: 5}, {Length: time.Hour, Amount: big.NewInt(500)}}}
	openBudget(t, budget, limits)
	same := limits.Clone()
	same.Payees = map[string]*big.Int{"0xaa": big.NewInt(70), "0xbb": big.NewInt(50)}
	openBudget(t, budget, same) // the same limits, payees in another order: accepted

	for name, other := range map[string]ledger.Limits{
		"another total":    {Total: big.NewInt(2000), PerPayment: limits.PerPayment, PerPayee: limits.PerPayee, Payees: limits.Payees, Windows: limits.Windows},
		"windows reversed": {Total: limits.Total, PerPayment: limits.PerPayment, PerPayee: limits.PerPayee, Payees: limits.Payees, Windows: []ledger.Window{limits.Windows[1], limits.Windows[0]}},
		"a payee less":     {Total: limits.Total, PerPayment: limits.PerPayment, PerPayee: limits.PerPayee, Payees: map[string]*big.Int{"0xaa": big.NewInt(70)}, Windows: limits.Windows},
		"no limits":        {},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := budgetpg.Open(t.Context(), requireDSN(t), budgetpg.WithName(budget))
			require.NoError(t, err)
			defer s.Close()
			err = s.Configure(t.Context(), other)
			require.ErrorIs(t, err, budgetpg.ErrLimitsDiffer)
			assert.Contains(t, err.Error(), "total 1000, per payment 100, per payee 300, payee 0xaa 70, payee 0xbb 50, "+
				"window 1m0s: 5 payments, window 1h0m0s: amount 500", "the budget's limits")
			_, err = s.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(1), Now: time.Now()})
			require.ErrorIs(t, err, ledger.ErrNotConfigured, "a store refused its limits stays unconfigured")
		})
	}
}

// Through x402: a Budget given other limits than its fleet's fails to be made.
func TestBudgetWithOtherLimitsFails(t *testing.T) {
	t.Parallel()
	budget := budgetName(t)
	first, err := budgetpg.Open(t.Context(), requireDSN(t), budgetpg.WithName(budget))
	require.NoError(t, err)
	defer first.Close()
	_, err = x402.NewBudget(big.NewInt(500), x402.WithStore(first), x402.WithWindowLimit(time.Hour, nil, 10))
	require.NoError(t, err)

	second, err := budgetpg.Open(t.Context(), requireDSN(t), budgetpg.WithName(budget))
	require.NoError(t, err)
	defer second.Close()
	_, err = x402.NewBudget(big.NewInt(600), x402.WithStore(second), x402.WithWindowLimit(time.Hour, nil, 10))
	require.ErrorIs(t, err, budgetpg.ErrLimitsDiffer)
	assert.Contains(t, err.Error(), "total 500, window 1h0m0s: 10 payments")
	assert.Contains(t, err.Error(), "total 600, window 1h0m0s: 10 payments")
}

// Budgets of other names share the database, not their limits or holds.
func TestBudgetsOfOtherNamesAreApart(t *testing.T) {
	t.Parallel()
	a := openBudget(t, budgetName(t), ledger.Limits{Total: big.NewInt(10)})
	b := openBudget(t, budgetName(t), ledger.Limits{Total: big.NewInt(20)})
	_, err := a.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(10), Now: time.Now()})
	require.NoError(t, err)
	_, err = b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(20), Now: time.Now()})
	require.NoError(t, err, "b's total is its own")
	tot, err := a.Totals(t.Context(), time.Now())
	require.NoError(t, err)
	assert.Equal(t, "10", tot.Held.String())
}

// Errors never quote the DSN's password: neither a DSN that cannot be parsed nor a server
// that refuses the password.
func TestErrorsNeverQuoteTheDSN(t *testing.T) {
	t.Parallel()
	const password = "hunter2-secret-pw"
	scan.Add(password)
	for name, dsn := range map[string]string{
		"unparsable URL":    "postgres://sdk:" + password + "@127.0.0.1:notaport/db",
		"unparsable fields": "host=127.0.0.1 password=" + password + " port=x",
	} {
		_, err := budgetpg.Open(t.Context(), dsn)
		require.Error(t, err, name)
		scan.Record(err)
		assert.NotContains(t, err.Error(), password, name)
		assert.Contains(t, err.Error(), "DSN cannot be parsed", name)
	}

	wrong := requireDSN(t) + " user=nobody-here password=" + password
	if u, err := url.Parse(requireDSN(t)); err == nil && u.Scheme != "" {
		u.User = url.UserPassword("nobody-here", password)
		wrong = u.String()
	}
	_, err := budgetpg.Open(t.Context(), wrong)
	require.Error(t, err, "the server refuses an unknown role")
	scan.Record(err)
	assert.NotContains(t, err.Error(), password)
}
