package budgetpg_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentapis/sdk/internal/crashtest"
	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/x402/budgetpg"
	"github.com/agentapis/sdk/x402/ledger"
)

// isCrashChild reports whether this test binary runs as a crash test's child, which pays in
// the schema its parent named: TestMain then makes no schema of its own.
func isCrashChild() bool { return crashtest.IsChild() }

// TestCrashPostgresStore kills payers at every point of a payment, at least 200 times with
// SDK_TEST_FULL=1 (30 times otherwise, see crashKills), each round on a budget of its
// own in the tests' schema, and checks after each kill that the database's books cover what
// really settled, and that nothing settled past the budget.
// A store's address is "<budget name> <schema>": the children find the server through
// SDK_TEST_POSTGRES_DSN, as the test does, so that no password travels in an address.
func TestCrashPostgresStore(t *testing.T) {
	t.Parallel()
	if !crashtest.IsChild() {
		requireDSN(t)
	}
	rounds := 0
	crashtest.Run(t, crashtest.Config{
		Kills: crashKills(),
		Open: func(addr string) (ledger.Store, error) {
			name, schema, _ := strings.Cut(addr, " ")
			return budgetpg.Open(context.Background(), withSearchPath(os.Getenv(dsnEnv), schema), budgetpg.WithName(name))
		},
		NewAddr: func(t *testing.T) string {
			rounds++
			return fmt.Sprintf("crash-%d-%d %s", os.Getpid(), rounds, testSchema)
		},
	})
}

// crashKills is the least number of children the crash test kills: 120 at full size
// (testenv.Full), else 30, at least five at each point, so that go test ./... stays quick.
func crashKills() int { return testenv.Size(30, 120) }
