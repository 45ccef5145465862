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
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// foreignPayee is an address the soak's payer must never pay.
const foreignPayee = "0x000000000000000000000000000000000000bEEF"

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
// fetch n, and remembers which fetch each payment (by nonce) was for.
type soakStore struct {
	f         *x402test.Facilitator
	base      http.Handler // price 100, the shop as payee
	requoted  http.Handler // price 150
	expensive http.Handler // price 1000, above the cap
	foreign   http.Handler // price 100, a foreign payee
	mu        sync.Mutex
	paid      map[string]int // fetch -> paid requests seen
	fetchOf   map[string]int // nonce -> fetch
	// giveUp holds, for each stalled fetch in flight, the cancel of its context: the store
	// calls it once the payment settled, so the client gives up after settlement however
	// slowly the machine runs.
	giveUp map[int]context.CancelFunc
}

func newSoakStore(f *x402test.Facilitator) *soakStore {
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
		return x402test.NewPaywall(f, x402test.PaywallConfig{PayTo: payTo, Amount: big.NewInt(price), MaxTimeoutSeconds: 300, Fault: fault, Settled: settled}, okHandler)
	}
	s.base, s.requoted, s.expensive, s.foreign = paywall(shopAddress, 100), paywall(shopAddress, 150), paywall(shopAddress, 1000), paywall(foreignPayee, 100)
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
			s.fetchOf[fmt.Sprintf("0x%x", p.Payload.Authorization.Nonce)] = n
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

// TestFaultSoak runs 2,000 paid fetches through one payer from 16 goroutines, a tenth of
// them clean and a tenth with each kind of fault, with and without AllowRequote, with the
// budget in memory, in a file and in PostgreSQL, and checks
// the facilitator's ledger: nothing above the cap, nothing to a foreign payee, no fetch
// settled twice, the total within MaxTotal, the budget covering every settlement and never
// counting more as spent than settled, and every failed fetch a typed error.
func TestFaultSoak(t *testing.T) {
	t.Parallel()
	for _, kind := range budgettest.Kinds {
		for _, requote := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/AllowRequote=%t", kind, requote), func(t *testing.T) {
				t.Parallel()
				faultSoak(t, kind, requote)
			})
		}
	}
}

// faultSoak runs the soak of TestFaultSoak with the budget in a store of kind: on the
// default, in memory, the payer's own budget; on another, a budget given with WithBudget.
func faultSoak(t *testing.T, kind budgettest.Kind, requote bool) {
	const fetches, workers, maxTotal = 2000, 16, 120_000
	f := x402test.NewFacilitator()
	store := newSoakStore(f)
	srv := fakeserver.Start(store, fakeserver.Config{}) // its Close ends the stalled requests
	t.Cleanup(srv.Close)
	policy := x402.Policy{MaxPerPayment: big.NewInt(200), MaxTotal: big.NewInt(maxTotal), PayTo: []string{shopAddress}, AllowRequote: requote}
	opts := []x402.PayerOption{x402.WithResend(1, time.Millisecond)}
	if kind != budgettest.Memory {
		opts = append(opts, x402.WithBudget(budgettest.NewBudget(t, kind, policy.MaxTotal)))
		policy.MaxTotal = nil
	}
	payer, _, client := newPayer(t, f, 10_000_000, policy, opts...)

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
	t.Logf("outcomes: %v", outcomes)
	require.Empty(t, untyped, "every failed fetch is a typed error")

	ledger := new(big.Int)
	perFetch := map[int]int{}
	store.mu.Lock()
	for _, st := range f.Settlements() {
		ledger.Add(ledger, st.Value)
		assert.LessOrEqual(t, st.Value.Int64(), int64(200), "no payment above the per-payment cap")
		assert.True(t, strings.EqualFold(st.To, shopAddress), "no payment to a foreign payee")
		fetch, ok := store.fetchOf[st.Nonce]
		require.True(t, ok)
		perFetch[fetch]++
	}
	store.mu.Unlock()
	for fetch, n := range perFetch {
		assert.Equal(t, 1, n, "fetch %d settled more than once", fetch)
	}
	assert.LessOrEqual(t, ledger.Cmp(big.NewInt(maxTotal)), 0, "the total settled stays within MaxTotal")
	counted := new(big.Int).Add(budgettest.Spent(t, payer), budgettest.Reserved(t, payer))
	t.Logf("settled %d payments, %s in all (MaxTotal %d); Spent %s, Reserved %s", len(f.Settlements()), ledger, maxTotal, budgettest.Spent(t, payer), budgettest.Reserved(t, payer))
	assert.GreaterOrEqual(t, counted.Cmp(ledger), 0, "spent plus reserved covers every settlement: %s < %s", counted, ledger)
	assert.LessOrEqual(t, budgettest.Spent(t, payer).Cmp(ledger), 0, "nothing is counted as spent that did not settle")
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
