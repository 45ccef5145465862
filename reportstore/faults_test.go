package reportstore_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/usdc"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

func TestServerErrorAfterSettlingIsUnconfirmedAndCounted(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer(reportstoretest.WithFaults(x402test.FaultErrorAfterSettle)))
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited, AllowRequote: true})
	c := newClient(t, srv, payer)

	// The payer re-sends the same payment after the 500; the store refuses the used nonce
	// with a 402, which after a doubt is neither a rejection nor a quote to pay.
	_, err := c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
	var unconfirmed *x402.PaymentUnconfirmedError
	require.ErrorAs(t, err, &unconfirmed)
	var rejected *x402.PaymentRejectedError
	assert.False(t, errors.As(err, &rejected), "a payment that may have settled is never called rejected")
	assert.Contains(t, err.Error(), "/report/macro-gdp")
	assert.Equal(t, []int64{130000}, settledValues(srv), "settled once, never re-quoted")
	assert.Equal(t, "0", budgettest.Spent(t, payer).String())
	assert.Equal(t, "130000", budgettest.Reserved(t, payer).String())
	require.Len(t, budgettest.Outstanding(t, payer), 1)
	assert.Equal(t, unconfirmed.ID, budgettest.Outstanding(t, payer)[0].ID)
}

func TestChallengeAfterSettlingKeepsTheAuthorizationCounted(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer(reportstoretest.WithFaults(x402test.FaultChallengeAfterSettle)))
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer)

	// The store settles, then answers 402 as if it had refused: the payer cannot tell, so it
	// reports a rejection but keeps the signed amount counted until it expires.
	_, err := c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
	var rejected *x402.PaymentRejectedError
	require.ErrorAs(t, err, &rejected)
	assert.Equal(t, []int64{130000}, settledValues(srv))
	assert.Equal(t, "130000", budgettest.Reserved(t, payer).String(), "a refusal does not give the amount back before it expires")
	assert.Equal(t, "0", budgettest.Spent(t, payer).String())
}

func TestRequoteDuringAPurchase(t *testing.T) {
	t.Parallel()
	t.Run("within the cap is paid once at the new price", func(t *testing.T) {
		t.Parallel()
		srv := testkit.Start(t, reportstoretest.NewServer())
		srv.AfterNextChallenge(func() { srv.SetPrice("macro-gdp", usdc.Cents(15)) })
		payer := newPayer(t, srv, x402.Policy{MaxPerPayment: usdc.Cents(20), MaxTotal: budget.Unlimited, AllowRequote: true})
		c := newClient(t, srv, payer)

		r, err := c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
		require.NoError(t, err)
		require.NotNil(t, r.Receipt)
		assert.Equal(t, []int64{150000}, settledValues(srv))
		assert.Equal(t, "150000", budgettest.Spent(t, payer).String())
		// The refused authorization of 0.13 is held until it expires.
		assert.Equal(t, "130000", budgettest.Reserved(t, payer).String())
	})
	t.Run("above the cap is not paid", func(t *testing.T) {
		t.Parallel()
		srv := testkit.Start(t, reportstoretest.NewServer())
		srv.AfterNextChallenge(func() { srv.SetPrice("macro-gdp", usdc.Cents(90)) })
		payer := newPayer(t, srv, x402.Policy{MaxPerPayment: usdc.Cents(20), MaxTotal: budget.Unlimited, AllowRequote: true})
		c := newClient(t, srv, payer)

		_, err := c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
		var rejected *x402.PaymentRejectedError
		require.ErrorAs(t, err, &rejected)
		assert.ErrorIs(t, rejected.Requote, x402.ErrAmountOverCap)
		assert.Empty(t, settledValues(srv))
		assert.Equal(t, "0", budgettest.Spent(t, payer).String())
	})
	t.Run("to a foreign payee is not paid", func(t *testing.T) {
		t.Parallel()
		const impostor = "0x000000000000000000000000000000000000dEaD"
		srv := testkit.Start(t, reportstoretest.NewServer())
		srv.AfterNextChallenge(func() { srv.SetPayTo(impostor) })
		payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited, PayTo: []string{reportstoretest.DefaultPayTo}, AllowRequote: true})
		c := newClient(t, srv, payer)

		_, err := c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
		var rejected *x402.PaymentRejectedError
		require.ErrorAs(t, err, &rejected)
		assert.ErrorIs(t, rejected.Requote, x402.ErrPayToNotAllowed)
		assert.Empty(t, settledValues(srv))
		assert.Equal(t, "0", srv.Facilitator().Balance(impostor).String())
	})
}

func TestRedirectToAnotherHostIsNotPaid(t *testing.T) {
	t.Parallel()
	const impostor = "0x000000000000000000000000000000000000dEaD"
	other := testkit.Start(t, reportstoretest.NewServer(reportstoretest.WithPayTo(impostor)))
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	t.Cleanup(front.Close)
	payer := newPayer(t, other, x402.Policy{MaxTotal: budget.Unlimited})
	c, err := reportstore.New(reportstore.WithBaseURL(front.URL), reportstore.WithPayer(payer))
	require.NoError(t, err)

	_, err = c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
	var pe *x402.PolicyError
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, x402.ErrOriginNotAllowed)
	assert.Equal(t, other.URL, pe.Origin)
	assert.Empty(t, other.Facilitator().Settlements())
	assert.Equal(t, "0", budgettest.Reserved(t, payer).String(), "nothing was signed")
}

func TestPaidRedirectIsNotFollowed(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	target, err := url.Parse(srv.URL)
	require.NoError(t, err)
	var requests atomic.Int64
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if resp.StatusCode == http.StatusOK && resp.Header.Get(wire.HeaderPaymentResponse) != "" {
			// The store answers the paid request with a redirect to another report.
			resp.StatusCode, resp.Status = http.StatusFound, "302 Found"
			resp.Header.Set("Location", "/report/macro-inflation?format=csv")
		}
		return nil
	}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c, err := reportstore.New(reportstore.WithBaseURL(front.URL), reportstore.WithPayer(payer))
	require.NoError(t, err)

	_, err = c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
	var settled *x402.PaymentSettledError
	require.ErrorAs(t, err, &settled)
	require.NotNil(t, settled.Receipt)
	assert.True(t, settled.Receipt.Success)
	assert.Equal(t, http.StatusFound, settled.StatusCode)
	assert.Equal(t, int64(2), requests.Load(), "the unpaid request and the paid one; the redirect is not followed")
	assert.Equal(t, []int64{130000}, settledValues(srv))
	assert.Equal(t, "130000", budgettest.Spent(t, payer).String())
	assert.Equal(t, "0", budgettest.Reserved(t, payer).String())
}

// cancelOnPaidAnswer cancels a purchase's context as soon as its paid answer arrives.
type cancelOnPaidAnswer struct {
	next   http.RoundTripper
	cancel context.CancelFunc
}

func (t *cancelOnPaidAnswer) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusOK && req.Header.Get(wire.HeaderPaymentSignature) != "" {
		t.cancel()
	}
	return resp, err
}

func TestContextCancelledAfterThePaidAnswerKeepsTheReceipt(t *testing.T) {
	t.Parallel()
	// 32 MiB: far more than the connection's buffers hold when the context ends.
	srv := testkit.Start(t, reportstoretest.NewServer(reportstoretest.WithLargeReport("macro-big", 32<<20, usdc.Cents(13))))
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	for name, buy := range map[string]func(ctx context.Context, c *reportstore.Client) (*wire.SettleResponse, error){
		"Report": func(ctx context.Context, c *reportstore.Client) (*wire.SettleResponse, error) {
			_, err := c.Report(ctx, "macro-big", reportstore.FormatCSV)
			return nil, err
		},
		"OpenReport": func(ctx context.Context, c *reportstore.Client) (*wire.SettleResponse, error) {
			s, err := c.OpenReport(ctx, "macro-big", reportstore.FormatCSV)
			if err != nil {
				return nil, err
			}
			defer s.Close()
			_, err = io.Copy(io.Discard, s)
			return s.Receipt, err
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			hc := &http.Client{Transport: &cancelOnPaidAnswer{next: http.DefaultTransport, cancel: cancel}}
			c := newClient(t, srv, payer, reportstore.WithHTTPClient(hc))
			settled := len(srv.Facilitator().Settlements())

			opened, err := buy(ctx, c)
			var delivery *reportstore.DeliveryError
			require.ErrorAs(t, err, &delivery, "a paid answer is never turned into a bare context error")
			assert.ErrorIs(t, err, context.Canceled)
			require.NotNil(t, delivery.Receipt)
			assert.True(t, delivery.Receipt.Success)
			require.Len(t, srv.Facilitator().Settlements(), settled+1)
			assert.Equal(t, srv.Facilitator().Settlements()[settled].TxHash, delivery.Receipt.Transaction)
			if opened != nil {
				assert.Equal(t, delivery.Receipt, opened, "the stream had the receipt before the body failed")
			}
		})
	}
	assert.Equal(t, "260000", budgettest.Spent(t, payer).String())
}

func TestQuoteSaysWhyThePayerWouldRefuse(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	for name, tc := range map[string]struct {
		policy x402.Policy
		want   error
	}{
		"over the cap":  {x402.Policy{MaxPerPayment: usdc.Cents(10), MaxTotal: budget.Unlimited}, x402.ErrAmountOverCap},
		"foreign payee": {x402.Policy{MaxTotal: budget.Unlimited, PayTo: []string{"0x000000000000000000000000000000000000dEaD"}}, x402.ErrPayToNotAllowed},
	} {
		t.Run(name, func(t *testing.T) {
			payer := newPayer(t, srv, tc.policy)
			q, err := newClient(t, srv, payer).Quote(context.Background(), "macro-gdp", reportstore.FormatCSV)
			require.NoError(t, err)
			assert.Equal(t, "130000", q.Amount.String(), "the price is shown")
			assert.ErrorIs(t, q.Refusal, tc.want)
		})
	}
	t.Run("another network", func(t *testing.T) {
		payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited, Networks: []string{evm.NetworkBaseSepolia}})
		q, err := newClient(t, srv, payer).Quote(context.Background(), "macro-gdp", reportstore.FormatCSV)
		require.NoError(t, err)
		var nu *x402.NoUsableRequirementsError
		require.ErrorAs(t, q.Refusal, &nu)
		assert.Equal(t, evm.NetworkBase, q.Network)
	})
	t.Run("payable", func(t *testing.T) {
		payer := newPayer(t, srv, x402.Policy{MaxPerPayment: usdc.Cents(20), MaxTotal: budget.Unlimited, PayTo: []string{reportstoretest.DefaultPayTo}})
		q, err := newClient(t, srv, payer).Quote(context.Background(), "macro-gdp", reportstore.FormatCSV)
		require.NoError(t, err)
		assert.NoError(t, q.Refusal)
	})
	assert.Empty(t, srv.Facilitator().Settlements())
}

func TestQuoteDescribesTheEntryThePayerWouldPay(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		pr := &wire.PaymentRequired{
			X402Version: 2,
			Resource:    &wire.ResourceInfo{URL: "http://store/report/x"},
			Accepts: []wire.PaymentRequirements{
				{Scheme: evm.SchemeExact, Network: evm.NetworkBaseSepolia, Amount: usdc.Cents(10),
					Asset: evm.USDCBaseSepolia, PayTo: reportstoretest.DefaultPayTo, MaxTimeoutSeconds: 60,
					Extra: map[string]any{"name": "USDC", "version": "2"}},
				{Scheme: evm.SchemeExact, Network: evm.NetworkBase, Amount: usdc.Cents(13),
					Asset: evm.USDCBase, PayTo: reportstoretest.DefaultPayTo, MaxTimeoutSeconds: 60,
					Extra: map[string]any{"name": "USD Coin", "version": "2"}},
			},
		}
		v, err := wire.EncodePaymentRequired(pr)
		if err != nil {
			panic(err)
		}
		w.Header().Set(wire.HeaderPaymentRequired, v)
		w.WriteHeader(http.StatusPaymentRequired)
	}))
	t.Cleanup(srv.Close)
	payer, err := x402.NewPayer(x402.Policy{MaxTotal: budget.Unlimited}, exactScheme(t)) // Base mainnet only
	require.NoError(t, err)
	c, err := reportstore.New(reportstore.WithBaseURL(srv.URL), reportstore.WithPayer(payer))
	require.NoError(t, err)

	q, err := c.Quote(context.Background(), "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	assert.NoError(t, q.Refusal)
	assert.Equal(t, evm.NetworkBase, q.Network)
	assert.Equal(t, "130000", q.Amount.String())
	assert.Equal(t, "$0.13", usdc.Format(q.Amount))

	unpaid, err := reportstore.New(reportstore.WithBaseURL(srv.URL))
	require.NoError(t, err)
	q, err = unpaid.Quote(context.Background(), "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	assert.Equal(t, evm.NetworkBaseSepolia, q.Network, "without a payer, the first usable entry")
}
