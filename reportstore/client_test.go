package reportstore_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
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

func TestNewNeedsABaseURL(t *testing.T) {
	t.Setenv(reportstore.EnvURL, "")
	_, err := reportstore.New()
	requireValidation(t, err, "base URL")
}

func TestNewReadsTheBaseURLFromTheEnvironment(t *testing.T) {
	srv := testkit.Start(t, reportstoretest.NewServer())
	t.Setenv(reportstore.EnvURL, srv.URL)
	c, err := reportstore.New()
	require.NoError(t, err)
	catalog, err := c.Catalog(context.Background())
	require.NoError(t, err)
	assert.Len(t, catalog.Products, 80)
}

func TestOptionsCheckTheirInput(t *testing.T) {
	t.Parallel()
	_, err := reportstore.New(reportstore.WithBaseURL("http://127.0.0.1:1"), reportstore.WithPayer(nil))
	requireValidation(t, err, "payer")
	for _, bad := range []string{"", "0x12", "7E57000000000000000000000000000000005707", "0xZZ57000000000000000000000000000000005707"} {
		_, err = reportstore.New(reportstore.WithBaseURL("http://127.0.0.1:1"), reportstore.WithExpectedPayee(bad))
		requireValidation(t, err, "expected payee")
	}
	_, err = reportstore.New(reportstore.WithBaseURL("ftp://host"))
	requireValidation(t, err, "base URL")
}

// challengeHeader returns a PAYMENT-REQUIRED value asking amount to payTo on Base.
func challengeHeader(t *testing.T, amount int64, payTo string) string {
	t.Helper()
	pr := &wire.PaymentRequired{
		X402Version: 2,
		Error:       "Payment required",
		Resource:    &wire.ResourceInfo{URL: "http://store/report/x"},
		Accepts: []wire.PaymentRequirements{{
			Scheme: evm.SchemeExact, Network: evm.NetworkBase, Amount: big.NewInt(amount),
			Asset: evm.USDCBase, PayTo: payTo, MaxTimeoutSeconds: 60,
			Extra: map[string]any{"name": "USD Coin", "version": "2"},
		}},
	}
	v, err := wire.EncodePaymentRequired(pr)
	require.NoError(t, err)
	return v
}

func TestQuoteSendsTheFormatUnpaid(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set(wire.HeaderPaymentRequired, challengeHeader(t, 130000, reportstoretest.DefaultPayTo))
		testkit.Reply(w, http.StatusPaymentRequired, `{}`)
	})
	c := testkit.New(t, reportstore.New, reportstore.WithBaseURL(srv.URL+"/proxy"))
	ctx := context.Background()

	for _, tc := range []struct {
		format        reportstore.Format
		query, accept string
	}{
		{reportstore.FormatCSV, "format=csv", "text/csv"},
		{reportstore.FormatSummaryCSV, "format=summary-csv", "text/csv"},
		{reportstore.FormatJSON, "format=json", "application/json"},
		{reportstore.FormatHTML, "format=html", "text/html"},
		{"", "", "text/html"},
		{"xlsx", "format=xlsx", "*/*"},
	} {
		q, err := c.Quote(ctx, "macro gdp", tc.format)
		require.NoError(t, err)
		assert.Equal(t, "$0.13", usdc.Format(q.Amount))
		reqs := srv.Requests()
		r := reqs[len(reqs)-1]
		assert.Equal(t, http.MethodGet, r.Method)
		assert.Equal(t, "/proxy/report/macro%20gdp", r.Path)
		assert.Equal(t, tc.query, r.Query.Encode())
		assert.Equal(t, tc.accept, r.Header.Get("Accept"))
		assert.Empty(t, r.Header.Get(wire.HeaderPaymentSignature))
		assert.Contains(t, r.Header.Get("User-Agent"), "reportstore")
	}
}

func TestQuoteWithoutAChallenge(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		if strings.HasSuffix(r.URL.Path, "/free") {
			_, _ = w.Write([]byte("a free report"))
			return
		}
		testkit.Reply(w, http.StatusPaymentRequired, `{"error": "pay"}`)
	})
	c := testkit.New(t, reportstore.New, reportstore.WithBaseURL(srv.URL))

	_, err := c.Quote(context.Background(), "free", reportstore.FormatCSV)
	require.ErrorIs(t, err, reportstore.ErrNoChallenge)
	_, err = c.Quote(context.Background(), "macro-gdp", reportstore.FormatCSV)
	var fe *wire.FormatError
	require.ErrorAs(t, err, &fe)
}

func TestQuoteNeedsAPositiveTimeout(t *testing.T) {
	t.Parallel()
	var body atomic.Value
	srv := testkit.Record(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set(wire.HeaderPaymentRequired, base64.StdEncoding.EncodeToString([]byte(body.Load().(string))))
		testkit.Reply(w, http.StatusPaymentRequired, `{}`)
	})
	c := testkit.New(t, reportstore.New, reportstore.WithBaseURL(srv.URL))

	const entry = `{"x402Version":2,"accepts":[{"scheme":"exact","network":"eip155:8453","amount":"130000",` +
		`"asset":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913","payTo":"` + reportstoretest.DefaultPayTo + `"` +
		`,"extra":{"name":"USD Coin","version":"2"}%s}]}`
	for _, timeout := range []string{``, `,"maxTimeoutSeconds":0`, `,"maxTimeoutSeconds":null`} {
		body.Store(fmt.Sprintf(entry, timeout))
		q, err := c.Quote(context.Background(), "macro-gdp", reportstore.FormatCSV)
		var nu *x402.NoUsableRequirementsError
		require.ErrorAs(t, err, &nu, "timeout %q: no quote with a 0 timeout", timeout)
		assert.Nil(t, q)
	}
	body.Store(fmt.Sprintf(entry, `,"maxTimeoutSeconds":45`))
	q, err := c.Quote(context.Background(), "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	assert.Equal(t, 45, q.MaxTimeoutSeconds)
}

func TestPurchasesAreNotRetriedButFreeCallsAre(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusServiceUnavailable, `{}`))
	c := testkit.New(t, reportstore.New, reportstore.WithBaseURL(srv.URL),
		reportstore.WithRetry(sdk.RetryPolicy{MaxAttempts: 3, BaseDelay: 1, MaxDelay: 1}))
	ctx := context.Background()

	_, err := c.Report(ctx, "macro-gdp", reportstore.FormatCSV)
	var apiErr *sdk.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 503, apiErr.StatusCode)
	assert.Len(t, srv.Requests(), 1)

	_, err = c.Catalog(ctx)
	require.ErrorAs(t, err, &apiErr)
	assert.Len(t, srv.Requests(), 4, "three attempts of the free call")
}

func TestForeignPayeeInARequoteIsNotPaid(t *testing.T) {
	t.Parallel()
	const other = "0x3333333333333333333333333333333333333333"
	srv := testkit.Record(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		payTo := reportstoretest.DefaultPayTo
		if r.Header.Get(wire.HeaderPaymentSignature) != "" {
			payTo = other // the server refuses the payment and asks another payee
		}
		w.Header().Set(wire.HeaderPaymentRequired, challengeHeader(t, 130000, payTo))
		w.WriteHeader(http.StatusPaymentRequired)
	})
	payer, err := x402.NewPayer(x402.Policy{MaxTotal: budget.Unlimited, AllowRequote: true}, exactScheme(t))
	require.NoError(t, err)
	c := testkit.New(t, reportstore.New, reportstore.WithBaseURL(srv.URL), reportstore.WithPayer(payer),
		reportstore.WithExpectedPayee(reportstoretest.DefaultPayTo))

	_, err = c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
	var pm *reportstore.PayeeMismatchError
	require.ErrorAs(t, err, &pm)
	assert.Equal(t, []string{other}, pm.Got)
	var rejected *x402.PaymentRejectedError
	assert.ErrorAs(t, err, &rejected, "the payer's rejection is kept")
	reqs := srv.Requests()
	require.Len(t, reqs, 2, "the unpaid request and one paid request")
	assert.Empty(t, reqs[0].Header.Get(wire.HeaderPaymentSignature))
	assert.NotEmpty(t, reqs[1].Header.Get(wire.HeaderPaymentSignature), "the re-quote to the other payee was never paid")
	assert.Equal(t, "0", budgettest.Spent(t, payer).String())
}

func TestFreeBodiesThatAreNotUnderstoodAreDecodeErrors(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		switch r.URL.Path {
		case "/catalog":
			testkit.Reply(w, http.StatusOK, `{"message": "maintenance"}`)
		case "/start":
			testkit.Reply(w, http.StatusOK, `not json`)
		default:
			testkit.Reply(w, http.StatusOK, `{"title": "no rows"}`)
		}
	})
	c := testkit.New(t, reportstore.New, reportstore.WithBaseURL(srv.URL))
	ctx := context.Background()

	var de *sdk.DecodeError
	_, err := c.Catalog(ctx)
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "/catalog", de.Path)
	assert.Equal(t, "application/json", de.ContentType)
	assert.Contains(t, de.Excerpt, "maintenance")
	_, err = c.Start(ctx)
	require.ErrorAs(t, err, &de)
	_, err = c.Preview(ctx, "macro-gdp")
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "/preview/macro-gdp", de.Path)
}

func TestTooLargeReportIsADeliveryError(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer(reportstoretest.WithLargeReport("macro-huge", reportstore.MaxReportBytes+1000, usdc.Cents(13))))
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer)

	_, err := c.Report(context.Background(), "macro-huge", reportstore.FormatCSV)
	var de *reportstore.DeliveryError
	require.ErrorAs(t, err, &de)
	require.NotNil(t, de.Receipt, "the payment went through")
	assert.Equal(t, srv.Facilitator().Settlements()[0].TxHash, de.Receipt.Transaction)
	assert.Contains(t, err.Error(), "OpenReport")
}

func TestSecretsNeverReachLogsOrErrors(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	var logMu sync.Mutex
	logger := slog.New(slog.NewJSONHandler(lockedWriter{&logs, &logMu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := testkit.Start(t, reportstoretest.NewServer())
	payer := newPayer(t, srv, x402.Policy{MaxTotal: usdc.Cents(30)})
	c := newClient(t, srv, payer, reportstore.WithLogger(logger))
	strict := newClient(t, srv, payer, reportstore.WithLogger(logger),
		reportstore.WithExpectedPayee("0x4444444444444444444444444444444444444444"))
	ctx := context.Background()

	var errs []error
	_, err := c.Report(ctx, "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	srv.Facilitator().FailNextSettle("unexpected_settle_error")
	_, err = c.Report(ctx, "macro-gdp", reportstore.FormatCSV)
	errs = append(errs, err)
	_, err = c.Report(ctx, "macro-current-account", reportstore.FormatCSV) // over the budget
	errs = append(errs, err)
	_, err = strict.Report(ctx, "macro-gdp", reportstore.FormatCSV)
	errs = append(errs, err)
	srv.InjectSettlementFaults(slices.Repeat([]x402test.SettlementFault{x402test.FaultDropAfterSettle}, 100)...)
	_, err = c.Report(ctx, "macro-population", reportstore.FormatCSV)
	errs = append(errs, err)

	logMu.Lock()
	logText := logs.String()
	logMu.Unlock()
	require.Contains(t, logText, "/report/macro-gdp", "logging is on")
	key := strings.TrimPrefix(testKey, "0x")
	texts := []string{logText}
	for _, err := range errs {
		require.Error(t, err)
		texts = append(texts, err.Error(), detailed(err))
	}
	for _, text := range texts {
		assert.NotContains(t, strings.ToLower(text), key)
		assert.NotContains(t, text, "eyJ", "no base64 JSON payment header")
		assert.NotContains(t, text, "format=csv", "no query string")
	}
}

// detailed renders err and everything it wraps with %+v and as JSON, to catch a secret in a
// field that Error does not print.
func detailed(err error) string {
	var b strings.Builder
	for e := err; e != nil; e = errors.Unwrap(e) {
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(errorDump(e), "\n", " "), "\t", " "))
	}
	return b.String()
}

// errorDump prints an error value's fields.
func errorDump(e error) string {
	j, _ := json.Marshal(e)
	return string(j)
}

// lockedWriter serialises writes to a buffer shared by concurrent loggers.
type lockedWriter struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
