package x402test_test

import (
	"context"
	"errors"
	"io"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// payingClient returns a payer funded in srv's facilitator and a client paying through it.
func payingClient(t *testing.T, srv *x402test.Server) (*x402.Payer, *http.Client) {
	t.Helper()
	signer, err := evm.NewPrivateKeySigner("0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
	require.NoError(t, err)
	srv.Facilitator().Fund(signer.Address(), big.NewInt(1_000_000))
	payer := newPayer(t, signer, x402.Policy{PayTo: []string{x402test.DefaultPayTo}}, x402.WithResend(0, 0))
	return payer, &http.Client{Transport: payer.RoundTripper(srv.Client().Transport)}
}

func TestServerChargesTheDefaultPriceAndRecordsWithoutThePayment(t *testing.T) {
	t.Parallel()
	srv := x402test.NewServer()
	t.Cleanup(srv.Close)
	payer, client := payingClient(t, srv)

	resp, err := client.Get(srv.URL + "/doc/1")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.JSONEq(t, `{"paid":true,"path":"/doc/1"}`, string(body))
	assert.Equal(t, big.NewInt(x402test.DefaultPrice), budgettest.Spent(t, payer))
	settled := srv.Facilitator().Settlements()
	require.Len(t, settled, 1)
	assert.Equal(t, x402test.DefaultPayTo, settled[0].To)

	reqs := srv.Requests()
	require.Len(t, reqs, 2, "the unpaid request and the paid one")
	assert.Equal(t, http.StatusPaymentRequired, reqs[0].Status)
	assert.Equal(t, http.StatusOK, reqs[1].Status)
	assert.Equal(t, sdktest.Redacted, reqs[1].Header.Get(wire.HeaderPaymentSignature), "the payment never stays in a record")
	assert.Equal(t, 2, srv.RequestCount(http.MethodGet, "/doc/1"))
}

func TestServerSettlementFaultsComeFirstThenTheConfiguredOnes(t *testing.T) {
	t.Parallel()
	srv := x402test.NewServer(x402test.WithPaywall(x402test.PaywallConfig{
		PayTo: x402test.DefaultPayTo, Amount: big.NewInt(500),
		Fault: func(*http.Request) x402test.SettlementFault { return x402test.FaultErrorAfterSettle },
	}))
	t.Cleanup(srv.Close)
	payer, client := payingClient(t, srv)
	srv.InjectSettlementFaults(x402test.FaultErrorBeforeSettle)

	_, err := client.Get(srv.URL + "/a")
	var unconfirmed *x402.PaymentUnconfirmedError
	require.ErrorAs(t, err, &unconfirmed, "a 503 before settling leaves the payment in doubt for the payer")
	assert.Empty(t, srv.Facilitator().Settlements(), "the injected fault came before the configured one")

	_, err = client.Get(srv.URL + "/b")
	require.ErrorAs(t, err, &unconfirmed)
	assert.Len(t, srv.Facilitator().Settlements(), 1, "then the configured fault: settled, answered 500")
	assert.Equal(t, 0, budgettest.Spent(t, payer).Sign())
	assert.Equal(t, big.NewInt(1000), budgettest.Reserved(t, payer))
}

func TestServerInjectedFaultsReachNoPaywall(t *testing.T) {
	t.Parallel()
	srv := x402test.NewServer()
	t.Cleanup(srv.Close)
	srv.InjectFaults(sdktest.Fault{Status: http.StatusBadGateway, Code: "upstream", Message: "down"})
	resp, err := srv.Client().Get(srv.URL + "/x")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
	assert.Empty(t, resp.Header.Get(wire.HeaderPaymentRequired))
}

func TestServerCloseEndsAStalledPaidRequest(t *testing.T) {
	t.Parallel()
	srv := x402test.NewServer()
	_, client := payingClient(t, srv)
	srv.InjectSettlementFaults(x402test.FaultStallAfterSettle)
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL+"/slow", nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	require.Eventually(t, func() bool { return len(srv.Facilitator().Settlements()) == 1 }, 10*time.Second, time.Millisecond)
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited on the stalled request")
	}
	err := <-done
	var unconfirmed *x402.PaymentUnconfirmedError
	assert.True(t, errors.As(err, &unconfirmed), "the payer reports the stalled payment in doubt: %v", err)
}
