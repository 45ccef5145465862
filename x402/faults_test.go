package x402_test

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/fakeserver"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// afterSettle wraps a paywall: every paid request is settled by the paywall (its answer
// thrown away), then fail answers it instead.
func afterSettle(paywall http.Handler, fail func(w http.ResponseWriter)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(wire.HeaderPaymentSignature) == "" {
			paywall.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		paywall.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK {
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
			return
		}
		fail(w)
	})
}

// hangUp closes the connection without an answer.
func hangUp(w http.ResponseWriter) { fakeserver.HangUp(w) }

// paidCounter counts the paid requests a server receives, by payment header value.
type paidCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *paidCounter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get(wire.HeaderPaymentSignature); v != "" {
			c.mu.Lock()
			if c.n == nil {
				c.n = map[string]int{}
			}
			c.n[v]++
			c.mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
}

func (c *paidCounter) max() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := 0
	for _, n := range c.n {
		m = max(m, n)
	}
	return m
}

// settledTotal adds up the facilitator's settlements.
func settledTotal(f *x402test.Facilitator) *big.Int {
	total := new(big.Int)
	for _, s := range f.Settlements() {
		total.Add(total, s.Value)
	}
	return total
}

func TestDroppedConnectionAfterSettlementStaysCounted(t *testing.T) {
	t.Parallel()
	// Every paid request is settled, then its keep-alive connection is closed without an
	// answer. net/http must not re-send the paid request on its own, and the payer must count
	// each payment: ten fetches against a budget of five payments settle at most five.
	f := x402test.NewFacilitator()
	paywall := x402test.NewPaywall(f, x402test.PaywallConfig{PayTo: shopAddress, Amount: big.NewInt(100)}, okHandler)
	var paid paidCounter
	srv := httptest.NewServer(paid.wrap(afterSettle(paywall, hangUp)))
	t.Cleanup(srv.Close)
	payer, signer, client := newPayer(t, f, 10_000, x402.Policy{MaxTotal: big.NewInt(500)}, x402.WithResend(0, 0))

	for i := range 10 {
		_, _, err := get(t, client, srv.URL+"/x")
		require.Error(t, err, "fetch %d", i)
		var ue *x402.PaymentUnconfirmedError
		if i < 5 {
			require.ErrorAs(t, err, &ue, "fetch %d: a dropped answer leaves the outcome unknown", i)
		} else {
			require.ErrorIs(t, err, x402.ErrBudgetExceeded, "fetch %d", i)
		}
	}
	assert.Equal(t, 1, paid.max(), "no paid request reached the server twice")
	assert.Len(t, f.Settlements(), 5)
	assert.Equal(t, int64(5), signer.Signed())
	total := new(big.Int).Add(budgettest.Spent(t, payer), budgettest.Reserved(t, payer))
	assert.GreaterOrEqual(t, total.Cmp(settledTotal(f)), 0, "spent plus reserved covers every settled payment")
	assert.Zero(t, budgettest.Spent(t, payer).Sign(), "nothing was confirmed")
}

func TestSettledPaymentAnsweredBadlyIsNeverRequotedNorCalledRejected(t *testing.T) {
	t.Parallel()
	for name, fail := range map[string]func(http.ResponseWriter){
		"5xx after settlement":  func(w http.ResponseWriter) { w.WriteHeader(http.StatusInternalServerError) },
		"drop after settlement": hangUp,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := x402test.NewFacilitator()
			paywall := x402test.NewPaywall(f, x402test.PaywallConfig{PayTo: shopAddress, Amount: big.NewInt(100)}, okHandler)
			srv := httptest.NewServer(afterSettle(paywall, fail))
			t.Cleanup(srv.Close)
			// The payer re-sends the same payment; the server refuses it (nonce used) with a
			// new 402, which must not be paid as a re-quote.
			payer, signer, client := newPayer(t, f, 10_000, x402.Policy{MaxTotal: budget.Unlimited, AllowRequote: true}, x402.WithResend(2, time.Millisecond))
			for range 20 {
				_, _, err := get(t, client, srv.URL+"/x")
				var ue *x402.PaymentUnconfirmedError
				require.ErrorAs(t, err, &ue)
				var rej *x402.PaymentRejectedError
				assert.False(t, errors.As(err, &rej), "a settled payment is never a rejection")
			}
			assert.Len(t, f.Settlements(), 20, "one settlement per fetch")
			assert.Equal(t, int64(20), signer.Signed(), "no fetch signed twice")
			assert.Equal(t, big.NewInt(2000), budgettest.Reserved(t, payer))
		})
	}
}

func TestARetryLayerThatHonoursRetryableErrorPaysOnce(t *testing.T) {
	t.Parallel()
	f := x402test.NewFacilitator()
	paywall := x402test.NewPaywall(f, x402test.PaywallConfig{PayTo: shopAddress, Amount: big.NewInt(100)}, okHandler)
	srv := httptest.NewServer(afterSettle(paywall, func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) }))
	t.Cleanup(srv.Close)
	payer, _, _ := newPayer(t, f, 10_000, x402.Policy{MaxTotal: budget.Unlimited}, x402.WithResend(0, 0))
	rc := retryablehttp.NewClient()
	rc.Logger = nil
	rc.RetryWaitMin, rc.RetryWaitMax, rc.RetryMax = time.Millisecond, time.Millisecond, 3
	rc.HTTPClient = &http.Client{Transport: payer.RoundTripper(nil)}
	rc.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		var re interface{ RetryableError() bool }
		if errors.As(err, &re) && !re.RetryableError() {
			return false, err
		}
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	for range 5 {
		resp, err := rc.Get(srv.URL + "/x")
		if resp != nil {
			resp.Body.Close()
		}
		var ue *x402.PaymentUnconfirmedError
		require.ErrorAs(t, err, &ue, "a 5xx after a payment is an error, never a plain answer a retry layer would repeat")
		assert.Equal(t, http.StatusBadGateway, ue.StatusCode)
	}
	assert.Len(t, f.Settlements(), 5, "each fetch settled once")
}

func TestTheBudgetHoldsWhenEveryConnectionDropsAfterSettling(t *testing.T) {
	t.Parallel()
	f := x402test.NewFacilitator()
	paywall := x402test.NewPaywall(f, x402test.PaywallConfig{PayTo: shopAddress, Amount: big.NewInt(100)}, okHandler)
	srv := httptest.NewServer(afterSettle(paywall, hangUp))
	t.Cleanup(srv.Close)
	payer, signer, _ := newPayer(t, f, 1_000_000, x402.Policy{MaxTotal: big.NewInt(50 * 100)})
	client := &http.Client{Transport: payer.RoundTripper(nil)}
	var wg sync.WaitGroup
	var budgetRefusals, unconfirmed, other atomic.Int64
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Get(srv.URL + "/x")
			if resp != nil {
				resp.Body.Close()
			}
			var ue *x402.PaymentUnconfirmedError
			switch {
			case errors.Is(err, x402.ErrBudgetExceeded):
				budgetRefusals.Add(1)
			case errors.As(err, &ue):
				unconfirmed.Add(1)
			default:
				other.Add(1)
			}
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, len(f.Settlements()), 50)
	assert.Equal(t, int64(50), unconfirmed.Load())
	assert.Equal(t, int64(150), budgetRefusals.Load())
	assert.Zero(t, other.Load())
	assert.Equal(t, int64(50), signer.Signed())
	total := new(big.Int).Add(budgettest.Spent(t, payer), budgettest.Reserved(t, payer))
	assert.Equal(t, big.NewInt(5000), total)
	assert.GreaterOrEqual(t, total.Cmp(settledTotal(f)), 0)
}
