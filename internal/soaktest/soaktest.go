// Package soaktest holds what the x402 fault soaks share, the one over HTTP (x402) and the one
// over MCP (x402/mcppay): the faults, one fetch in ten each; the rails they pay on; the
// server's log of which fetch each payment was for; the workers that run the fetches and name
// their outcomes; and the checks of the facilitator's settlements against the policy and the
// budget.
package soaktest

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// The faults of a soak, one fetch in ten each; fetch n gets fault n % 10.
const (
	Clean = iota
	ErrorBeforePayment
	ErrorBeforeSettle
	ErrorAfterSettle
	DropAfterSettle
	RequoteWithinCap
	RequoteAboveCap
	ForeignPayeeFirst
	ForeignPayeeOnRequote
	StallAfterSettle
)

// The prices of a soak: every fetch costs Price, a requote within the cap RequotePrice, one
// above it ExpensivePrice; the policy allows MaxPerPayment a payment and PerFetch a fetch in
// all, so that the budget runs out after about half of the fetches.
const (
	Price          = 100
	RequotePrice   = 150
	ExpensivePrice = 1000
	MaxPerPayment  = 200
	PerFetch       = 60
)

// workers is how many goroutines a soak fetches from.
const workers = 16

// ForeignEVM is an EVM address the soak's payer must never pay.
const ForeignEVM = "0x000000000000000000000000000000000000bEEF"

// Rail is a chain family a soak pays on: the payee the policy allows, a foreign one it must
// never pay, the offers' network ("" for the paywall's default, Base), and how the family
// compares two payees.
type Rail struct {
	Name          string
	Shop, Foreign string
	Network       string
	Same          func(a, b string) bool
}

// EVM returns the rail of EVM "exact" on Base, paying shop.
func EVM(shop string) Rail {
	return Rail{Name: "evm", Shop: shop, Foreign: ForeignEVM, Same: strings.EqualFold}
}

// Solana returns the rail of Solana "exact" on mainnet, paying a new wallet.
func Solana() Rail {
	return Rail{Name: "solana", Shop: newSolanaAddress(), Foreign: newSolanaAddress(), Network: svm.NetworkMainnet,
		Same: func(a, b string) bool { return a == b }}
}

// newSolanaAddress returns the address of a new Solana wallet, base58.
func newSolanaAddress() string { return solana.NewWallet().PublicKey().String() }

// NewPayer returns the payer of a soak of fetches on rail, paying with scheme, with the budget
// in a store of kind: on the default, in memory, the payer's own budget; on another, a budget
// given with WithBudget. The policy allows MaxPerPayment a payment, PerFetch a fetch in all,
// rail's shop as the only payee, and a requote when requote is set.
func NewPayer(t testing.TB, rail Rail, kind budgettest.Kind, requote bool, fetches int, scheme x402.Scheme, opts ...x402.PayerOption) *x402.Payer {
	t.Helper()
	policy := x402.Policy{MaxPerPayment: big.NewInt(MaxPerPayment), MaxTotal: big.NewInt(MaxTotal(fetches)), PayTo: []string{rail.Shop}, AllowRequote: requote}
	if kind != budgettest.Memory {
		opts = append(opts, x402.WithBudget(budgettest.NewBudget(t, kind, policy.MaxTotal, nil)))
		policy.MaxTotal = nil
	}
	payer, err := x402.NewPayer(policy, []x402.Scheme{scheme}, opts...)
	require.NoError(t, err)
	return payer
}

// MaxTotal returns the total a soak of fetches may spend.
func MaxTotal(fetches int) int64 { return int64(PerFetch * fetches) }

// PaymentID returns what identifies a payment on its chain, as the payer's budget and the
// facilitator's settlements name it: an EVM authorization's nonce, the payer's signature of a
// Solana transaction.
func PaymentID(p *wire.PaymentPayload) (string, bool) {
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

// Log is what a soak's server saw: which fetch each payment (by its id) was for and what it
// carried; and, for each stalled fetch in flight, the cancel of its context, which the server
// calls once the payment settled, so that the client gives up after settlement however slowly
// the machine runs.
type Log struct {
	mu       sync.Mutex
	fetchOf  map[string]int
	received map[string]*big.Int
	giveUp   map[int]context.CancelFunc
}

// NewLog returns an empty log.
func NewLog() *Log {
	return &Log{fetchOf: map[string]int{}, received: map[string]*big.Int{}, giveUp: map[int]context.CancelFunc{}}
}

// Paid records that payment p arrived for fetch n.
func (l *Log) Paid(p *wire.PaymentPayload, n int) {
	id, ok := PaymentID(p)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fetchOf[id] = n
	l.received[id] = p.Accepted.Amount
}

// Received returns the total of the payments that arrived.
func (l *Log) Received() *big.Int {
	l.mu.Lock()
	defer l.mu.Unlock()
	sum := new(big.Int)
	for _, amount := range l.received {
		sum.Add(sum, amount)
	}
	return sum
}

// Context returns the context of fetch n, bound to a generous 30 seconds: only the stalled
// fetches give up, when Settled says their payment settled. Its cancel ends it.
func (l *Log) Context(n int) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	if n%10 != StallAfterSettle {
		return ctx, cancel
	}
	l.mu.Lock()
	l.giveUp[n] = cancel
	l.mu.Unlock()
	return ctx, func() {
		l.mu.Lock()
		delete(l.giveUp, n)
		l.mu.Unlock()
		cancel()
	}
}

// Settled tells the log that the payment of fetch n settled: a stalled fetch gives up.
func (l *Log) Settled(n int) {
	if n%10 != StallAfterSettle {
		return
	}
	l.mu.Lock()
	cancel := l.giveUp[n]
	l.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Run makes fetches 0 to fetches-1 with fetch from 16 goroutines and counts their outcomes by
// name; untyped holds the errors fetch returned, those of the failures that are not typed.
func Run(fetches int, fetch func(n int) (string, error)) (outcomes map[string]int, untyped []error) {
	var next atomic.Int64
	var mu sync.Mutex
	outcomes = map[string]int{}
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
				outcome, err := fetch(n)
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
	return outcomes, untyped
}

// Outcome names the outcome of a fetch that failed with err, one of the payer's typed errors;
// ok is false when err is none of them.
func Outcome(err error) (name string, ok bool) {
	var (
		pe *x402.PolicyError
		nu *x402.NoUsableRequirementsError
		rj *x402.PaymentRejectedError
		uc *x402.PaymentUnconfirmedError
		st *x402.PaymentSettledError
	)
	switch {
	case errors.Is(err, x402.ErrBudgetExceeded):
		return "budget exceeded", true
	case errors.As(err, &rj):
		return "rejected", true
	case errors.As(err, &pe):
		return "refused: " + pe.Rule.Error(), true
	case errors.As(err, &nu):
		return "no usable requirements", true
	case errors.As(err, &uc):
		return "unconfirmed", true
	case errors.As(err, &st):
		return "settled without content", true
	}
	return "", false
}

// Check checks a soak of fetches on rail once its fetches are done: the settlements of f hold
// nothing above MaxPerPayment, nothing to a payee other than the rail's shop, no fetch settled
// twice (by log) and in all no more than the soak's MaxTotal; payer counts as spent and
// reserved at least what settled and as spent no more; some fetches went through and the
// budget ran out. It returns the total settled and payer's spent and reserved figures.
func Check(t *testing.T, f *x402test.Facilitator, log *Log, rail Rail, fetches int, payer *x402.Payer, outcomes map[string]int) (settled, spent, reserved *big.Int) {
	t.Helper()
	maxTotal := MaxTotal(fetches)
	settled = new(big.Int)
	perFetch := map[int]int{}
	log.mu.Lock()
	for _, st := range f.Settlements() {
		settled.Add(settled, st.Value)
		assert.LessOrEqual(t, st.Value.Int64(), int64(MaxPerPayment), "no payment above the per-payment cap")
		assert.True(t, rail.Same(st.To, rail.Shop), "no payment to a foreign payee")
		fetch, ok := log.fetchOf[st.ID]
		require.True(t, ok)
		perFetch[fetch]++
	}
	log.mu.Unlock()
	for fetch, n := range perFetch {
		assert.Equal(t, 1, n, "fetch %d settled more than once", fetch)
	}
	assert.LessOrEqual(t, settled.Cmp(big.NewInt(maxTotal)), 0, "the total settled stays within MaxTotal")
	spent, reserved = budgettest.Spent(t, payer), budgettest.Reserved(t, payer)
	counted := new(big.Int).Add(spent, reserved)
	t.Logf("settled %d payments, %s in all (MaxTotal %d); Spent %s, Reserved %s", len(f.Settlements()), settled, maxTotal, spent, reserved)
	assert.GreaterOrEqual(t, counted.Cmp(settled), 0, "spent plus reserved covers every settlement: %s < %s", counted, settled)
	assert.LessOrEqual(t, spent.Cmp(settled), 0, "nothing is counted as spent that did not settle")
	assert.Positive(t, outcomes["ok"], "some fetches went through")
	assert.Positive(t, outcomes["budget exceeded"], "the budget ran out")
	return settled, spent, reserved
}
