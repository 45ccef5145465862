package ledgertest_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/ledger"
	"github.com/agentapis/sdk/internal/ledger/ledgertest"
)

// openReference returns a new reference store.
func openReference(*testing.T) ledger.Store { return ledgertest.NewReference() }

// reopenReference reopens a reference store as a durable store would be.
func reopenReference(t *testing.T, s ledger.Store) ledger.Store {
	r, ok := s.(*ledgertest.Reference)
	require.True(t, ok)
	return r.Reopen()
}

// The reference passes the suite it is the oracle of, so the suite's expectations and the
// reference's scans agree.
func TestReferenceConforms(t *testing.T) {
	t.Parallel()
	ledgertest.Run(t, openReference)
}

func TestReferenceReopens(t *testing.T) {
	t.Parallel()
	ledgertest.RunReopen(t, openReference, reopenReference)
}
