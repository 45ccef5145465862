package reportstoretest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/usdc"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// scan checks that no payment signature the suite sends ever reaches a log line or an error
// string.
var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }

// testKey is a well-known public test key (the second Hardhat development account).
const testKey = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"

// newServer starts a fake for one test.
func newServer(t *testing.T, opts ...Option) *Server { return testkit.Start(t, NewServer(opts...)) }

// payingClient returns an *http.Client paying from a wallet funded with 10 USDC in s, with no
// total limit (budget.Unlimited).
func payingClient(t *testing.T, s *Server) (*http.Client, *x402.Payer) {
	t.Helper()
	payer := fundedPayer(t, s)
	return &http.Client{Transport: payer.RoundTripper(nil)}, payer
}

// fundedPayer returns a payer with no total limit (budget.Unlimited), paying EVM exact from
// testKey's account, which s's facilitator funds with 10 USDC.
func fundedPayer(t *testing.T, s *Server, opts ...x402.PayerOption) *x402.Payer {
	t.Helper()
	signer, err := evm.NewPrivateKeySigner(testKey)
	require.NoError(t, err)
	scheme, err := evm.NewExact(signer)
	require.NoError(t, err)
	payer, err := x402.NewPayer(x402.Policy{MaxTotal: budget.Unlimited}, []x402.Scheme{scheme}, opts...)
	require.NoError(t, err)
	s.Facilitator().Fund(signer.Address(), usdc.Dollars(10))
	return payer
}

// get fetches url with c and returns the status, content type and body.
func get(t *testing.T, c *http.Client, url string) (int, string, string) {
	t.Helper()
	resp, err := c.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
}

func TestEveryFormatIsMarkedSyntheticAndDeterministic(t *testing.T) {
	t.Parallel()
	a, b := newServer(t), newServer(t)
	ca, _ := payingClient(t, a)
	cb, _ := payingClient(t, b)
	for format, marker := range map[string]string{
		"html":        Notice,
		"json":        `"synthetic":true`,
		"csv":         ",synthetic\n",
		"summary-csv": ",synthetic\n",
	} {
		status, ct, bodyA := get(t, ca, a.URL+"/report/macro-gdp?format="+format)
		require.Equal(t, http.StatusOK, status, format)
		assert.Equal(t, formats[format], ct)
		assert.Contains(t, bodyA, marker, format)
		_, _, bodyB := get(t, cb, b.URL+"/report/macro-gdp?format="+format)
		assert.Equal(t, bodyA, bodyB, "same data on every server: %s", format)
	}
	status, ct, _ := get(t, ca, a.URL+"/report/macro-gdp")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, formats["html"], ct, "html is the default")
	assert.Len(t, a.Facilitator().Settlements(), 5)
}

func TestFreeEndpoints(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	for _, path := range []string{"/catalog", "/start", "/preview/macro-gdp"} {
		status, ct, body := get(t, http.DefaultClient, s.URL+path)
		assert.Equal(t, http.StatusOK, status, path)
		assert.Equal(t, "application/json", ct, path)
		assert.True(t, json.Valid([]byte(body)), path)
		assert.Contains(t, body, `"synthetic":true`, path)
	}
	var catalog struct {
		Count    int `json:"count"`
		Products []struct {
			ID    string `json:"id"`
			Kind  string `json:"kind"`
			Price string `json:"price"`
		} `json:"products"`
	}
	_, _, body := get(t, http.DefaultClient, s.URL+"/catalog")
	require.NoError(t, json.Unmarshal([]byte(body), &catalog))
	assert.Equal(t, 80, catalog.Count)
	assert.Len(t, catalog.Products, 80)
	assert.Equal(t, "0.130000", catalog.Products[0].Price)

	for _, path := range []string{"/preview/custom", "/preview/nope", "/nothing", "/report/nope"} {
		status, _, body := get(t, http.DefaultClient, s.URL+path)
		assert.Equal(t, http.StatusNotFound, status, path)
		assert.Contains(t, body, `"error":"not_found"`, path)
	}
	assert.Empty(t, s.Facilitator().Settlements())
}

func TestBadRequestsAreRefusedBeforePayment(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, payer := payingClient(t, s)
	for path, code := range map[string]string{
		"/report/macro-gdp?format=xml":                       "unsupported_format",
		"/report/custom?indicators=":                         "invalid_parameter",
		"/report/custom?indicators=NOPE":                     "invalid_parameter",
		"/report/custom?indicators=SP.POP.TOTL&countries=XX": "invalid_parameter",
	} {
		status, _, body := get(t, c, s.URL+path)
		assert.Equal(t, http.StatusBadRequest, status, path)
		assert.Contains(t, body, `"error":"`+code+`"`, path)
	}
	assert.Empty(t, s.Facilitator().Settlements())
	assert.Equal(t, "0", budgettest.Spent(t, payer).String())
}

func TestChallengeCarriesThePriceAndPayee(t *testing.T) {
	t.Parallel()
	const payee = "0x5555555555555555555555555555555555555555"
	price := usdc.Cents(42)
	s := newServer(t, WithPayTo(payee), WithPrice("macro-gdp", price))
	resp, err := http.Get(s.URL + "/report/macro-gdp?format=csv")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusPaymentRequired, resp.StatusCode)
	pr, err := wire.ReadPaymentRequired(resp)
	require.NoError(t, err)
	require.Len(t, pr.Accepts, 1)
	r := pr.Accepts[0]
	assert.Equal(t, "420000", r.Amount.String())
	assert.Equal(t, payee, r.PayTo)
	assert.Equal(t, evm.NetworkBase, r.Network)
	assert.Equal(t, evm.USDCBase, r.Asset)
	assert.Equal(t, payee, s.PayTo())
	got, ok := s.Price("macro-gdp")
	require.True(t, ok)
	assert.Equal(t, price, got)
	_, ok = s.Price("nope")
	assert.False(t, ok)
	assert.Panics(t, func() { s.SetPrice("nope", price) })
}

func TestBespokePriceGrowsWithIndicators(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	for query, want := range map[string]string{
		"indicators=SP.POP.TOTL":                                  "200000",
		"indicators=SP.POP.TOTL,NY.GDP.MKTP.CD,FP.CPI.TOTL.ZG":    "300000",
		"indicators=" + strings.Join(s.allIndicators()[:30], ","): "950000",
	} {
		resp, err := http.Get(s.URL + "/report/custom?" + query)
		require.NoError(t, err)
		pr, err := wire.ReadPaymentRequired(resp)
		resp.Body.Close()
		require.NoError(t, err)
		assert.Equal(t, want, pr.Accepts[0].Amount.String(), query)
	}
}

func TestLargeReportHasTheAnnouncedLength(t *testing.T) {
	t.Parallel()
	for _, size := range []int64{0, 35, 36, 84, 85, 1 << 20} {
		var b strings.Builder
		require.NoError(t, writeLarge(&b, size))
		assert.Equal(t, largeLength(size), int64(b.Len()), size)
		assert.LessOrEqual(t, int64(b.Len()), max(size, int64(len(largeHeader))))
		assert.True(t, strings.HasPrefix(b.String(), largeHeader))
	}
	var b strings.Builder
	require.NoError(t, writeLarge(&b, 1<<20))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	assert.Equal(t, "US,2015,SYN.STREAM.000000,", lines[1][:26])
	assert.Equal(t, "US,2025,SYN.STREAM.000000,", lines[11][:26])
	assert.Equal(t, "CN,2015,SYN.STREAM.000000,", lines[12][:26])
	assert.Equal(t, "US,2015,SYN.STREAM.000001,", lines[221][:26])
	for _, l := range lines[1:] {
		require.Len(t, l, largeRowLen-1)
	}
}

func TestLatencyDelaysResponses(t *testing.T) {
	t.Parallel()
	s := newServer(t, WithLatency(time.Hour))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/catalog", nil)
	require.NoError(t, err)
	_, err = http.DefaultClient.Do(req)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestSameSignedPaymentIsDeliveredAgainWithoutPayingAgain(t *testing.T) {
	t.Parallel()
	s := newServer(t, WithReplayedDeliveries())
	_, payer := payingClient(t, s)
	rec := &recordingTransport{next: http.DefaultTransport}
	c := &http.Client{Transport: payer.RoundTripper(rec)}
	status, _, first := get(t, c, s.URL+"/report/macro-gdp?format=csv")
	header := rec.payment
	require.Equal(t, http.StatusOK, status)
	require.NotEmpty(t, header)

	replay, err := http.NewRequest(http.MethodGet, s.URL+"/report/macro-gdp?format=csv", nil)
	require.NoError(t, err)
	replay.Header.Set(wire.HeaderPaymentSignature, header)
	resp, err := http.DefaultClient.Do(replay)
	require.NoError(t, err)
	defer resp.Body.Close()
	again, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, first, string(again))
	receipt, ok := x402.ReceiptFrom(resp)
	require.True(t, ok)
	assert.Equal(t, s.Facilitator().Settlements()[0].TxHash, receipt.Transaction)
	assert.Len(t, s.Facilitator().Settlements(), 1)
	assert.Equal(t, 1, s.Sales("macro-gdp"))

	// For another target the same payment is not a replay: it is refused.
	other, err := http.NewRequest(http.MethodGet, s.URL+"/report/macro-gdp?format=json", nil)
	require.NoError(t, err)
	other.Header.Set(wire.HeaderPaymentSignature, header)
	resp2, err := http.DefaultClient.Do(other)
	require.NoError(t, err)
	resp2.Body.Close()
	assert.Equal(t, http.StatusPaymentRequired, resp2.StatusCode)
	assert.Len(t, s.Facilitator().Settlements(), 1)
}

func TestReplayedPaymentIsRefusedByDefault(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	_, payer := payingClient(t, s)
	rec := &recordingTransport{next: http.DefaultTransport}
	c := &http.Client{Transport: payer.RoundTripper(rec)}
	status, _, _ := get(t, c, s.URL+"/report/macro-gdp?format=csv")
	require.Equal(t, http.StatusOK, status)

	replay, err := http.NewRequest(http.MethodGet, s.URL+"/report/macro-gdp?format=csv", nil)
	require.NoError(t, err)
	replay.Header.Set(wire.HeaderPaymentSignature, rec.payment)
	resp, err := http.DefaultClient.Do(replay)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusPaymentRequired, resp.StatusCode)
	assert.Len(t, s.Facilitator().Settlements(), 1)
	assert.Equal(t, 1, s.Sales("macro-gdp"))
}

func TestFaultsAfterSettlingStillBookTheSale(t *testing.T) {
	t.Parallel()
	s := newServer(t, WithFaults(x402test.FaultErrorAfterSettle))
	_, payer := payingClient(t, s)
	raw := &http.Client{Transport: payer.RoundTripper(nil)}
	resp, err := raw.Get(s.URL + "/report/macro-gdp?format=csv")
	if err == nil {
		resp.Body.Close()
	}
	require.Error(t, err, "a 500 after paying is an error of the paying transport")
	assert.Len(t, s.Facilitator().Settlements(), 1)
	assert.Equal(t, 1, s.Sales("macro-gdp"), "the money moved, so the store booked the sale")
}

func TestAfterNextChallengeRunsOnceAfterTheChallenge(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	calls := 0
	s.AfterNextChallenge(func() { calls++ })
	for range 2 {
		resp, err := http.Get(s.URL + "/report/macro-gdp?format=csv")
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusPaymentRequired, resp.StatusCode)
	}
	assert.Equal(t, 1, calls)
}

func TestInjectedFaultsAnswerInTheStoresErrorShape(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.InjectFaults(sdktest.Fault{Path: "/catalog", Status: http.StatusServiceUnavailable, Code: "busy", Message: "try later",
		RetryAfter: 3 * time.Second})
	status, ct, body := get(t, s.Client(), s.URL+"/catalog")
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.Equal(t, "application/json", ct)
	assert.JSONEq(t, `{"error": "busy", "message": "try later"}`, body)
	status, _, _ = get(t, s.Client(), s.URL+"/catalog")
	assert.Equal(t, http.StatusOK, status, "the fault was used up")
	status, _, _ = get(t, s.Client(), s.URL+"/start")
	assert.Equal(t, http.StatusOK, status)

	assert.Equal(t, 2, s.RequestCount(http.MethodGet, "/catalog"))
	assert.Equal(t, 3, s.RequestCount("", ""))
	requests := s.Requests()
	require.Len(t, requests, 3)
	assert.Equal(t, http.StatusServiceUnavailable, requests[0].Status)
	assert.Equal(t, http.StatusOK, requests[1].Status)
	assert.Equal(t, "/start", requests[2].Path)
}

func TestRequestsRedactThePayment(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, _ := payingClient(t, s)
	status, _, _ := get(t, c, s.URL+"/report/macro-gdp?format=json")
	require.Equal(t, http.StatusOK, status)
	requests := s.Requests()
	require.Len(t, requests, 2)
	assert.Empty(t, requests[0].Header.Get(wire.HeaderPaymentSignature))
	assert.Equal(t, http.StatusPaymentRequired, requests[0].Status)
	assert.Equal(t, sdktest.Redacted, requests[1].Header.Get(wire.HeaderPaymentSignature))
	assert.Equal(t, http.StatusOK, requests[1].Status)
	assert.Equal(t, "json", requests[1].Query.Get("format"))
}

func TestInjectSettlementFaults(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	payer := fundedPayer(t, s, x402.WithResend(0, 0)) // each fault meets its own payment
	c := &http.Client{Transport: payer.RoundTripper(nil)}
	s.InjectSettlementFaults(x402test.FaultErrorBeforeSettle, x402test.NoFault, x402test.FaultErrorAfterSettle)
	resp, err := c.Get(s.URL + "/report/macro-gdp?format=csv")
	if err == nil {
		resp.Body.Close()
	}
	require.Error(t, err, "a 503 to a payment leaves it in doubt for the payer")
	assert.Empty(t, s.Facilitator().Settlements(), "the fault came before settling")

	status, _, _ := get(t, c, s.URL+"/report/macro-gdp?format=csv")
	assert.Equal(t, http.StatusOK, status, "NoFault lets the next paid request through")
	assert.Len(t, s.Facilitator().Settlements(), 1)

	resp, err = c.Get(s.URL + "/report/macro-gdp?format=csv")
	if err == nil {
		resp.Body.Close()
	}
	require.Error(t, err)
	assert.Len(t, s.Facilitator().Settlements(), 2, "the fault came after settling")
	assert.Equal(t, 2, s.Sales("macro-gdp"))
	assert.Equal(t, "130000", budgettest.Spent(t, payer).String())
}

// recordingTransport keeps the last PAYMENT-SIGNATURE sent through it.
type recordingTransport struct {
	next    http.RoundTripper
	payment string
}

// RoundTrip records the payment header and sends req.
func (rt *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if v := req.Header.Get(wire.HeaderPaymentSignature); v != "" {
		rt.payment = v
	}
	return rt.next.RoundTrip(req)
}

func TestWithClockTimesTheRecords(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	s := newServer(t, WithClock(sdktest.NewClock(at)))
	resp, err := http.Get(s.URL + "/catalog")
	require.NoError(t, err)
	resp.Body.Close()
	require.Len(t, s.Requests(), 1)
	assert.Equal(t, at, s.Requests()[0].Time)
}
