package ledgertest_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/ledger/ledgertest"
)

// openReference returns a new reference store.
func openReference(_ *testing.T, clock sdk.Clock) ledger.Store { return ledgertest.NewReference(clock) }

// reopenReference reopens a reference store as a durable store would be.
func reopenReference(t *testing.T, s ledger.Store, clock sdk.Clock) ledger.Store {
	r, ok := s.(*ledgertest.Reference)
	require.True(t, ok)
	return r.Reopen(clock)
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
