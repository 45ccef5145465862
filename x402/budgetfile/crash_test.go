package budgetfile_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentapis/sdk/internal/crashtest"
	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/x402/budgetfile"
	"github.com/agentapis/sdk/x402/ledger"
)

// TestCrashFileStore kills payers at every point of a payment, at least 200 times with
// SDK_TEST_FULL=1 (30 times otherwise, see crashKills), and checks after each kill
// that the file's books cover what really settled, and that nothing settled past the budget.
func TestCrashFileStore(t *testing.T) {
	t.Parallel()
	var dir string // made by the first round only: a child never makes one
	rounds := 0
	crashtest.Run(t, crashtest.Config{
		Kills: crashKills(),
		Open:  func(path string) (ledger.Store, error) { return budgetfile.Open(path) },
		NewAddr: func(t *testing.T) string {
			if dir == "" {
				dir = t.TempDir()
			}
			rounds++
			return filepath.Join(dir, fmt.Sprintf("round-%d.db", rounds))
		},
	})
}

// crashKills is the least number of children the crash test kills: 120 at full size
// (testenv.Full), else 30, at least five at each point, so that go test ./... stays quick.
func crashKills() int { return testenv.Size(30, 120) }
