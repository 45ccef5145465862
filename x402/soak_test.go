package x402_test

import (
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/fakeserver"
	"github.com/agentapis/sdk/internal/soaktest"
	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// soakRail is a chain family the soak pays on, and how a payer's scheme is made and funded.
type soakRail struct {
	soaktest.Rail
	// scheme returns the scheme of a new payer funded with funds at f.
	scheme func(t *testing.T, f *x402test.Facilitator, funds int64) x402.Scheme
}

// evmRail pays EVM "exact" on Base.
var evmRail = soakRail{
	Rail: soaktest.EVM(shopAddress),
	scheme: func(t *testing.T, f *x402test.Facilitator, funds int64) x402.Scheme {
		signer := newCountingSigner(t)
		f.Fund(signer.Address(), big.NewInt(funds))
		return exact(t, signer)[0]
	},
}

// solanaRail pays Solana "exact" on mainnet, on the facilitator's own ledger.
func solanaRail() soakRail {
	return soakRail{
		Rail: soaktest.Solana(),
		scheme: func(t *testing.T, f *x402test.Facilitator, funds int64) x402.Scheme {
			wallet := newWallet(t)
			f.Fund(wallet.Address(), big.NewInt(funds))
			scheme, err := svm.NewExact(wallet, solanaNode(t, f))
			require.NoError(t, err)
			return scheme
		},
	}
}

// soakStore is the server of the soak: it sells /item?n=<fetch> at soaktest.Price, with the
// fault of fetch n, and logs which fetch each payment was for.
type soakStore struct {
	log       *soaktest.Log
	base      http.Handler // the price, the shop as payee
	requoted  http.Handler // the requote within the cap
	expensive http.Handler // above the cap
	foreign   http.Handler // the price, a foreign payee
	mu        sync.Mutex
	paid      map[string]int // fetch -> paid requests seen
}

func newSoakStore(f *x402test.Facilitator, rail soakRail) *soakStore {
	s := &soakStore{log: soaktest.NewLog(), paid: map[string]int{}}
	fault := func(r *http.Request) x402test.SettlementFault {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		switch n % 10 {
		case soaktest.ErrorAfterSettle:
			return x402test.FaultErrorAfterSettle
		case soaktest.DropAfterSettle:
			return x402test.FaultDropAfterSettle
		case soaktest.StallAfterSettle:
			return x402test.FaultStallAfterSettle
		}
		return x402test.NoFault
	}
	settled := func(r *http.Request, _ string) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		s.log.Settled(n)
	}
	paywall := func(payTo string, price int64) http.Handler {
		return x402test.NewPaywall(f, x402test.PaywallConfig{PayTo: payTo, Network: rail.Network, Amount: big.NewInt(price), MaxTimeoutSeconds: 300,
			Fault: fault, Settled: settled}, okHandler)
	}
	s.base, s.requoted = paywall(rail.Shop, soaktest.Price), paywall(rail.Shop, soaktest.RequotePrice)
	s.expensive, s.foreign = paywall(rail.Shop, soaktest.ExpensivePrice), paywall(rail.Foreign, soaktest.Price)
	return s
}

func (s *soakStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	key := strconv.Itoa(n)
	payment := r.Header.Get(wire.HeaderPaymentSignature)
	attempt := 0
	if payment != "" {
		s.mu.Lock()
		s.paid[key]++
		attempt = s.paid[key]
		s.mu.Unlock()
		if p, err := wire.DecodePaymentPayload(payment); err == nil {
			s.log.Paid(p, n)
		}
	}
	switch kind := n % 10; {
	case kind == soaktest.ErrorBeforePayment && payment == "":
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	case kind == soaktest.ErrorBeforeSettle && attempt == 1:
		http.Error(w, "overloaded", http.StatusServiceUnavailable) // the payer's re-send is served
	case kind == soaktest.RequoteWithinCap && attempt >= 1:
		s.requoted.ServeHTTP(w, r) // the first payment does not match: a new quote
	case kind == soaktest.RequoteAboveCap && attempt >= 1:
		s.expensive.ServeHTTP(w, r)
	case kind == soaktest.ForeignPayeeFirst:
		s.foreign.ServeHTTP(w, r)
	case kind == soaktest.ForeignPayeeOnRequote && attempt >= 1:
		s.foreign.ServeHTTP(w, r)
	default:
		s.base.ServeHTTP(w, r)
	}
}

// TestFaultSoak runs paid fetches (400; 1,000 with SDK_TEST_FULL=1) through one EVM payer
// from 16 goroutines, a tenth of them clean and a tenth with each kind of fault, with and
// without AllowRequote, with the budget in memory, in a file and in PostgreSQL, and checks
// the facilitator's ledger: nothing above the cap, nothing to a foreign payee, no fetch
// settled twice, the total within MaxTotal, the budget covering every settlement and never
// counting more as spent than settled, and every failed fetch a typed error.
func TestFaultSoak(t *testing.T) {
	t.Parallel()
	for _, kind := range budgettest.Kinds {
		for _, requote := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/AllowRequote=%t", kind, requote), func(t *testing.T) {
				t.Parallel()
				faultSoak(t, evmRail, kind, requote, testenv.Size(400, 1000))
			})
		}
	}
}

// TestFaultSoakOnSolana is TestFaultSoak paid on Solana, settled on the facilitator's own
// ledger: the same faults, the same stores, the same checks. It makes 200 fetches (a Solana
// payment costs more to verify and settle than an EVM one), 500 with SDK_TEST_FULL=1.
func TestFaultSoakOnSolana(t *testing.T) {
	t.Parallel()
	for _, kind := range budgettest.Kinds {
		for _, requote := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/AllowRequote=%t", kind, requote), func(t *testing.T) {
				t.Parallel()
				faultSoak(t, solanaRail(), kind, requote, testenv.Size(200, 500))
			})
		}
	}
}

// faultSoak runs fetches paid fetches on rail with the budget in a store of kind (see
// soaktest.NewPayer).
func faultSoak(t *testing.T, rail soakRail, kind budgettest.Kind, requote bool, fetches int) {
	start := time.Now()
	f := x402test.NewFacilitator()
	store := newSoakStore(f, rail)
	srv := fakeserver.Start(store, fakeserver.Config{}) // its Close ends the stalled requests
	t.Cleanup(srv.Close)
	payer := soaktest.NewPayer(t, rail.Rail, kind, requote, fetches, rail.scheme(t, f, 10_000_000), x402.WithResend(1, time.Millisecond))
	client := scanningClient(payer)

	outcomes, untyped := soaktest.Run(fetches, func(n int) (string, error) { return soakFetch(client, store.log, srv.URL, n) })
	t.Logf("%d fetches on %s in %s; outcomes: %v", fetches, rail.Name, time.Since(start).Round(time.Millisecond), outcomes)
	require.Empty(t, untyped, "every failed fetch is a typed error")
	soaktest.Check(t, f, store.log, rail.Rail, fetches, payer, outcomes)
}

// soakFetch runs fetch n and names its outcome; err is non-nil only for a failure that is not
// one of the payer's typed errors.
func soakFetch(client *http.Client, log *soaktest.Log, base string, n int) (string, error) {
	ctx, cancel := log.Context(n)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/item?n=%d", base, n), nil)
	resp, err := client.Do(req)
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return "ok", nil
		}
		return fmt.Sprintf("unpaid %d", resp.StatusCode), nil // answered before any payment
	}
	if outcome, ok := soaktest.Outcome(err); ok {
		return outcome, nil
	}
	return "untyped", fmt.Errorf("fetch %d: %w", n, err)
}
