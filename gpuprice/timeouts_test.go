package gpuprice_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/internal/stalltest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/usdc"
)

// smallTimeouts are the bounds of the tests below: far shorter than a server that sends a
// byte a second needs to answer.
var smallTimeouts = sdk.Timeouts{Header: 100 * time.Millisecond, Attempt: 300 * time.Millisecond, Idle: 100 * time.Millisecond}

// withinBounds is how long a call bounded by smallTimeouts may take, with room for a slow
// machine; a call that waited for the stalled server would take far longer.
const withinBounds = 3 * time.Second

// stallingNode starts a proxy to srv's node that stalls the JSON-RPC calls of method ("" for
// every call) and forwards the others.
func stallingNode(t *testing.T, srv *gpupricetest.Server, method string, trickle bool) string {
	t.Helper()
	done := make(chan struct{})
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		if method == "" || rpcMethod(body) == method {
			stalltest.Stall(w, r, done, trickle)
			return
		}
		resp, err := http.Post(srv.RPCURL, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(proxy.Close)
	t.Cleanup(func() { close(done) })
	return proxy.URL
}

// assertTimedOut checks that err is a typed error of a bound that fired, within the bounds.
func assertTimedOut(t *testing.T, err error, started time.Time, what string) {
	t.Helper()
	require.Error(t, err, what)
	assert.ErrorIs(t, err, context.DeadlineExceeded, what)
	assert.Less(t, time.Since(started), withinBounds, what)
}

func TestNoCallOfThePriceAPIHangs(t *testing.T) {
	t.Parallel()
	calls := map[string]func(context.Context, *gpuprice.Client) error{
		"GPUs":    func(ctx context.Context, c *gpuprice.Client) error { _, err := c.GPUs(ctx, nil); return err },
		"History": func(ctx context.Context, c *gpuprice.Client) error { _, err := c.History(ctx, nil); return err },
		"RedeemKey": func(ctx context.Context, c *gpuprice.Client) error {
			_, err := c.RedeemKey(ctx, aSignature)
			return err
		},
	}
	for _, trickle := range []bool{false, true} {
		base := stalltest.NewServer(t, trickle, nil).URL
		for name, call := range calls {
			c, err := gpuprice.New(gpuprice.WithBaseURL(base), gpuprice.WithAPIKey("gpk_timeout_test_key"),
				gpuprice.WithRetry(testkit.NoRetry), gpuprice.WithTimeouts(smallTimeouts))
			require.NoError(t, err)
			started := time.Now()
			err = call(t.Context(), c)
			what := sprintf("%s, trickle %t", name, trickle)
			assertTimedOut(t, err, started, what)
			testkit.As[*sdk.RequestError](t, err)
			if trickle {
				assert.Contains(t, err.Error(), "the attempt did not end within 300ms", what)
			} else {
				assert.Contains(t, err.Error(), "no response headers within 100ms", what)
			}
		}
	}
}

func TestNoCallOfTheSolanaNodeHangs(t *testing.T) {
	t.Parallel()
	for _, trickle := range []bool{false, true} {
		srv := startFake(t)
		c := newClient(t, srv, gpuprice.WithRPCURL(stallingNode(t, srv, "", trickle)), gpuprice.WithTimeouts(smallTimeouts))
		payer, _ := newPayer(t, srv, usdc.Dollars(8))
		budget := budgetOf(t, 10_000_000)

		started := time.Now()
		_, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
		what := sprintf("trickle %t", trickle)
		assertTimedOut(t, err, started, what)
		re := testkit.As[*svm.RPCError](t, err)
		assert.Equal(t, "getTokenAccountBalance", re.Method, what)
		assert.Contains(t, err.Error(), "within 300ms", what)
		assertBudget(t, budget, 0, 0) // nothing was sent: the reservation is given back
	}
}

// TestAStalledSendOrConfirmationIsInDoubtWithinTheBounds stalls the send, then the status
// checks: each check ends at the attempt bound and the confirmation wait goes on until its
// own bound (WithWait's Timeout), so the purchase ends within both.
func TestAStalledSendOrConfirmationIsInDoubtWithinTheBounds(t *testing.T) {
	t.Parallel()
	for _, method := range []string{"sendTransaction", "getSignatureStatuses"} {
		srv := startFake(t)
		node := rpc.New(stallingNode(t, srv, method, method == "getSignatureStatuses"))
		c := newClient(t, srv, gpuprice.WithRPCClient(node), gpuprice.WithTimeouts(smallTimeouts),
			gpuprice.WithWait(sdk.WaitPolicy{Timeout: time.Second}))
		payer, _ := newPayer(t, srv, usdc.Dollars(8))
		budget := budgetOf(t, 10_000_000)

		started := time.Now()
		_, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
		assertTimedOut(t, err, started, method)
		require.ErrorIs(t, err, gpuprice.ErrPaymentInDoubt, method)
		assert.Equal(t, method, testkit.As[*svm.RPCError](t, err).Method)
		assertBudget(t, budget, 0, 5_000_000) // it may have landed: it stays counted
	}
}
