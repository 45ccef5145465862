package reportstore_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/wire"
)

// The tests of hostile stores measure time: their top-level tests are not parallel, so that
// they never share the machine with the rest of the package (their subtests run in parallel
// with each other), and their bounds are far below the defaults, so they stay fast, but far
// above what a healthy purchase takes.
var testTimeouts = sdk.Timeouts{Header: 500 * time.Millisecond, Attempt: 1500 * time.Millisecond, Idle: 500 * time.Millisecond}

// tick is the pace of a trickling store: one byte per tick, well within the Idle bound, so
// that only the bound on the headers or on the whole attempt can end the wait.
const tick = 100 * time.Millisecond

// watchdog is how long a test waits for a call before it counts it as hung.
const watchdog = 15 * time.Second

// silence is how a hostile store stops answering.
type silence int

const (
	// silentHeaders sends nothing at all.
	silentHeaders silence = iota + 1
	// trickleHeaders sends a status line and headers one byte per tick, without end.
	trickleHeaders
	// silentBody sends the headers and the first half of the body, then nothing.
	silentBody
	// trickleBody sends the headers, then the body one byte per tick, then spaces without
	// end.
	trickleBody
)

func (s silence) String() string {
	return map[silence]string{silentHeaders: "silent before the headers", trickleHeaders: "trickled headers",
		silentBody: "silent in the body", trickleBody: "trickled body"}[s]
}

// stage is the answer at which a hostile store in front of a real one stops answering.
type stage int

const (
	// anyAnswer is every answer.
	anyAnswer stage = iota
	// unpaidAnswer is the answer to a request without a payment (the 402 of a purchase).
	unpaidAnswer
	// paidAnswer is the answer to a paid request; the store behind has settled it.
	paidAnswer
)

// hostileFront starts a server that forwards every request to store and answers as store
// did, except at stage, where it answers as how says. Every wait ends when the client goes
// away or the server closes.
func hostileFront(t *testing.T, store *reportstoretest.Server, at stage, how silence) *httptest.Server {
	t.Helper()
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out, err := http.NewRequestWithContext(r.Context(), r.Method, store.URL+r.URL.RequestURI(), nil)
		if err != nil {
			panic(err)
		}
		out.Header = r.Header.Clone()
		resp, err := store.Client().Do(out)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		paid := r.Header.Get(wire.HeaderPaymentSignature) != ""
		if at == anyAnswer || (at == paidAnswer) == paid {
			misbehave(w, r, resp, body, how)
			return
		}
		for k, vs := range resp.Header {
			w.Header()[k] = vs
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(body)
	}))
	t.Cleanup(front.Close)
	return front
}

// misbehave answers with resp and body as how says.
func misbehave(w http.ResponseWriter, r *http.Request, resp *http.Response, body []byte, how silence) {
	ctx := r.Context()
	drip := func(write func(b []byte) error, data []byte) {
		for i := 0; ; i++ {
			b := []byte{' '}
			if i < len(data) {
				b = data[i : i+1]
			}
			if write(b) != nil {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(tick):
			}
		}
	}
	switch how {
	case silentHeaders:
		<-ctx.Done()
		return
	case trickleHeaders:
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		defer conn.Close()
		go func() { _, _ = io.Copy(io.Discard, conn) }() // notices the client going away
		head := "HTTP/1.1 " + strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode) + "\r\n"
		for k, vs := range resp.Header {
			for _, v := range vs {
				head += k + ": " + v + "\r\n"
			}
		}
		drip(func(b []byte) error {
			_, err := conn.Write(b)
			return err
		}, []byte(head+"X-Padding: "))
		return
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	write := func(b []byte) error {
		if _, err := w.Write(b); err != nil {
			return err
		}
		return rc.Flush()
	}
	if how == silentBody {
		_ = write(body[:len(body)/2])
		<-ctx.Done()
		return
	}
	drip(write, body)
}

// ended runs call and checks that it ended before the watchdog, whose end is a cancellation:
// a call that ended by it waited for the caller to give up.
func ended(t *testing.T, call func(ctx context.Context) error) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := time.AfterFunc(watchdog, cancel)
	defer stop.Stop()
	began := time.Now()
	err := call(ctx)
	took := time.Since(began)
	t.Logf("after %v: %v", took, err)
	require.Less(t, took, watchdog, "the call ended only when the caller gave up: %v", err)
	return err
}

// requireBounded checks that a call ended by a bound of the client, with an error that says
// so, and returns its error.
func requireBounded(t *testing.T, call func(ctx context.Context) error) error {
	t.Helper()
	err := ended(t, call)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "within", "the error says which bound fired")
	return err
}

func TestFreeCallsEndWhenTheStoreGoesSilent(t *testing.T) {
	store := testkit.Start(t, reportstoretest.NewServer())
	calls := map[string]func(ctx context.Context, c *reportstore.Client) error{
		"Catalog": func(ctx context.Context, c *reportstore.Client) error { _, err := c.Catalog(ctx); return err },
		"Preview": func(ctx context.Context, c *reportstore.Client) error {
			_, err := c.Preview(ctx, "macro-gdp")
			return err
		},
		"Start": func(ctx context.Context, c *reportstore.Client) error { _, err := c.Start(ctx); return err },
		"Quote": func(ctx context.Context, c *reportstore.Client) error {
			_, err := c.Quote(ctx, "macro-gdp", reportstore.FormatCSV)
			return err
		},
	}
	for _, how := range []silence{silentHeaders, trickleHeaders, silentBody, trickleBody} {
		front := hostileFront(t, store, anyAnswer, how)
		for name, call := range calls {
			t.Run(how.String()+"/"+name, func(t *testing.T) {
				t.Parallel()
				c, err := reportstore.New(reportstore.WithBaseURL(front.URL), reportstore.WithTimeouts(testTimeouts),
					reportstore.WithRetry(sdk.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}))
				require.NoError(t, err)
				if name == "Quote" && (how == silentBody || how == trickleBody) {
					// The challenge is in the 402's header: the quote does not need the body
					// the bound cut short.
					require.NoError(t, ended(t, func(ctx context.Context) error { return call(ctx, c) }))
					return
				}
				err = requireBounded(t, func(ctx context.Context) error { return call(ctx, c) })
				var re *sdk.RequestError
				require.ErrorAs(t, err, &re)
			})
		}
	}
}

func TestPurchasesEndWhenTheStoreGoesSilent(t *testing.T) {
	type buy func(ctx context.Context, c *reportstore.Client) error
	report := func(ctx context.Context, c *reportstore.Client) error {
		_, err := c.Report(ctx, "macro-gdp", reportstore.FormatCSV)
		return err
	}
	fetch := func(ctx context.Context, c *reportstore.Client) error {
		_, err := c.Fetch(ctx, &reportstore.FetchParams{Path: "/report/macro-gdp", Query: map[string][]string{"format": {"csv"}}})
		return err
	}
	openReport := func(ctx context.Context, c *reportstore.Client) error {
		s, err := c.OpenReport(ctx, "macro-gdp", reportstore.FormatCSV)
		if err != nil {
			return err
		}
		defer s.Close()
		_, err = io.Copy(io.Discard, s)
		return err
	}
	// money says what became of the payment: nothing signed, signed and in doubt, or paid.
	type money int
	const (
		unsigned money = iota
		inDoubt
		paid
	)
	for _, tc := range []struct {
		at    stage
		how   silence
		buys  map[string]buy
		money money
	}{
		{unpaidAnswer, silentHeaders, map[string]buy{"Report": report, "OpenReport": openReport, "Fetch": fetch}, unsigned},
		{unpaidAnswer, trickleHeaders, map[string]buy{"Report": report, "OpenReport": openReport, "Fetch": fetch}, unsigned},
		{unpaidAnswer, silentBody, map[string]buy{"Report": report, "OpenReport": openReport, "Fetch": fetch}, unsigned},
		{unpaidAnswer, trickleBody, map[string]buy{"Report": report, "OpenReport": openReport, "Fetch": fetch}, unsigned},
		{paidAnswer, silentHeaders, map[string]buy{"Report": report, "OpenReport": openReport, "Fetch": fetch}, inDoubt},
		{paidAnswer, trickleHeaders, map[string]buy{"Report": report, "OpenReport": openReport, "Fetch": fetch}, inDoubt},
		{paidAnswer, silentBody, map[string]buy{"Report": report, "OpenReport": openReport, "Fetch": fetch}, paid},
		{paidAnswer, trickleBody, map[string]buy{"Report": report, "Fetch": fetch}, paid},
	} {
		name := map[stage]string{unpaidAnswer: "unpaid", paidAnswer: "paid"}[tc.at] + " answer " + tc.how.String()
		for buyName, buy := range tc.buys {
			t.Run(name+"/"+buyName, func(t *testing.T) {
				t.Parallel()
				store := testkit.Start(t, reportstoretest.NewServer())
				payer := newPayer(t, store, x402.Policy{MaxTotal: budget.Unlimited})
				front := hostileFront(t, store, tc.at, tc.how)
				c, err := reportstore.New(reportstore.WithBaseURL(front.URL), reportstore.WithPayer(payer),
					reportstore.WithTimeouts(testTimeouts))
				require.NoError(t, err)

				err = requireBounded(t, func(ctx context.Context) error { return buy(ctx, c) })
				switch tc.money {
				case unsigned:
					var re *sdk.RequestError
					require.ErrorAs(t, err, &re, "nothing was paid: %v", err)
					assert.Equal(t, "0", budgettest.Reserved(t, payer).String())
					assert.Equal(t, "0", budgettest.Spent(t, payer).String())
					assert.Empty(t, store.Facilitator().Settlements())
				case inDoubt:
					var unconfirmed *x402.PaymentUnconfirmedError
					require.ErrorAs(t, err, &unconfirmed, "%v", err)
					assert.Equal(t, "130000", budgettest.Reserved(t, payer).String(), "it may have settled: it stays counted")
					assert.Equal(t, []int64{130000}, settledValues(store))
					require.Len(t, budgettest.Outstanding(t, payer), 1)
					assert.Equal(t, unconfirmed.ID, budgettest.Outstanding(t, payer)[0].ID)
				case paid:
					var delivery *reportstore.DeliveryError
					require.ErrorAs(t, err, &delivery, "%v", err)
					require.NotNil(t, delivery.Receipt)
					assert.Equal(t, store.Facilitator().Settlements()[0].TxHash, delivery.Receipt.Transaction)
					assert.Equal(t, "130000", budgettest.Spent(t, payer).String(), "a 2xx came: the payment is committed")
				}
			})
		}
	}
}

func TestAStalledStreamEndsByTheIdleBound(t *testing.T) {
	store := testkit.Start(t, reportstoretest.NewServer())
	payer := newPayer(t, store, x402.Policy{MaxTotal: budget.Unlimited})
	front := hostileFront(t, store, paidAnswer, silentBody)
	c, err := reportstore.New(reportstore.WithBaseURL(front.URL), reportstore.WithPayer(payer),
		reportstore.WithTimeouts(testTimeouts))
	require.NoError(t, err)

	s, err := c.OpenReport(context.Background(), "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	defer s.Close()
	require.NotNil(t, s.Receipt, "the payment is committed: a 2xx came")
	assert.Equal(t, "130000", budgettest.Spent(t, payer).String())
	var got bytes.Buffer
	err = requireBounded(t, func(ctx context.Context) error {
		defer context.AfterFunc(ctx, func() { s.Close() })()
		_, err := io.Copy(&got, s)
		return err
	})
	assert.NotEmpty(t, got.Bytes(), "the bytes before the stall were delivered")
	assert.Contains(t, err.Error(), "no data from the stream")
	var delivery *reportstore.DeliveryError
	require.ErrorAs(t, err, &delivery)
	assert.Equal(t, s.Receipt, delivery.Receipt)
}

func TestATricklingStreamOutlivesTheAttemptBound(t *testing.T) {
	store := testkit.Start(t, reportstoretest.NewServer())
	payer := newPayer(t, store, x402.Policy{MaxTotal: budget.Unlimited})
	front := hostileFront(t, store, paidAnswer, trickleBody)
	c, err := reportstore.New(reportstore.WithBaseURL(front.URL), reportstore.WithPayer(payer),
		reportstore.WithTimeouts(testTimeouts))
	require.NoError(t, err)

	s, err := c.OpenReport(context.Background(), "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	defer s.Close()
	// A stream is bounded between reads (Idle), not as a whole: bytes that keep coming are
	// read past the bound on an attempt.
	end := time.Now().Add(testTimeouts.Attempt + testTimeouts.Idle)
	buf := make([]byte, 1)
	n := 0
	for time.Now().Before(end) {
		_, err := s.Read(buf)
		require.NoError(t, err, "after %d bytes", n)
		n++
	}
	assert.Greater(t, n, 10)
}

func TestAPurchaseWithoutPayerEndsOnATrickledChallenge(t *testing.T) {
	store := testkit.Start(t, reportstoretest.NewServer())
	front := hostileFront(t, store, unpaidAnswer, trickleBody)
	c, err := reportstore.New(reportstore.WithBaseURL(front.URL), reportstore.WithTimeouts(testTimeouts))
	require.NoError(t, err)

	err = ended(t, func(ctx context.Context) error {
		_, err := c.Report(ctx, "macro-gdp", reportstore.FormatCSV)
		return err
	})
	var pr *reportstore.PaymentRequiredError
	require.ErrorAs(t, err, &pr, "the 402 is reported with what of its body came in time")
	require.NotNil(t, pr.Quote, "the challenge is in the header")
	assert.Equal(t, "130000", pr.Quote.Amount.String())
	assert.Empty(t, store.Facilitator().Settlements())
}

func TestTheBoundOfAPurchaseNamesItself(t *testing.T) {
	// Attempt below Header: the bound of the whole purchase fires first, wherever it is.
	timeouts := sdk.Timeouts{Header: 5 * time.Second, Attempt: time.Second, Idle: 5 * time.Second}
	for _, at := range []stage{unpaidAnswer, paidAnswer} {
		t.Run(map[stage]string{unpaidAnswer: "unpaid", paidAnswer: "paid"}[at], func(t *testing.T) {
			t.Parallel()
			store := testkit.Start(t, reportstoretest.NewServer())
			payer := newPayer(t, store, x402.Policy{MaxTotal: budget.Unlimited})
			front := hostileFront(t, store, at, silentHeaders)
			c, err := reportstore.New(reportstore.WithBaseURL(front.URL), reportstore.WithPayer(payer),
				reportstore.WithTimeouts(timeouts))
			require.NoError(t, err)

			err = requireBounded(t, func(ctx context.Context) error {
				_, err := c.Report(ctx, "macro-gdp", reportstore.FormatJSON)
				return err
			})
			// The core's attempt bound and the purchase's own are both Attempt: whichever fires
			// first names itself and its length.
			assert.Regexp(t, `the (attempt|purchase) did not end within 1s`, err.Error())
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			if at == paidAnswer {
				var unconfirmed *x402.PaymentUnconfirmedError
				require.ErrorAs(t, err, &unconfirmed)
				assert.Equal(t, "130000", budgettest.Reserved(t, payer).String())
			}
		})
	}
}

func TestACallerDeadlineDuringThePaidRequestLeavesThePaymentInDoubt(t *testing.T) {
	for name, end := range map[string]func(context.Context) (context.Context, context.CancelFunc){
		"deadline": func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, time.Second)
		},
		"cancel": func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(time.Second, cancel)
			return ctx, cancel
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store := testkit.Start(t, reportstoretest.NewServer())
			payer := newPayer(t, store, x402.Policy{MaxTotal: budget.Unlimited})
			front := hostileFront(t, store, paidAnswer, silentHeaders)
			c, err := reportstore.New(reportstore.WithBaseURL(front.URL), reportstore.WithPayer(payer))
			require.NoError(t, err)

			err = ended(t, func(ctx context.Context) error {
				ctx, cancel := end(ctx)
				defer cancel()
				_, err := c.Report(ctx, "macro-gdp", reportstore.FormatJSON)
				return err
			})
			var unconfirmed *x402.PaymentUnconfirmedError
			require.ErrorAs(t, err, &unconfirmed, "the payment left: its outcome is unknown")
			assert.Equal(t, "130000", budgettest.Reserved(t, payer).String())
			assert.Equal(t, []int64{130000}, settledValues(store))
		})
	}
}
