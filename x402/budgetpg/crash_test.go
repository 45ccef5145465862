//go:build splitpending

package budgetpg_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentapis/sdk/x402/ledger/crashtest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budgetpg"
)

// TestCrashPostgresStore kills payers at every point of a payment, at least 200 times, each
// round on a budget of its own in the tests' schema, and checks after each kill that the
// database's books cover what really settled, and that nothing settled past the budget.
// A store's address is "<budget name> <schema>": the children find the server through
// SDK_TEST_POSTGRES_DSN, as the test does, so that no password travels in an address.
func TestCrashPostgresStore(t *testing.T) {
	t.Parallel()
	if !crashtest.IsChild() {
		requireDSN(t)
	}
	rounds := 0
	crashtest.Run(t, crashtest.Config{
		Open: func(addr string) (x402.BudgetStore, error) {
			name, schema, _ := strings.Cut(addr, " ")
			return budgetpg.Open(context.Background(), withSearchPath(os.Getenv(dsnEnv), schema), budgetpg.WithName(name))
		},
		NewAddr: func(t *testing.T) string {
			rounds++
			return fmt.Sprintf("crash-%d-%d %s", os.Getpid(), rounds, testSchema)
		},
	})
}
