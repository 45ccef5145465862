package budgetpg_test

import (
	"context"
	"math/big"
	"math/rand/v2"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/budgetpg"
	"github.com/agentapis/sdk/x402/ledger"
)

// A Budget on PostgreSQL makes payments as a payer does: it reserves, signs what it
// reserved and commits a third of what it signed, each payment's calls under one context that
// ends at a random point 1 to 150 ms after it starts. The server's answers come back 30 ms
// late, so that contexts end before a statement is sent, while it runs, after it committed
// and between two calls. Once the budget has finished the calls whose answers were lost
// (Budget.Wait), in the same process and without opening the store again: what it reserves is
// exactly what was reported signed and not committed, every hold outstanding is one of those,
// and what it spent is every payment a commit was asked for, whether or not that call
// reported success. SDK_TEST_FULL=1 makes 480 payments; the default 240.
// (TestCancelledContextsReportTheTruth holds the store itself to what its calls report.)
func TestCancelledContextsSettleToWhatWasSigned(t *testing.T) {
	t.Parallel()
	dsn := requireDSN(t)
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		t.Skip("the test puts a proxy in a postgres:// DSN")
	}
	u.Host = slowProxy(t, u.Host, 30*time.Millisecond)
	q := u.Query()
	q.Set("pool_max_conns", "32") // room for the budget's own recoveries besides the callers
	u.RawQuery = q.Encode()
	s, err := budgetpg.Open(t.Context(), u.String(), budgetpg.WithName(budgetName(t)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	b, err := budget.New(budget.Unlimited, budget.WithStore(s))
	require.NoError(t, err)

	// Each round makes workers*each payments and checks every payment made so far. Under a
	// heavy load, nearly every context may end before its first statement is sent: the test
	// then makes another round, until some reservations and signatures were cut short and
	// some payments signed.
	workers, each := 8, testenv.Size(30, 60)
	var payments []cutPayment
	for round := 1; ; round++ {
		made := make([][]cutPayment, workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(round), uint64(w)))
				for i := range each {
					// One context for the payment's calls, ending at a random point of them.
					ctx, cancel := context.WithTimeout(context.Background(), time.Duration(1+rng.IntN(150))*time.Millisecond)
					p := cutPayment{amount: int64(1 + len(payments) + w*each + i)}
					h, err := b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(p.amount), PayTo: "0xaa"})
					p.reserved, p.reservedErr = err == nil, err
					if p.reserved {
						p.id = "0x" + h.ID().String()
						p.signErr = h.Sign(ctx, ledger.Signature{ID: p.id, Expires: time.Now().Add(time.Hour)})
						p.signed = p.signErr == nil
					}
					if p.signed && rng.IntN(3) == 0 {
						p.commitAsked, p.commitErr = true, h.Commit(ctx)
					}
					cancel()
					made[w] = append(made[w], p)
				}
			}()
		}
		wg.Wait()
		for _, ps := range made {
			payments = append(payments, ps...)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		require.NoError(t, b.Wait(ctx), "the budget finishes the calls whose answers were lost")
		cancel()
		c := settledAsSigned(t, b, payments)
		t.Logf("round %d, %d payments: %d reservations failed, %d signatures failed, %d signed and unresolved, %d commits failed",
			round, len(payments), c.reservedFailed, c.signFailed, c.unresolved, c.commitFailed)
		if c.reservedFailed > 0 && c.signFailed > 0 && c.unresolved > 0 {
			return
		}
		require.Less(t, round, 5, "five rounds never cut a reservation and a signature short, and signed a payment")
	}
}

// cutPayment is what became of a payment's calls in TestCancelledContextsSettleToWhatWasSigned.
type cutPayment struct {
	id                              string // the signature's id
	amount                          int64
	reserved, signed, commitAsked   bool
	reservedErr, signErr, commitErr error
}

// cutOutcomes counts what became of the payments.
type cutOutcomes struct{ reservedFailed, signFailed, commitFailed, unresolved int }

// settledAsSigned checks that b, having finished the calls whose answers were lost,
// reserves exactly what payments says was signed and not committed, holds exactly those, and
// spent every payment a commit was asked for; it counts the outcomes.
func settledAsSigned(t *testing.T, b *budget.Budget, payments []cutPayment) cutOutcomes {
	t.Helper()
	var c cutOutcomes
	wantHeld, wantSpent := new(big.Int), new(big.Int)
	signed := map[string]int64{}
	for _, p := range payments {
		switch {
		case !p.reserved:
			c.reservedFailed++
			var se *budget.StoreError
			require.ErrorAs(t, p.reservedErr, &se, "a reservation fails only for a lost answer here")
		case !p.signed:
			c.signFailed++
			var se *budget.StoreError
			require.ErrorAs(t, p.signErr, &se, "a signature fails only for a lost answer here")
		case p.commitAsked:
			wantSpent.Add(wantSpent, big.NewInt(p.amount))
			if p.commitErr != nil {
				c.commitFailed++
			}
		default:
			c.unresolved++
			wantHeld.Add(wantHeld, big.NewInt(p.amount))
			signed[p.id] = p.amount
		}
	}
	spent, held, err := b.Totals(t.Context())
	require.NoError(t, err)
	assert.Equal(t, wantHeld.String(), held.String(), "the budget reserves what was signed and not committed")
	assert.Equal(t, wantSpent.String(), spent.String(), "and spent every payment a commit was asked for")
	out, err := b.Outstanding(t.Context())
	require.NoError(t, err)
	assert.Equal(t, len(signed), len(out), "outstanding holds")
	for _, o := range out {
		amount, ok := signed[o.ID]
		assert.True(t, ok, "an outstanding hold that was not reported signed: %+v", o)
		assert.Equal(t, ledger.Signed, o.State)
		assert.Equal(t, amount, o.Amount.Int64())
	}
	return c
}
