package reconcile_test

import (
	"context"
	"encoding/hex"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/ledger/ledgertest"
	"github.com/agentapis/sdk/x402/reconcile"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// shopAddress receives the payments of the crash test.
const shopAddress = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

// startShop starts a paywall charging as cfg says (PayTo defaults to shopAddress), in front
// of a handler answering 200, settling with f; it stops when the test ends.
func startShop(t *testing.T, f *x402test.Facilitator, cfg x402test.PaywallConfig) *httptest.Server {
	t.Helper()
	if cfg.PayTo == "" {
		cfg.PayTo = shopAddress
	}
	srv := httptest.NewServer(x402test.NewPaywall(f, cfg, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "the goods")
	})))
	t.Cleanup(srv.Close)
	return srv
}

// payingClient returns an HTTP client paying with a new EVM key funded with funds at f,
// through a payer made with policy and opts. The secret scan sees every payment it sends and
// every error it returns.
func payingClient(t *testing.T, f *x402test.Facilitator, funds int64, policy x402.Policy, opts ...x402.PayerOption) *http.Client {
	t.Helper()
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	scan.Add(hex.EncodeToString(crypto.FromECDSA(key)))
	signer, err := evm.NewPrivateKeySigner(hex.EncodeToString(crypto.FromECDSA(key)))
	require.NoError(t, err)
	f.Fund(signer.Address(), big.NewInt(funds))
	scheme, err := evm.NewExact(signer)
	require.NoError(t, err)
	payer, err := x402.NewPayer(policy, []x402.Scheme{scheme}, opts...)
	require.NoError(t, err)
	return &http.Client{Transport: scanningTransport{payer.RoundTripper(scanningTransport{http.DefaultTransport})}}
}

// scanningTransport hands the secret scan every payment header it sends and every error it
// returns.
type scanningTransport struct{ next http.RoundTripper }

// RoundTrip sends req, recording its payment header and the error.
func (s scanningTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	scan.Add(req.Header.Get(wire.HeaderPaymentSignature), req.Header.Get(wire.HeaderPaymentV1))
	resp, err := s.next.RoundTrip(req)
	scan.Record(err)
	return resp, err
}

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
	f := x402test.NewFacilitator()
	srv := startShop(t, f, x402test.PaywallConfig{Amount: big.NewInt(100), Fault: func(*http.Request) x402test.SettlementFault {
		return faults[paid.Add(1)-1]
	}})
	store := ledgertest.NewReference(nil)
	b, err := budget.New(big.NewInt(1_000), budget.WithStore(store))
	require.NoError(t, err)
	client := payingClient(t, f, 1_000, x402.Policy{}, x402.WithBudget(b), x402.WithResend(0, 0))

	for range 2 {
		resp, err := client.Get(srv.URL + "/report")
		if err == nil {
			resp.Body.Close()
		}
		var unconfirmed *x402.PaymentUnconfirmedError
		require.ErrorAs(t, err, &unconfirmed)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	inFlight := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/report", nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		inFlight <- err
	}()
	require.Eventually(t, func() bool { return len(f.Settlements()) == 2 }, 10*time.Second, 5*time.Millisecond,
		"the third payment settled")

	// The crash: what the store holds now is all the next process finds. The next process
	// runs later, when every authorization has expired: its store and its reconciler read
	// that clock (a budget on a store of its own has the store's clock, so the reconciler is
	// given it too).
	later := sdktest.NewClock(time.Now().Add(time.Hour))
	reopened := store.Reopen(later)
	cancel()
	require.Error(t, <-inFlight)

	next, err := budget.New(big.NewInt(1_000), budget.WithStore(reopened))
	require.NoError(t, err)
	before := budgettest.Outstanding(t, next)
	require.Len(t, before, 3)
	for _, o := range before {
		assert.Equal(t, ledger.InDoubt, o.State, "a payment signed or in doubt before the crash is in doubt after it")
	}
	budgettest.AssertTotals(t, next, 0, 300)

	r, err := reconcile.New(next, reconcile.WithLookup(f), reconcile.WithRate(1000), reconcile.WithClock(later))
	require.NoError(t, err)
	rep, err := r.Reconcile(t.Context())
	require.NoError(t, err)
	require.NoError(t, rep.Err())

	settlements := f.Settlements()
	require.Len(t, settlements, 2)
	want := map[string]string{}
	for _, st := range settlements {
		want[st.ID] = st.TxHash
	}
	require.Len(t, rep.Committed, 2)
	for _, c := range rep.Committed {
		assert.Equal(t, want[c.ID], c.Transaction, "committed with the transaction that settled it")
	}
	require.Len(t, rep.Released, 1)
	assert.NotContains(t, want, rep.Released[0].ID, "the released one never settled")
	assert.Empty(t, rep.Pending)
	budgettest.AssertTotals(t, next, 200, 0)
	assert.Empty(t, budgettest.Outstanding(t, next))
}
