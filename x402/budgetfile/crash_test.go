//go:build splitpending

package budgetfile_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentapis/sdk/x402/ledger/crashtest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budgetfile"
)

// TestCrashFileStore kills payers at every point of a payment, at least 200 times, and checks
// after each kill that the file's books cover what really settled, and that nothing settled
// past the budget.
func TestCrashFileStore(t *testing.T) {
	t.Parallel()
	var dir string // made by the first round only: a child never makes one
	rounds := 0
	crashtest.Run(t, crashtest.Config{
		Open: func(path string) (x402.BudgetStore, error) { return budgetfile.Open(path) },
		NewAddr: func(t *testing.T) string {
			if dir == "" {
				dir = t.TempDir()
			}
			rounds++
			return filepath.Join(dir, fmt.Sprintf("round-%d.db", rounds))
		},
	})
}
