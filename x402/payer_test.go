package x402_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/spectest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

func TestPayerPaysThroughPaywall(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(130000), Description: "a report"}, nil)
	payer, signer, client := newPayer(t, s.f, 1_000_000, x402.Policy{MaxTotal: budget.Unlimited})

	resp, body, err := get(t, client, s.srv.URL+"/report/1")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "the goods", body)

	receipt, ok := x402.ReceiptFrom(resp)
	require.True(t, ok)
	assert.True(t, receipt.Success)
	assert.Equal(t, evm.NetworkBase, receipt.Network)
	assert.Equal(t, signer.Address(), receipt.Payer)

	settlements := s.f.Settlements()
	require.Len(t, settlements, 1)
	st := settlements[0]
	assert.Equal(t, receipt.Transaction, st.TxHash)
	assert.Equal(t, signer.Address(), st.From)
	assert.Equal(t, shopAddress, st.To)
	assert.Equal(t, big.NewInt(130000), st.Value)
	assert.Equal(t, evm.USDCBase, st.Asset)

	assert.Equal(t, big.NewInt(130000), budgettest.Spent(t, payer))
	assert.Equal(t, int64(0), budgettest.Reserved(t, payer).Int64())
	assert.Equal(t, big.NewInt(870000), s.f.Balance(signer.Address()))
	assert.Equal(t, big.NewInt(130000), s.f.Balance(shopAddress))
	assert.Equal(t, int64(1), signer.Signed())

	// The payment header is strict standard base64 of compact JSON, and the payload names the
	// server's resource.
	payments := s.payments.all()
	require.Len(t, payments, 1)
	p, err := wire.DecodePaymentPayload(payments[0])
	require.NoError(t, err)
	require.NotNil(t, p.Resource)
	assert.Equal(t, s.srv.URL+"/report/1", p.Resource.URL)
	assert.Equal(t, "a report", p.Resource.Description)
}

func TestPayerLeavesFreeResponsesAlone(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		_, _ = io.WriteString(w, "short and stout")
	}))
	t.Cleanup(srv.Close)
	payer, signer, client := newPayer(t, nil, 0, x402.Policy{MaxTotal: budget.Unlimited})
	resp, body, err := get(t, client, srv.URL)
	require.NoError(t, err)
	assert.Equal(t, http.StatusTeapot, resp.StatusCode)
	assert.Equal(t, "short and stout", body)
	assert.Zero(t, signer.Signed())
	assert.Zero(t, budgettest.Spent(t, payer).Sign())
}

// TestPolicyRefusalsSignNothing shows each rule of the policy refusing before anything is
// signed or sent.
func TestPolicyRefusalsSignNothing(t *testing.T) {
	t.Parallel()
	errHuman := errors.New("the human said no")
	tests := []struct {
		name   string
		cfg    x402test.PaywallConfig
		policy x402.Policy
		check  func(t *testing.T, err error)
	}{
		{
			name:   "default per-payment cap of 1 USDC",
			cfg:    x402test.PaywallConfig{Amount: big.NewInt(1_000_001)},
			policy: x402.Policy{MaxTotal: budget.Unlimited},
			check: func(t *testing.T, err error) {
				var pe *x402.PolicyError
				require.ErrorAs(t, err, &pe)
				assert.ErrorIs(t, err, x402.ErrAmountOverCap)
				assert.Equal(t, big.NewInt(1_000_000), pe.Limit)
				assert.Equal(t, big.NewInt(1_000_001), pe.Requirements.Amount)
			},
		},
		{
			name:   "explicit per-payment cap",
			cfg:    x402test.PaywallConfig{Amount: big.NewInt(5001)},
			policy: x402.Policy{MaxPerPayment: big.NewInt(5000), MaxTotal: budget.Unlimited},
			check: func(t *testing.T, err error) {
				var pe *x402.PolicyError
				require.ErrorAs(t, err, &pe)
				assert.ErrorIs(t, err, x402.ErrAmountOverCap)
				assert.Equal(t, big.NewInt(5000), pe.Limit)
			},
		},
		{
			name:   "total budget",
			cfg:    x402test.PaywallConfig{Amount: big.NewInt(5001)},
			policy: x402.Policy{MaxTotal: big.NewInt(5000)},
			check: func(t *testing.T, err error) {
				var pe *x402.PolicyError
				require.ErrorAs(t, err, &pe)
				assert.ErrorIs(t, err, x402.ErrBudgetExceeded)
				assert.Equal(t, big.NewInt(5000), pe.Limit)
			},
		},
		{
			name:   "recipient not allowed",
			cfg:    x402test.PaywallConfig{Amount: big.NewInt(100)},
			policy: x402.Policy{PayTo: []string{"0x000000000000000000000000000000000000dEaD"}, MaxTotal: budget.Unlimited},
			check: func(t *testing.T, err error) {
				assert.ErrorIs(t, err, x402.ErrPayToNotAllowed)
				assert.Contains(t, err.Error(), shopAddress)
			},
		},
		{
			name:   "network not allowed",
			cfg:    x402test.PaywallConfig{Amount: big.NewInt(100), Network: evm.NetworkBaseSepolia, Name: "USDC"},
			policy: x402.Policy{MaxTotal: budget.Unlimited},
			check: func(t *testing.T, err error) {
				var ne *x402.NoUsableRequirementsError
				require.ErrorAs(t, err, &ne)
				require.Len(t, ne.Reasons, 1)
				assert.Contains(t, ne.Reasons[0], `network "eip155:84532" is not allowed`)
			},
		},
		{
			name:   "asset not allowed",
			cfg:    x402test.PaywallConfig{Amount: big.NewInt(100), Asset: "0x1111111111111111111111111111111111111111"},
			policy: x402.Policy{MaxTotal: budget.Unlimited},
			check: func(t *testing.T, err error) {
				var ne *x402.NoUsableRequirementsError
				require.ErrorAs(t, err, &ne)
				assert.Contains(t, ne.Error(), "asset 0x1111111111111111111111111111111111111111 is not allowed")
			},
		},
		{
			name: "approval hook",
			cfg:  x402test.PaywallConfig{Amount: big.NewInt(100)},
			policy: x402.Policy{MaxTotal: budget.Unlimited, Approve: func(ctx context.Context, q x402.Quote) error {
				return errHuman
			}},
			check: func(t *testing.T, err error) {
				var pe *x402.PolicyError
				require.ErrorAs(t, err, &pe)
				assert.ErrorIs(t, err, x402.ErrNotApproved)
				assert.ErrorIs(t, err, errHuman)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newShop(t, tt.cfg, nil)
			payer, signer, client := newPayer(t, s.f, 10_000_000, tt.policy)
			_, _, err := get(t, client, s.srv.URL+"/x")
			require.Error(t, err)
			tt.check(t, err)
			assert.Zero(t, signer.Signed(), "nothing may be signed")
			assert.Empty(t, s.payments.all(), "no payment may be sent")
			assert.Zero(t, budgettest.Spent(t, payer).Sign())
			assert.Zero(t, budgettest.Reserved(t, payer).Sign())
			assert.Empty(t, s.f.Settlements())
		})
	}
}

func TestApproveSeesTheQuote(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(2500), Description: "inflation report"}, nil)
	var seen []x402.Quote
	policy := x402.Policy{MaxTotal: budget.Unlimited, Approve: func(ctx context.Context, q x402.Quote) error {
		seen = append(seen, q)
		return nil
	}}
	payer, _, client := newPayer(t, s.f, 10_000, policy)
	_, _, err := get(t, client, s.srv.URL+"/report/7?format=csv")
	require.NoError(t, err)
	require.Len(t, seen, 1)
	q := seen[0]
	assert.Equal(t, big.NewInt(2500), q.Requirements.Amount)
	assert.Equal(t, evm.NetworkBase, q.Network)
	assert.Equal(t, http.MethodGet, q.Method)
	assert.Equal(t, "/report/7", q.URL.Path)
	assert.Equal(t, "inflation report", q.Resource.Description)
	assert.False(t, q.Requote)
	assert.Equal(t, big.NewInt(2500), budgettest.Spent(t, payer))
}

// TestConcurrentPaymentsNeverPassMaxTotal pays from 200 goroutines through one payer whose
// budget holds 50 payments.
func TestConcurrentPaymentsNeverPassMaxTotal(t *testing.T) {
	t.Parallel()
	const price = 10_000
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(price)}, nil)
	maxTotal := big.NewInt(50 * price)
	payer, signer, client := newPayer(t, s.f, 100*price, x402.Policy{MaxTotal: maxTotal})

	var ok, refused atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Get(fmt.Sprintf("%s/item/%d", s.srv.URL, i))
			switch {
			case err == nil:
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					ok.Add(1)
				} else {
					errs <- fmt.Errorf("status %d", resp.StatusCode)
				}
			case errors.Is(err, x402.ErrBudgetExceeded):
				refused.Add(1)
			default:
				errs <- err
			}
			if budgettest.Spent(t, payer).Cmp(maxTotal) > 0 {
				errs <- fmt.Errorf("spent %s above the budget", budgettest.Spent(t, payer))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	assert.Equal(t, int64(50), ok.Load())
	assert.Equal(t, int64(150), refused.Load())
	assert.Equal(t, maxTotal, budgettest.Spent(t, payer))
	assert.Zero(t, budgettest.Reserved(t, payer).Sign())
	assert.Equal(t, int64(50), signer.Signed())
	assert.Len(t, s.f.Settlements(), 50)
	assert.Equal(t, maxTotal, s.f.Balance(shopAddress))
}

func TestPaidRequestReplaysTheBody(t *testing.T) {
	t.Parallel()
	var bodies []string
	var mu sync.Mutex
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, r.Method+" "+string(b))
		mu.Unlock()
		_, _ = w.Write(b)
	})
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100)}, echo)
	_, _, client := newPayer(t, s.f, 1000, x402.Policy{MaxTotal: budget.Unlimited})

	req, err := http.NewRequest(http.MethodPost, s.srv.URL+"/query", strings.NewReader(`{"q":"gdp"}`))
	require.NoError(t, err)
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, `{"q":"gdp"}`, string(b))
	assert.Equal(t, []string{`POST {"q":"gdp"}`}, bodies, "the handler runs once, on the paid request with the full body")
}

func TestBodyWithoutGetBodyCannotBePaid(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100)}, nil)
	payer, signer, client := newPayer(t, s.f, 1000, x402.Policy{MaxTotal: budget.Unlimited})
	req, err := http.NewRequest(http.MethodPost, s.srv.URL+"/query", io.NopCloser(strings.NewReader("body")))
	require.NoError(t, err)
	require.Nil(t, req.GetBody)
	_, err = client.Do(req)
	require.ErrorIs(t, err, x402.ErrBodyNotReplayable)
	assert.Zero(t, signer.Signed())
	assert.Zero(t, budgettest.Reserved(t, payer).Sign())
}

func TestRejectedPaymentCountsUntilItExpires(t *testing.T) {
	t.Parallel()
	// The payer's address was never funded: the facilitator refuses the payment. The payee
	// still holds a valid authorization, so its amount stays counted until it expires.
	clock := sdktest.NewClock(time.Now())
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100), MaxTimeoutSeconds: 60}, nil)
	payer, signer, client := newPayerAt(t, nil, 0, x402.Policy{MaxTotal: big.NewInt(100)}, clock)
	_, _, err := get(t, client, s.srv.URL+"/x")
	var rej *x402.PaymentRejectedError
	require.ErrorAs(t, err, &rej)
	assert.Equal(t, evm.ReasonInsufficientBalance, rej.Reason)
	assert.Equal(t, http.StatusPaymentRequired, rej.StatusCode)
	assert.Nil(t, rej.Settlement)
	assert.Equal(t, big.NewInt(100), rej.Requirements.Amount)
	assert.Equal(t, int64(1), signer.Signed(), "a rejection is not paid again")
	assert.Zero(t, budgettest.Spent(t, payer).Sign())
	assert.Equal(t, big.NewInt(100), budgettest.Reserved(t, payer), "the refused authorization is still valid: it counts")
	out := budgettest.Outstanding(t, payer)
	require.Len(t, out, 1)
	assert.Equal(t, ledger.Refused, out[0].State)
	assert.Equal(t, rej.ID, out[0].ID)

	s.f.Fund(signer.Address(), big.NewInt(100))
	_, _, err = get(t, client, s.srv.URL+"/x")
	assert.ErrorIs(t, err, x402.ErrBudgetExceeded, "the budget has no room while the authorization can be used")
	assert.Equal(t, int64(1), signer.Signed())

	clock.Advance(60*time.Second + ledger.ExpiryMargin + time.Second)
	assert.Zero(t, budgettest.Reserved(t, payer).Sign(), "once it has expired, it is released")
	_, _, err = get(t, client, s.srv.URL+"/x")
	require.NoError(t, err)
	assert.Equal(t, big.NewInt(100), budgettest.Spent(t, payer))
}

func TestFailedSettlementCarriesTheReceipt(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100)}, nil)
	s.f.FailNextSettle("insufficient_funds")
	payer, signer, client := newPayer(t, s.f, 1000, x402.Policy{MaxTotal: budget.Unlimited})
	_, _, err := get(t, client, s.srv.URL+"/x")
	var rej *x402.PaymentRejectedError
	require.ErrorAs(t, err, &rej)
	assert.Equal(t, "insufficient_funds", rej.Reason)
	require.NotNil(t, rej.Settlement)
	assert.False(t, rej.Settlement.Success)
	assert.Equal(t, "insufficient_funds", rej.Settlement.ErrorReason)
	assert.Contains(t, err.Error(), "insufficient_funds")
	assert.Zero(t, budgettest.Spent(t, payer).Sign())
	assert.Equal(t, big.NewInt(100), budgettest.Reserved(t, payer), "a refused authorization counts until it expires")
	assert.Equal(t, big.NewInt(1000), s.f.Balance(signer.Address()))
}

// rising returns a price function that asks first, then second for every later request.
func rising(first, second int64) func(*http.Request) *big.Int {
	var n atomic.Int64
	return func(*http.Request) *big.Int {
		if n.Add(1) == 1 {
			return big.NewInt(first)
		}
		return big.NewInt(second)
	}
}

func TestRequote(t *testing.T) {
	t.Parallel()
	t.Run("refused without AllowRequote", func(t *testing.T) {
		t.Parallel()
		s := newShop(t, x402test.PaywallConfig{Price: rising(100, 120)}, nil)
		payer, signer, client := newPayer(t, s.f, 1000, x402.Policy{MaxTotal: budget.Unlimited})
		_, _, err := get(t, client, s.srv.URL+"/x")
		var rej *x402.PaymentRejectedError
		require.ErrorAs(t, err, &rej)
		assert.Equal(t, x402test.ReasonNoMatch, rej.Reason)
		assert.NoError(t, rej.Requote)
		assert.Equal(t, int64(1), signer.Signed())
		assert.Zero(t, budgettest.Spent(t, payer).Sign())
		assert.Equal(t, big.NewInt(100), budgettest.Reserved(t, payer), "the refused authorization counts until it expires")
	})
	t.Run("paid once with AllowRequote", func(t *testing.T) {
		t.Parallel()
		s := newShop(t, x402test.PaywallConfig{Price: rising(100, 120)}, nil)
		var quotes []x402.Quote
		policy := x402.Policy{MaxTotal: budget.Unlimited, AllowRequote: true, Approve: func(_ context.Context, q x402.Quote) error {
			quotes = append(quotes, q)
			return nil
		}}
		payer, signer, client := newPayer(t, s.f, 1000, policy)
		resp, _, err := get(t, client, s.srv.URL+"/x")
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, int64(2), signer.Signed())
		assert.Equal(t, big.NewInt(120), budgettest.Spent(t, payer), "the most recent quote is paid, and only it")
		assert.Equal(t, big.NewInt(100), budgettest.Reserved(t, payer), "the refused first authorization still counts")
		require.Len(t, quotes, 2)
		assert.False(t, quotes[0].Requote)
		assert.True(t, quotes[1].Requote)
		require.Len(t, s.f.Settlements(), 1)
		assert.Equal(t, big.NewInt(120), s.f.Settlements()[0].Value)
	})
	t.Run("new quote above the cap", func(t *testing.T) {
		t.Parallel()
		s := newShop(t, x402test.PaywallConfig{Price: rising(100, 2_000_000)}, nil)
		payer, signer, client := newPayer(t, s.f, 10_000_000, x402.Policy{MaxTotal: budget.Unlimited, AllowRequote: true})
		_, _, err := get(t, client, s.srv.URL+"/x")
		var rej *x402.PaymentRejectedError
		require.ErrorAs(t, err, &rej)
		assert.ErrorIs(t, err, x402.ErrAmountOverCap)
		assert.Equal(t, int64(1), signer.Signed())
		assert.Zero(t, budgettest.Spent(t, payer).Sign())
		assert.Equal(t, big.NewInt(100), budgettest.Reserved(t, payer), "the refused first authorization still counts")
	})
	t.Run("rejected twice", func(t *testing.T) {
		t.Parallel()
		// Every request is priced anew, so every payment is for a stale quote.
		var n atomic.Int64
		price := func(*http.Request) *big.Int { return big.NewInt(100 + n.Add(1)) }
		s := newShop(t, x402test.PaywallConfig{Price: price}, nil)
		payer, signer, client := newPayer(t, s.f, 10_000, x402.Policy{MaxTotal: budget.Unlimited, AllowRequote: true})
		_, _, err := get(t, client, s.srv.URL+"/x")
		var rej *x402.PaymentRejectedError
		require.ErrorAs(t, err, &rej)
		assert.Equal(t, int64(2), signer.Signed(), "a re-quote is paid at most once")
		assert.Len(t, s.payments.all(), 2)
		assert.Zero(t, budgettest.Spent(t, payer).Sign())
		assert.Equal(t, big.NewInt(101+102), budgettest.Reserved(t, payer), "both refused authorizations count until they expire")
	})
}

// flaky answers the first n paid requests with status (before the paywall sees them), or
// passes them through after running the paywall when settleFirst is set.
func flaky(n int64, status int, settleFirst bool, next http.Handler) http.Handler {
	var seen atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(wire.HeaderPaymentSignature) != "" && seen.Add(1) <= n {
			if settleFirst {
				next.ServeHTTP(httptest.NewRecorder(), r)
			}
			w.WriteHeader(status)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestServerErrorResendsTheSamePayment(t *testing.T) {
	t.Parallel()
	f := x402test.NewFacilitator()
	log := &headerLog{}
	paywall := x402test.NewPaywall(f, x402test.PaywallConfig{PayTo: shopAddress, Amount: big.NewInt(100)}, okHandler)
	srv := httptest.NewServer(logPayments(log, flaky(2, http.StatusServiceUnavailable, false, paywall)))
	t.Cleanup(srv.Close)
	payer, signer, client := newPayer(t, f, 1000, x402.Policy{MaxTotal: budget.Unlimited}, x402.WithResend(2, time.Millisecond))

	resp, _, err := get(t, client, srv.URL+"/x")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, int64(1), signer.Signed(), "a resend never signs again")
	sent := log.all()
	require.Len(t, sent, 3)
	assert.Equal(t, sent[0], sent[1])
	assert.Equal(t, sent[0], sent[2])
	assert.Equal(t, big.NewInt(100), budgettest.Spent(t, payer))
	assert.Len(t, f.Settlements(), 1)
}

func TestServerErrorAfterSettlementKeepsTheReservation(t *testing.T) {
	t.Parallel()
	// The server settles the payment, then fails; the resent payment is refused because its
	// nonce was used. The money is gone, so the payer must keep counting it, and must not
	// call that refusal a rejection.
	f := x402test.NewFacilitator()
	paywall := x402test.NewPaywall(f, x402test.PaywallConfig{PayTo: shopAddress, Amount: big.NewInt(100)}, okHandler)
	srv := httptest.NewServer(flaky(1, http.StatusInternalServerError, true, paywall))
	t.Cleanup(srv.Close)
	payer, signer, client := newPayer(t, f, 1000, x402.Policy{MaxTotal: big.NewInt(150), AllowRequote: true}, x402.WithResend(1, time.Millisecond))

	_, _, err := get(t, client, srv.URL+"/x")
	var ue *x402.PaymentUnconfirmedError
	require.ErrorAs(t, err, &ue, "an answer after an attempt in doubt is in doubt too")
	assert.Equal(t, http.StatusPaymentRequired, ue.StatusCode)
	assert.Equal(t, evm.ReasonNonceAlreadyUsed, ue.Reason)
	assert.Equal(t, int64(1), signer.Signed(), "a 402 after an attempt in doubt is never re-quoted")
	assert.Len(t, f.Settlements(), 1)
	assert.Equal(t, big.NewInt(100), budgettest.Reserved(t, payer), "an outcome in doubt stays reserved")
	assert.Equal(t, ledger.InDoubt, budgettest.Outstanding(t, payer)[0].State)

	// The reserved amount still counts against the budget.
	_, _, err = get(t, client, srv.URL+"/x")
	assert.ErrorIs(t, err, x402.ErrBudgetExceeded)
	assert.Equal(t, int64(1), signer.Signed())
}

func TestFinalServerErrorIsInDoubt(t *testing.T) {
	t.Parallel()
	f := x402test.NewFacilitator()
	paywall := x402test.NewPaywall(f, x402test.PaywallConfig{PayTo: shopAddress, Amount: big.NewInt(100)}, okHandler)
	srv := httptest.NewServer(flaky(10, http.StatusBadGateway, false, paywall))
	t.Cleanup(srv.Close)
	payer, signer, client := newPayer(t, f, 1000, x402.Policy{MaxTotal: budget.Unlimited}, x402.WithResend(1, time.Millisecond))
	resp, err := client.Get(srv.URL + "/x")
	assert.Nil(t, resp, "a 5xx after a payment is never handed back as a plain answer")
	var ue *x402.PaymentUnconfirmedError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, http.StatusBadGateway, ue.StatusCode)
	assert.Equal(t, int64(1), signer.Signed())
	assert.Zero(t, budgettest.Spent(t, payer).Sign())
	assert.Equal(t, big.NewInt(100), budgettest.Reserved(t, payer))
}

// failingTransport fails the first n requests that carry a payment, after reading them.
type failingTransport struct {
	n    atomic.Int64
	next http.RoundTripper
	sent headerLog
}

func (ft *failingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if v := r.Header.Get(wire.HeaderPaymentSignature); v != "" {
		ft.sent.add(v)
		if ft.n.Add(-1) >= 0 {
			if r.Body != nil {
				r.Body.Close()
			}
			return nil, errors.New("connection reset by peer")
		}
	}
	return ft.next.RoundTrip(r)
}

func TestNetworkFailureOnPaidRequest(t *testing.T) {
	t.Parallel()
	t.Run("resent with the same payment", func(t *testing.T) {
		t.Parallel()
		s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100)}, nil)
		signer := newCountingSigner(t)
		s.f.Fund(signer.Address(), big.NewInt(1000))
		payer, err := x402.NewPayer(x402.Policy{MaxTotal: budget.Unlimited}, exact(t, signer), x402.WithResend(2, time.Millisecond))
		require.NoError(t, err)
		ft := &failingTransport{next: http.DefaultTransport}
		ft.n.Store(1)
		client := &http.Client{Transport: payer.RoundTripper(ft)}
		resp, _, err := get(t, client, s.srv.URL+"/x")
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		sent := ft.sent.all()
		require.Len(t, sent, 2)
		assert.Equal(t, sent[0], sent[1])
		assert.Equal(t, int64(1), signer.Signed())
		assert.Equal(t, big.NewInt(100), budgettest.Spent(t, payer))
	})
	t.Run("no answer at all", func(t *testing.T) {
		t.Parallel()
		s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100)}, nil)
		signer := newCountingSigner(t)
		payer, err := x402.NewPayer(x402.Policy{MaxTotal: big.NewInt(100)}, exact(t, signer), x402.WithResend(1, time.Millisecond))
		require.NoError(t, err)
		ft := &failingTransport{next: http.DefaultTransport}
		ft.n.Store(100)
		client := &http.Client{Transport: payer.RoundTripper(ft)}
		_, _, err = get(t, client, s.srv.URL+"/x")
		var ue *x402.PaymentUnconfirmedError
		require.ErrorAs(t, err, &ue)
		assert.Len(t, ft.sent.all(), 2)
		p, derr := wire.DecodePaymentPayload(ft.sent.all()[0])
		require.NoError(t, derr)
		assert.Equal(t, fmt.Sprintf("0x%x", exactOf(t, p).Authorization.Nonce), ue.ID)
		assert.Equal(t, signer.Address(), ue.Payer)
		assert.Contains(t, err.Error(), "connection reset by peer")
		assert.Zero(t, budgettest.Spent(t, payer).Sign())
		assert.Equal(t, big.NewInt(100), budgettest.Reserved(t, payer))

		_, _, err = get(t, client, s.srv.URL+"/x")
		assert.ErrorIs(t, err, x402.ErrBudgetExceeded, "a payment of unknown outcome still counts")
		assert.Equal(t, int64(1), signer.Signed())
	})
	t.Run("not resent for POST", func(t *testing.T) {
		t.Parallel()
		s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100)}, nil)
		payer, err := x402.NewPayer(x402.Policy{MaxTotal: budget.Unlimited}, exact(t, newSigner(t)), x402.WithResend(3, time.Millisecond))
		require.NoError(t, err)
		ft := &failingTransport{next: http.DefaultTransport}
		ft.n.Store(1)
		client := &http.Client{Transport: payer.RoundTripper(ft)}
		resp, err := client.Post(s.srv.URL+"/x", "text/plain", strings.NewReader("x"))
		if resp != nil {
			resp.Body.Close()
		}
		var ue *x402.PaymentUnconfirmedError
		require.ErrorAs(t, err, &ue)
		assert.Len(t, ft.sent.all(), 1)
	})
}

func TestPayerSpeaksV1(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100), ProtocolVersion: 1, Description: "v1 thing"}, nil)
	payer, _, client := newPayer(t, s.f, 1000, x402.Policy{MaxTotal: budget.Unlimited})
	resp, body, err := get(t, client, s.srv.URL+"/x")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "the goods", body)
	assert.Empty(t, resp.Header.Get(wire.HeaderPaymentResponse))
	receipt, ok := x402.ReceiptFrom(resp)
	require.True(t, ok, "the v1 receipt comes in X-PAYMENT-RESPONSE")
	assert.Equal(t, evm.NetworkBase, receipt.Network, "a v1 receipt's network reads as CAIP-2")
	assert.Equal(t, "base", receipt.RawNetwork, "and keeps the name the server wrote")

	sent := s.payments.all()
	require.Len(t, sent, 1)
	p, err := wire.DecodePaymentPayload(sent[0])
	require.NoError(t, err)
	assert.Equal(t, 1, p.X402Version)
	assert.Equal(t, "exact", p.Scheme)
	assert.Equal(t, "base", p.Network)
	assert.Equal(t, big.NewInt(100), budgettest.Spent(t, payer))
}

func TestPolicyAcceptsV1NetworkNames(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100), ProtocolVersion: 1}, nil)
	signer := newSigner(t)
	s.f.Fund(signer.Address(), big.NewInt(1000))
	for _, networks := range [][]string{{"base"}, {evm.NetworkBase}, {"base-sepolia", "base"}} {
		payer, err := x402.NewPayer(x402.Policy{Networks: networks, MaxTotal: budget.Unlimited}, exact(t, signer))
		require.NoError(t, err, "%v", networks)
		resp, _, err := get(t, &http.Client{Transport: payer.RoundTripper(nil)}, s.srv.URL+"/x")
		require.NoError(t, err, "%v", networks)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		receipt, ok := x402.ReceiptFrom(resp)
		require.True(t, ok)
		assert.Equal(t, evm.NetworkBase, receipt.Network)
	}
	payer, err := x402.NewPayer(x402.Policy{Networks: []string{"base-sepolia"}, MaxTotal: budget.Unlimited}, exact(t, signer))
	require.NoError(t, err)
	_, _, err = get(t, &http.Client{Transport: payer.RoundTripper(nil)}, s.srv.URL+"/x")
	var nu *x402.NoUsableRequirementsError
	require.ErrorAs(t, err, &nu, "base-sepolia allows Base Sepolia only, not the shop's Base")
}

func TestClockSetsTheValidityWindow(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	clock := sdktest.NewClock(at)
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100), MaxTimeoutSeconds: 90}, nil, x402test.WithClock(clock))
	_, _, client := newPayerAt(t, s.f, 1000, x402.Policy{MaxTotal: budget.Unlimited}, clock)
	_, _, err := get(t, client, s.srv.URL+"/x")
	require.NoError(t, err)
	p, err := wire.DecodePaymentPayload(s.payments.all()[0])
	require.NoError(t, err)
	assert.Equal(t, big.NewInt(at.Unix()-600), exactOf(t, p).Authorization.ValidAfter)
	assert.Equal(t, big.NewInt(at.Unix()+90), exactOf(t, p).Authorization.ValidBefore)

	// A payer whose clock runs 20 minutes fast signs an authorization the facilitator finds
	// not yet valid.
	fast := sdktest.NewClock(at.Add(20 * time.Minute))
	_, _, fastClient := newPayerAt(t, s.f, 1000, x402.Policy{MaxTotal: budget.Unlimited}, fast)
	_, _, err = get(t, fastClient, s.srv.URL+"/x")
	var rej *x402.PaymentRejectedError
	require.ErrorAs(t, err, &rej)
	assert.Equal(t, evm.ReasonValidAfter, rej.Reason)
}

func TestRequestWithItsOwnPaymentIsPassedThrough(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100)}, nil)
	_, signer, client := newPayer(t, s.f, 1000, x402.Policy{MaxTotal: budget.Unlimited})
	req, err := http.NewRequest(http.MethodGet, s.srv.URL+"/x", nil)
	require.NoError(t, err)
	req.Header.Set(wire.HeaderPaymentSignature, "e30=")
	resp, err := client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusPaymentRequired, resp.StatusCode)
	assert.Zero(t, signer.Signed())
}

func TestMalformedChallengeIsAFormatError(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(wire.HeaderPaymentRequired, "%%%not base64%%%")
		w.WriteHeader(http.StatusPaymentRequired)
	}))
	t.Cleanup(srv.Close)
	_, signer, client := newPayer(t, nil, 0, x402.Policy{MaxTotal: budget.Unlimited})
	_, _, err := get(t, client, srv.URL)
	var fe *wire.FormatError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, wire.HeaderPaymentRequired, fe.What)
	assert.Zero(t, signer.Signed())
}

// TestAcceptedIsEchoedByteForByte serves a challenge written by hand, with unknown fields,
// unusual key order and spacing, and checks the paid request echoes the chosen entry exactly.
func TestAcceptedIsEchoedByteForByte(t *testing.T) {
	t.Parallel()
	bad := `{"scheme":"exact","network":"eip155:8453","amount":"0.111","asset":"` + evm.USDCBase + `","payTo":"` + shopAddress + `","maxTimeoutSeconds":60,"extra":{"name":"USD Coin","version":"2"}}`
	good := `{ "payTo":"` + shopAddress + `", "scheme": "exact","network":"eip155:8453","amount":"4200",` +
		`"asset":"` + strings.ToLower(evm.USDCBase) + `","maxTimeoutSeconds":30,` +
		`"extra":{"version":"2","name":"USD Coin","assetTransferMethod":"eip3009","note":"caf\u00e9 <&>"},"extra2":{}}`
	challenge := `{"x402Version":2,"error":"Payment required","resource":{"url":"http://x/y","custom":1},` +
		`"accepts":[` + bad + `,` + good + `],"extensions":{"bazaar":{"info":{}}}}`
	var got *wire.PaymentPayload
	var gotRaw string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := r.Header.Get(wire.HeaderPaymentSignature)
		if v == "" {
			w.Header().Set(wire.HeaderPaymentRequired, base64Std(challenge))
			w.WriteHeader(http.StatusPaymentRequired)
			return
		}
		p, err := wire.DecodePaymentPayload(v)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		got, gotRaw = p, spectest.DecodeStd(t, v)
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	_, _, client := newPayer(t, nil, 0, x402.Policy{MaxTotal: budget.Unlimited})
	resp, _, err := get(t, client, srv.URL)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	require.NotNil(t, got)
	assert.Contains(t, gotRaw, `"accepted":`+good+`,`)
	assert.Contains(t, gotRaw, `"resource":{"url":"http://x/y","custom":1},`)
	assert.Contains(t, gotRaw, `"extensions":{"bazaar":{"info":{}}}}`)
	assert.Equal(t, big.NewInt(4200), exactOf(t, got).Authorization.Value)
	_, err = evm.VerifyExact(got, got.Accepted, time.Now())
	assert.NoError(t, err)
}

func TestNewPayerValidatesThePolicy(t *testing.T) {
	t.Parallel()
	signer := newSigner(t)
	unlimited := budget.Unlimited
	tests := []struct {
		name   string
		signer evm.Signer
		policy x402.Policy
		opts   []x402.PayerOption
		field  string
	}{
		{"nil signer", nil, x402.Policy{MaxTotal: unlimited}, nil, "signer"},
		{"negative cap", signer, x402.Policy{MaxPerPayment: big.NewInt(-1), MaxTotal: unlimited}, nil, "Policy.MaxPerPayment"},
		{"negative total", signer, x402.Policy{MaxTotal: big.NewInt(-1)}, nil, "Policy.MaxTotal"},
		{"no total", signer, x402.Policy{}, nil, "Policy.MaxTotal"},
		{"a total with a shared budget", signer, x402.Policy{MaxTotal: unlimited}, []x402.PayerOption{x402.WithBudget(sharedBudget(t))}, "Policy.MaxTotal"},
		{"nil budget", signer, x402.Policy{}, []x402.PayerOption{x402.WithBudget(nil)}, "budget"},
		{"bad payTo", signer, x402.Policy{PayTo: []string{"shop"}, MaxTotal: unlimited}, nil, "Policy.PayTo"},
		{"unknown v1 network name", signer, x402.Policy{Networks: []string{"basenet"}, MaxTotal: unlimited}, nil, "Policy.Networks"},
		{"non-EVM network", signer, x402.Policy{Networks: []string{"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"}, MaxTotal: unlimited}, nil, "Policy.Networks"},
		{"unknown USDC", signer, x402.Policy{Networks: []string{"eip155:1"}, MaxTotal: unlimited}, nil, "Policy.Assets"},
		{"bad asset", signer, x402.Policy{Assets: []string{"usdc"}, MaxTotal: unlimited}, nil, "Policy.Assets"},
		{"nil clock", signer, x402.Policy{MaxTotal: unlimited}, []x402.PayerOption{x402.WithClock(nil)}, "clock"},
		{"negative resend", signer, x402.Policy{MaxTotal: unlimited}, []x402.PayerOption{x402.WithResend(-1, 0)}, "resend"},
		{"bad preference", signer, x402.Policy{MaxTotal: unlimited}, []x402.PayerOption{x402.WithPreference("basenet")}, "preference"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// A nil signer is refused by the scheme, before any payer is made.
			scheme, err := evm.NewExact(tt.signer)
			if err == nil {
				_, err = x402.NewPayer(tt.policy, []x402.Scheme{scheme}, tt.opts...)
			}
			var ve *sdk.ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.field, ve.Field)
		})
	}
	// A payer needs a scheme, and at most one per scheme and chain family.
	for name, schemes := range map[string][]x402.Scheme{
		"no scheme": nil, "a nil scheme": {nil}, "twice the same": append(exact(t, signer), exact(t, newSigner(t))...),
	} {
		_, err := x402.NewPayer(x402.Policy{MaxTotal: unlimited}, schemes)
		var ve *sdk.ValidationError
		require.ErrorAs(t, err, &ve, name)
		assert.Equal(t, "schemes", ve.Field, name)
	}
	// Another network is fine once its token is named.
	_, err := x402.NewPayer(x402.Policy{Networks: []string{"eip155:1"}, Assets: []string{"0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"}, MaxTotal: budget.Unlimited}, exact(t, signer))
	assert.NoError(t, err)
}

func TestSepoliaWhenAllowed(t *testing.T) {
	t.Parallel()
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(10000), Network: evm.NetworkBaseSepolia, Name: "USDC"}, nil)
	payer, _, client := newPayer(t, s.f, 10000, x402.Policy{Networks: []string{evm.NetworkBase, evm.NetworkBaseSepolia}, MaxTotal: budget.Unlimited})
	resp, _, err := get(t, client, s.srv.URL+"/x")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, big.NewInt(10000), budgettest.Spent(t, payer))
	assert.Equal(t, evm.USDCBaseSepolia, s.f.Settlements()[0].Asset)
}

func TestPlain402IsReturnedAsItIs(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusPaymentRequired)
		_, _ = io.WriteString(w, `{"error":"quota exhausted, upgrade your plan"}`)
	}))
	t.Cleanup(srv.Close)
	_, signer, client := newPayer(t, nil, 0, x402.Policy{MaxTotal: budget.Unlimited})
	resp, body, err := get(t, client, srv.URL)
	require.NoError(t, err)
	assert.Equal(t, http.StatusPaymentRequired, resp.StatusCode)
	assert.Equal(t, `{"error":"quota exhausted, upgrade your plan"}`, body)
	assert.Zero(t, signer.Signed())
}
