package budgetpg_test

import (
	"testing"

	"github.com/agentapis/sdk/internal/budgettest"
)

// How the tests find their PostgreSQL server: the same variable, and the same rule for a
// missing server, as every other suite that keeps a budget in PostgreSQL (internal/budgettest).

// dsnEnv names the environment variable that gives the tests their PostgreSQL database.
const dsnEnv = budgettest.EnvPostgresDSN

// needServer skips t without a PostgreSQL server, but fails it in CI, where the server must
// be there.
func needServer(t testing.TB) {
	t.Helper()
	budgettest.PostgresDSN(t)
}
