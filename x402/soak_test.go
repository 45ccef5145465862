package x402_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/fakeserver"
	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// foreignPayee is an address the soak's payer must never pay.
const foreignPayee = "0x000000000000000000000000000000000000bEEF"

// soakRail is a chain family the soak pays on: its payees, its network, and how a payer's
// scheme is made and funded.
type soakRail struct {
	name string
	// shop is the payee the policy allows, foreign one it must never pay.
	shop, foreign string
	// network is the paywall's network ("" for its default, Base).
	network string
	// same compares two payees as the chain family does.
	same func(a, b string) bool
	// scheme returns the scheme of a new payer funded with funds at f.
	scheme func(t *testing.T, f *x402test.Facilitator, funds int64) x402.Scheme
}

// evmRail pays EVM "exact" on Base.
var evmRail = soakRail{
	name: "evm", shop: shopAddress, foreign: foreignPayee, same: strings.EqualFold,
	scheme: func(t *testing.T, f *x402test.Facilitator, funds int64) x402.Scheme {
		signer := &countingSigner{Signer: newSigner(t)}
		f.Fund(signer.Address(), big.NewInt(funds))
		return exact(t, signer)[0]
	},
}

// solanaRail pays Solana "exact" on mainnet, on the facilitator's own ledger.
func solanaRail() soakRail {
	return soakRail{
		name: "solana", shop: newSolanaAddress(), foreign: newSolanaAddress(), network: svm.NetworkMainnet,
		same: func(a, b string) bool { return a == b },
		scheme: func(t *testing.T, f *x402test.Facilitator, funds int64) x402.Scheme {
			wallet := newWallet(t)
			f.Fund(wallet.address(), big.NewInt(funds))
			scheme, err := svm.NewExact(wallet, solanaNode(t, f))
			require.NoError(t, err)
			return scheme
		},
	}
}

// paymentID returns what identifies a payment on its chain, as the payer's budget and the
// facilitator's settlements name it: an EVM authorization's nonce, the payer's signature of a
// Solana transaction.
func paymentID(p *wire.PaymentPayload) (string, bool) {
	if _, network := p.ChosenScheme(); wire.Namespace(network) == "solana" {
		tx, err := svm.DecodeExactPayload(p)
		if err != nil || len(tx.Signatures) < 2 {
			return "", false
		}
		return tx.Signatures[1].String(), true // the fee payer's comes first
	}
	e, err := evm.DecodeExactPayload(p)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("0x%x", e.Authorization.Nonce), true
}

// The faults of the soak, one fetch in ten each; fetch n gets fault n % 10.
const (
	soakClean = iota
	soakErrorBeforePayment
	soakErrorBeforeSettle
	soakErrorAfterSettle
	soakDropAfterSettle
	soakRequoteWithinCap
	soakRequoteAboveCap
	soakForeignPayeeFirst
	soakForeignPayeeOnRequote
	soakStallAfterSettle
)

// soakStore is the server of the soak: it sells /item?n=<fetch> at 100, with the fault of
// fetch n, and remembers which fetch each payment (by its id) was for.
type soakStore struct {
	f         *x402test.Facilitator
	base      http.Handler // price 100, the shop as payee
	requoted  http.Handler // price 150
	expensive http.Handler // price 1000, above the cap
	foreign   http.Handler // price 100, a foreign payee
	mu        sync.Mutex
	paid      map[string]int // fetch -> paid requests seen
	fetchOf   map[string]int // payment id -> fetch
	// giveUp holds, for each stalled fetch in flight, the cancel of its context: the store
	// calls it once the payment settled, so the client gives up after settlement however
	// slowly the machine runs.
	giveUp map[int]context.CancelFunc
}

func newSoakStore(f *x402test.Facilitator, rail soakRail) *soakStore {
	s := &soakStore{f: f, paid: map[string]int{}, fetchOf: map[string]int{}, giveUp: map[int]context.CancelFunc{}}
	fault := func(r *http.Request) x402test.SettlementFault {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		switch n % 10 {
		case soakErrorAfterSettle:
			return x402test.FaultErrorAfterSettle
		case soakDropAfterSettle:
			return x402test.FaultDropAfterSettle
		case soakStallAfterSettle:
			return x402test.FaultStallAfterSettle
		}
		return x402test.NoFault
	}
	settled := func(r *http.Request, _ string) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if n%10 != soakStallAfterSettle {
			return
		}
		s.mu.Lock()
		cancel := s.giveUp[n]
		s.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	}
	paywall := func(payTo string, price int64) http.Handler {
		return x402test.NewPaywall(f, x402test.PaywallConfig{PayTo: payTo, Network: rail.network, Amount: big.NewInt(price), MaxTimeoutSeconds: 300,
			Fault: fault, Settled: settled}, okHandler)
	}
	s.base, s.requoted, s.expensive, s.foreign = paywall(rail.shop, 100), paywall(rail.shop, 150), paywall(rail.shop, 1000), paywall(rail.foreign, 100)
	return s
}

func (s *soakStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	key := strconv.Itoa(n)
	payment := r.Header.Get(wire.HeaderPaymentSignature)
	attempt := 0
	if payment != "" {
		p, err := wire.DecodePaymentPayload(payment)
		s.mu.Lock()
		s.paid[key]++
		attempt = s.paid[key]
		if err == nil {
			if id, ok := paymentID(p); ok {
				s.fetchOf[id] = n
			}
		}
		s.mu.Unlock()
	}
	switch kind := n % 10; {
	case kind == soakErrorBeforePayment && payment == "":
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	case kind == soakErrorBeforeSettle && attempt == 1:
		http.Error(w, "overloaded", http.StatusServiceUnavailable) // the payer's re-send is served
	case kind == soakRequoteWithinCap && attempt >= 1:
		s.requoted.ServeHTTP(w, r) // the first payment does not match: a new quote at 150
	case kind == soakRequoteAboveCap && attempt >= 1:
		s.expensive.ServeHTTP(w, r)
	case kind == soakForeignPayeeFirst:
		s.foreign.ServeHTTP(w, r)
	case kind == soakForeignPayeeOnRequote && attempt >= 1:
		s.foreign.ServeHTTP(w, r)
	default:
		s.base.ServeHTTP(w, r)
	}
}

// soakSize returns how many fetches a soak makes: its full size, 1,000 per store and rail, with
// SDK_TEST_FULL=1, else small, a few seconds per store.
func soakSize(small int) int {
	if testenv.Full() {
		return 1000
	}
	return small
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
				faultSoak(t, evmRail, kind, requote, soakSize(400))
			})
		}
	}
}

// TestFaultSoakOnSolana is TestFaultSoak paid on Solana, settled on the facilitator's own
// ledger: the same faults, the same stores, the same checks. It makes 200 fetches (a Solana
// payment costs more to verify and settle than an EVM one), 1,000 with SDK_TEST_FULL=1.
func TestFaultSoakOnSolana(t *testing.T) {
	t.Parallel()
	for _, kind := range budgettest.Kinds {
		for _, requote := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/AllowRequote=%t", kind, requote), func(t *testing.T) {
				t.Parallel()
				faultSoak(t, solanaRail(), kind, requote, soakSize(200))
			})
		}
	}
}

// faultSoak runs fetches paid fetches on rail with the budget in a store of kind: on the
// default, in memory, the payer's own budget; on another, a budget given with WithBudget.
// The budget allows 60 a fetch (MaxTotal 60,000 for 1,000 fetches): it runs out after about
// half of them.
func faultSoak(t *testing.T, rail soakRail, kind budgettest.Kind, requote bool, fetches int) {
	const workers = 16
	maxTotal := int64(60 * fetches)
	start := time.Now()
	f := x402test.NewFacilitator()
	store := newSoakStore(f, rail)
	srv := fakeserver.Start(store, fakeserver.Config{}) // its Close ends the stalled requests
	t.Cleanup(srv.Close)
	policy := x402.Policy{MaxPerPayment: big.NewInt(200), MaxTotal: big.NewInt(maxTotal), PayTo: []string{rail.shop}, AllowRequote: requote}
	opts := []x402.PayerOption{x402.WithResend(1, time.Millisecond)}
	if kind != budgettest.Memory {
		opts = append(opts, x402.WithBudget(budgettest.NewBudget(t, kind, policy.MaxTotal, nil)))
		policy.MaxTotal = nil
	}
	payer, err := x402.NewPayer(policy, []x402.Scheme{rail.scheme(t, f, 10_000_000)}, opts...)
	require.NoError(t, err)
	client := scanningClient(payer)

	var next atomic.Int64
	var mu sync.Mutex
	outcomes := map[string]int{}
	var untyped []error
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := int(next.Add(1)) - 1
				if n >= fetches {
					return
				}
				outcome, err := soakFetch(client, store, srv.URL, n)
				mu.Lock()
				outcomes[outcome]++
				if err != nil {
					untyped = append(untyped, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d fetches on %s in %s; outcomes: %v", fetches, rail.name, time.Since(start).Round(time.Millisecond), outcomes)
	require.Empty(t, untyped, "every failed fetch is a typed error")

	ledger := new(big.Int)
	perFetch := map[int]int{}
	store.mu.Lock()
	for _, st := range f.Settlements() {
		ledger.Add(ledger, st.Value)
		assert.LessOrEqual(t, st.Value.Int64(), int64(200), "no payment above the per-payment cap")
		assert.True(t, rail.same(st.To, rail.shop), "no payment to a foreign payee")
		fetch, ok := store.fetchOf[st.ID]
		require.True(t, ok)
		perFetch[fetch]++
	}
	store.mu.Unlock()
	for fetch, n := range perFetch {
		assert.Equal(t, 1, n, "fetch %d settled more than once", fetch)
	}
	assert.LessOrEqual(t, ledger.Cmp(big.NewInt(maxTotal)), 0, "the total settled stays within MaxTotal")
	spent, reserved := budgettest.Spent(t, payer), budgettest.Reserved(t, payer)
	counted := new(big.Int).Add(spent, reserved)
	t.Logf("settled %d payments, %s in all (MaxTotal %d); Spent %s, Reserved %s", len(f.Settlements()), ledger, maxTotal, spent, reserved)
	assert.GreaterOrEqual(t, counted.Cmp(ledger), 0, "spent plus reserved covers every settlement: %s < %s", counted, ledger)
	assert.LessOrEqual(t, spent.Cmp(ledger), 0, "nothing is counted as spent that did not settle")
	assert.Positive(t, outcomes["ok"], "some fetches went through")
	assert.Positive(t, outcomes["budget exceeded"], "the budget ran out")
}

// soakFetch runs fetch n and names its outcome; err is non-nil only for a failure that is not
// one of the payer's typed errors.
func soakFetch(client *http.Client, store *soakStore, base string, n int) (string, error) {
	// A generous bound: only the stalled fetches give up, when the store says it settled.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if n%10 == soakStallAfterSettle {
		store.mu.Lock()
		store.giveUp[n] = cancel
		store.mu.Unlock()
		defer func() {
			store.mu.Lock()
			delete(store.giveUp, n)
			store.mu.Unlock()
		}()
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/item?n=%d", base, n), nil)
	resp, err := client.Do(req)
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return "ok", nil
		}
		return fmt.Sprintf("unpaid %d", resp.StatusCode), nil // answered before any payment
	}
	var (
		pe *x402.PolicyError
		nu *x402.NoUsableRequirementsError
		rj *x402.PaymentRejectedError
		uc *x402.PaymentUnconfirmedError
		st *x402.PaymentSettledError
	)
	switch {
	case errors.Is(err, x402.ErrBudgetExceeded):
		return "budget exceeded", nil
	case errors.As(err, &rj):
		return "rejected", nil
	case errors.As(err, &pe):
		return "refused: " + pe.Rule.Error(), nil
	case errors.As(err, &nu):
		return "no usable requirements", nil
	case errors.As(err, &uc):
		return "unconfirmed", nil
	case errors.As(err, &st):
		return "settled without content", nil
	}
	return "untyped", fmt.Errorf("fetch %d: %w", n, err)
}
