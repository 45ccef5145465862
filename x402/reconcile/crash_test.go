package reconcile_test

import (
	"context"
	"math/big"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/ledger/ledgertest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/reconcile"
	"github.com/agentapis/sdk/x402/x402test"
)

// A process dies with payments in doubt and one in flight; the durable store it kept its
// budget in is reopened by the next process, whose reconciler settles the account against
// the chain (here the facilitator, whose settlements are its chain): what settled is spent,
// what never settled and expired is given back, nothing else.
func TestReconcileAfterACrashResolvesWhatTheCrashLeft(t *testing.T) {
	t.Parallel()
	var paid atomic.Int32
	faults := []x402test.SettlementFault{
		x402test.FaultDropAfterSettle,   // settles; the answer is lost
		x402test.FaultErrorBeforeSettle, // a 503 before settling: in doubt, never settles
		x402test.FaultStallAfterSettle,  // settles; the process dies while it waits
	}
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100), Fault: func(*http.Request) x402test.SettlementFault {
		return faults[paid.Add(1)-1]
	}}, nil)
	store := ledgertest.NewReference()
	budget, err := budget.New(big.NewInt(1_000), budget.WithStore(store))
	require.NoError(t, err)
	_, _, client := newPayer(t, s.f, 1_000, x402.Policy{MaxTotal: budget.Unlimited}, x402.WithBudget(budget), x402.WithResend(0, 0))

	for range 2 {
		_, _, err := get(t, client, s.srv.URL+"/report")
		var unconfirmed *x402.PaymentUnconfirmedError
		require.ErrorAs(t, err, &unconfirmed)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	inFlight := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.srv.URL+"/report", nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		inFlight <- err
	}()
	require.Eventually(t, func() bool { return len(s.f.Settlements()) == 2 }, 10*time.Second, 5*time.Millisecond,
		"the third payment settled")

	// The crash: what the store holds now is all the next process finds.
	reopened := store.Reopen()
	cancel()
	require.Error(t, <-inFlight)

	later := sdktest.NewClock(time.Now().Add(time.Hour)) // every authorization has expired
	next, err := budget.New(big.NewInt(1_000), budget.WithStore(reopened), budget.WithClock(later))
	require.NoError(t, err)
	before := budgettest.Outstanding(t, next)
	require.Len(t, before, 3)
	for _, o := range before {
		assert.Equal(t, ledger.InDoubt, o.State, "a payment signed or in doubt before the crash is in doubt after it")
	}
	totals(t, next, 0, 300)

	r, err := reconcile.New(next, reconcile.WithLookup(s.f), reconcile.WithRate(1000))
	require.NoError(t, err)
	rep, err := r.Reconcile(t.Context())
	require.NoError(t, err)
	require.NoError(t, rep.Err())

	settlements := s.f.Settlements()
	require.Len(t, settlements, 2)
	want := map[string]string{}
	for _, st := range settlements {
		want[st.Nonce] = st.TxHash
	}
	require.Len(t, rep.Committed, 2)
	for _, c := range rep.Committed {
		assert.Equal(t, want[c.ID], c.Transaction, "committed with the transaction that settled it")
	}
	require.Len(t, rep.Released, 1)
	assert.NotContains(t, want, rep.Released[0].ID, "the released one never settled")
	assert.Empty(t, rep.Pending)
	totals(t, next, 200, 0)
	assert.Empty(t, budgettest.Outstanding(t, next))
}
