package reportstore_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/wire"
)

// requireRateLimited checks that err is the *sdk.RateLimitError of the 429 the fake was told
// to answer for path: the store's code, the wait it asked for and its quota headers.
func requireRateLimited(t *testing.T, err error, path string) {
	t.Helper()
	require.ErrorIs(t, err, reportstore.ErrRateLimited)
	var rl *sdk.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, http.StatusTooManyRequests, rl.StatusCode)
	assert.Equal(t, path, rl.Path)
	assert.Equal(t, "rate_limited", rl.Code)
	assert.Equal(t, "slow down", rl.Message)
	assert.Equal(t, 7*time.Second, rl.RetryAfter)
	require.NotNil(t, rl.RateLimit)
	require.NotNil(t, rl.RateLimit.Limit)
	require.NotNil(t, rl.RateLimit.Remaining)
	assert.Equal(t, 60, *rl.RateLimit.Limit)
	assert.Equal(t, 0, *rl.RateLimit.Remaining)
	assert.Equal(t, "0", rl.Header.Get("X-RateLimit-Remaining"))
}

func TestA429IsARateLimitErrorWithItsHeaders(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer)
	ctx := context.Background()
	limited := func(path string) sdktest.Fault {
		return sdktest.Fault{Path: path, Status: http.StatusTooManyRequests, Code: "rate_limited", Message: "slow down",
			RetryAfter: 7 * time.Second, Header: http.Header{"X-Ratelimit-Limit": {"60"}, "X-Ratelimit-Remaining": {"0"}}}
	}

	srv.InjectFaults(limited("/catalog"))
	_, err := c.Catalog(ctx)
	requireRateLimited(t, err, "/catalog")

	srv.InjectFaults(limited("/preview/macro-gdp"))
	_, err = c.Preview(ctx, "macro-gdp")
	requireRateLimited(t, err, "/preview/macro-gdp")

	srv.InjectFaults(limited("/report/macro-gdp"))
	_, err = c.Quote(ctx, "macro-gdp", reportstore.FormatCSV)
	requireRateLimited(t, err, "/report/macro-gdp")

	srv.InjectFaults(limited("/report/macro-gdp"))
	_, err = c.Report(ctx, "macro-gdp", reportstore.FormatCSV)
	requireRateLimited(t, err, "/report/macro-gdp")
	assert.Equal(t, 2, srv.RequestCount(http.MethodGet, "/report/macro-gdp"), "the quote's request and the purchase's, unpaid")
	requireNoMoneyMoved(t, srv, payer)
	assert.Equal(t, "0", budgettest.Reserved(t, payer).String(), "nothing was signed")
}

func TestFreeRequestsAreNeverPaid(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer)
	ctx := context.Background()

	_, err := c.Catalog(ctx)
	require.NoError(t, err)
	_, err = c.Preview(ctx, "macro-gdp")
	require.NoError(t, err)
	_, err = c.Start(ctx)
	require.NoError(t, err)
	_, err = c.Quote(ctx, "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	requests := srv.Requests()
	require.Len(t, requests, 4)
	for _, r := range requests {
		assert.Empty(t, r.Header.Get(wire.HeaderPaymentSignature), r.Path)
	}
	assert.Equal(t, http.StatusPaymentRequired, requests[3].Status, "the quote's answer is the challenge, left unpaid")
	requireNoMoneyMoved(t, srv, payer)
	assert.Equal(t, "0", budgettest.Reserved(t, payer).String())

	_, err = c.Report(ctx, "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	requests = srv.Requests()[4:]
	require.Len(t, requests, 2, "the purchase: the unpaid request, then the paid one")
	assert.Empty(t, requests[0].Header.Get(wire.HeaderPaymentSignature))
	assert.Equal(t, http.StatusPaymentRequired, requests[0].Status)
	assert.Equal(t, sdktest.Redacted, requests[1].Header.Get(wire.HeaderPaymentSignature), "paid, and the record does not show the signature")
	assert.Equal(t, http.StatusOK, requests[1].Status)
	assert.Equal(t, "csv", requests[1].Query.Get("format"))
}

func TestEveryResultCarriesItsResponse(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	target, err := url.Parse(srv.URL)
	require.NoError(t, err)
	// A front that numbers every answer and reports a quota, as a real deployment might.
	var n atomic.Int64
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(resp *http.Response) error {
		resp.Header.Set("X-Request-Id", "req-"+strconv.FormatInt(n.Add(1), 10))
		resp.Header.Set("X-RateLimit-Remaining", "41")
		return nil
	}
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c, err := reportstore.New(reportstore.WithBaseURL(front.URL), reportstore.WithPayer(payer))
	require.NoError(t, err)
	ctx := context.Background()

	check := func(what string, r sdk.Response, status int, id string) {
		t.Helper()
		assert.Equal(t, status, r.StatusCode, what)
		assert.Equal(t, id, r.RequestID, what)
		assert.Equal(t, 1, r.Attempts, what)
		require.NotNil(t, r.RateLimit, what)
		require.NotNil(t, r.RateLimit.Remaining, what)
		assert.Equal(t, 41, *r.RateLimit.Remaining, what)
		assert.Equal(t, id, r.Header.Get("X-Request-Id"), what)
	}
	catalog, err := c.Catalog(ctx)
	require.NoError(t, err)
	check("catalog", catalog.Response, http.StatusOK, "req-1")
	preview, err := c.Preview(ctx, "macro-gdp")
	require.NoError(t, err)
	check("preview", preview.Response, http.StatusOK, "req-2")
	start, err := c.Start(ctx)
	require.NoError(t, err)
	check("start", start.Response, http.StatusOK, "req-3")
	quote, err := c.Quote(ctx, "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	check("quote", quote.Response, http.StatusPaymentRequired, "req-4")
	report, err := c.Report(ctx, "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	check("report", report.Response, http.StatusOK, "req-6") // req-5 is the purchase's challenge
	assert.NotEmpty(t, report.Response.Header.Get(wire.HeaderPaymentResponse))
	stream, err := c.OpenReport(ctx, "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	defer stream.Close()
	check("stream", stream.Response, http.StatusOK, "req-8")
}
