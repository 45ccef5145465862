package budgetfile_test

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/x402/budgetfile"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/ledger/ledgertest"
)

// paths are the files of the stores openFile and reopenFile opened.
var paths sync.Map // ledger.Store -> string

// openFile returns a store in a new file of the test's, reading clock.
func openFile(t *testing.T, clock sdk.Clock) ledger.Store {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "budget.db"), clock)
}

// openAt opens the store at path, reading clock, closed on the test's cleanup.
func openAt(t *testing.T, path string, clock sdk.Clock) *budgetfile.Store {
	t.Helper()
	s, err := budgetfile.Open(path, budgetfile.WithClock(clock))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	paths.Store(ledger.Store(s), path)
	return s
}

// reopenFile closes s and opens its file again, as a new process reading clock would.
func reopenFile(t *testing.T, s ledger.Store, clock sdk.Clock) ledger.Store {
	t.Helper()
	path, ok := paths.Load(s)
	require.True(t, ok)
	require.NoError(t, s.Close())
	return openAt(t, path.(string), clock)
}

func TestFileStoreConforms(t *testing.T) {
	t.Parallel()
	ledgertest.Run(t, openFile)
}

func TestFileStoreReopens(t *testing.T) {
	t.Parallel()
	ledgertest.RunReopen(t, openFile, reopenFile)
}

func TestFileStoreMatchesTheReference(t *testing.T) {
	t.Parallel()
	for seed := range uint64(testenv.Size(2, 4)) {
		ledgertest.Differential(t, openFile, seed, testenv.Size(1000, 3000))
	}
}

func TestFileStoreMatchesTheReferenceAcrossReopenings(t *testing.T) {
	t.Parallel()
	for seed := range uint64(4) { // every kind of limit refuses under one of the first four seeds
		ledgertest.DifferentialReopenDecidingAgain(t, openFile, reopenFile, seed, testenv.Size(800, 1500), 50)
	}
}
