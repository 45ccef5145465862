package budgetpg_test

import (
	"math/big"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/budgetpg"
	"github.com/agentapis/sdk/x402/ledger"
)

// Budgets of other names share the database, not their limits or holds.
func TestBudgetsOfOtherNamesAreApart(t *testing.T) {
	t.Parallel()
	a := openBudget(t, budgetName(t), ledger.Limits{Total: big.NewInt(10)})
	b := openBudget(t, budgetName(t), ledger.Limits{Total: big.NewInt(20)})
	require.NoError(t, a.Reserve(t.Context(), ledger.NewHoldID(), ledger.Reservation{Amount: big.NewInt(10)}))
	require.NoError(t, b.Reserve(t.Context(), ledger.NewHoldID(), ledger.Reservation{Amount: big.NewInt(20)}), "b's total is its own")
	tot, err := a.Totals(t.Context())
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
