package gpuprice_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/usdc"
)

// solOf returns the lamports of wallet on srv's node.
func solOf(t *testing.T, srv *gpupricetest.Server, wallet solana.PublicKey) uint64 {
	t.Helper()
	b, err := rpc.New(srv.RPCURL).GetBalance(t.Context(), wallet, "")
	require.NoError(t, err)
	return b.Value
}

// buildFor returns the signed transaction of p on a fresh blockhash of srv.
func buildFor(t *testing.T, srv *gpupricetest.Server, p *gpuprice.BuyKeyParams) *solana.Transaction {
	t.Helper()
	bh, err := rpc.New(srv.RPCURL).GetLatestBlockhash(t.Context(), rpc.CommitmentConfirmed)
	require.NoError(t, err)
	tx, err := gpuprice.BuildKeyPayment(p, bh.Value.Blockhash)
	require.NoError(t, err)
	scan.Add(tx.Signatures[0].String())
	return tx
}

// assertRefusedForSOL checks that a purchase was refused for its SOL with want, before
// anything was sent, and that the budget holds nothing.
func assertRefusedForSOL(t *testing.T, srv *gpupricetest.Server, budget *budget.Budget, err error, want gpuprice.InsufficientSOLError) {
	t.Helper()
	require.ErrorIs(t, err, gpuprice.ErrInsufficientSOL)
	assert.Equal(t, want, *testkit.As[*gpuprice.InsufficientSOLError](t, err))
	assert.Zero(t, srv.RPCCalls()["sendTransaction"], "nothing was sent")
	assert.Empty(t, srv.Transactions())
	assertBudget(t, budget, 0, 0)
	assert.Empty(t, budgettest.Outstanding(t, budget))
}

func TestBuyKeyWithoutSOLSendsNothing(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	payer, key := newPayerWithSOL(t, srv, usdc.Dollars(8), 0)
	budget := budgetOf(t, 10_000_000)

	_, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
	assertRefusedForSOL(t, srv, budget, err, gpuprice.InsufficientSOLError{Have: 0, Need: 5_000, Fee: 5_000})
	assert.Equal(t, "gpuprice: the payer holds 0 SOL, the purchase needs 0.000005 SOL (fee 0.000005 SOL)", err.Error())
	assert.Equal(t, 1, srv.RPCCalls()["getFeeForMessage"], "the fee is the node's")
	assert.Equal(t, "$8.00", usdc.Format(srv.USDCBalance(key.PublicKey())))

	// The node would have refused it: the runtime knows no wallet without SOL.
	_, err = rpc.New(srv.RPCURL).SendTransaction(t.Context(), buildFor(t, srv, purchase(srv, payer, nil)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Attempt to debit an account but found no record of a prior credit")
}

func TestBuyKeyWithoutTheRentOfTheTreasuryAccountSendsNothing(t *testing.T) {
	t.Parallel()
	srv := startFake(t, gpupricetest.WithTreasuryATA(false))
	c := newClient(t, srv)
	payer, key := newPayerWithSOL(t, srv, usdc.Dollars(8), 1_000_000) // the fee, not the rent
	budget := budgetOf(t, 10_000_000)
	p := purchase(srv, payer, budget)
	p.CreateTreasuryAccount = true

	_, err := c.BuyKey(t.Context(), p)
	assertRefusedForSOL(t, srv, budget, err, gpuprice.InsufficientSOLError{Have: 1_000_000, Need: 2_044_280, Fee: 5_000, Rent: 2_039_280})
	assert.Equal(t, "gpuprice: the payer holds 0.001 SOL, the purchase needs 0.00204428 SOL "+
		"(fee 0.000005 SOL, rent of the treasury's new USDC account 0.00203928 SOL)", err.Error())
	assert.Equal(t, 1, srv.RPCCalls()["getMinimumBalanceForRentExemption"], "the rent is the node's")
	assert.Equal(t, uint64(1_000_000), solOf(t, srv, key.PublicKey()))

	// With exactly the fee and the rent it goes through, and leaves the wallet empty.
	srv.FundSOL(key.PublicKey(), 1_044_280)
	bought, err := c.BuyKey(t.Context(), p)
	require.NoError(t, err)
	scan.Add(bought.Key.Reveal())
	assert.Zero(t, solOf(t, srv, key.PublicKey()))
	assert.True(t, srv.TokenAccountExists(srv.TreasuryATA()))
	assertBudget(t, budget, 5_000_000, 0)
}

func TestBuyKeyPaysNoRentForAnExistingTreasuryAccount(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	payer, key := newPayerWithSOL(t, srv, usdc.Dollars(8), 5_000) // the fee, exactly
	p := purchase(srv, payer, budgetOf(t, 10_000_000))
	p.CreateTreasuryAccount = true

	bought, err := c.BuyKey(t.Context(), p)
	require.NoError(t, err, "the account exists: its creation is a no-op and costs nothing")
	scan.Add(bought.Key.Reveal())
	assert.Zero(t, solOf(t, srv, key.PublicKey()))
	assert.Zero(t, srv.RPCCalls()["getMinimumBalanceForRentExemption"], "spending it all needs no reserve")
}

func TestBuyKeyKeepsThePayerRentExempt(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	payer, key := newPayerWithSOL(t, srv, usdc.Dollars(8), 895_000) // 890,000 left after the fee
	budget := budgetOf(t, 10_000_000)

	_, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
	assertRefusedForSOL(t, srv, budget, err, gpuprice.InsufficientSOLError{Have: 895_000, Need: 895_880, Fee: 5_000, Reserve: 890_880})
	assert.Equal(t, "gpuprice: the payer holds 0.000895 SOL, the purchase needs 0.00089588 SOL (fee 0.000005 SOL, and 0.00089088 SOL "+
		"the wallet must keep to stay rent-exempt; or exactly 0.000005 SOL, spending it all)", err.Error())

	// The node would have refused it too.
	_, err = rpc.New(srv.RPCURL).SendTransaction(t.Context(), buildFor(t, srv, purchase(srv, payer, nil)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "insufficient funds for rent")

	srv.FundSOL(key.PublicKey(), 880)
	bought, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
	require.NoError(t, err)
	scan.Add(bought.Key.Reveal())
	assert.Equal(t, uint64(890_880), solOf(t, srv, key.PublicKey()))
}

// cannedNode is a transport to the fake node that answers one JSON-RPC method itself with
// body, and forwards the others.
type cannedNode struct {
	method, body string
}

// RoundTrip answers or forwards req.
func (n cannedNode) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	if rpcMethod(body) != n.method {
		req.Body = io.NopCloser(bytes.NewReader(body))
		return http.DefaultTransport.RoundTrip(req)
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader([]byte(n.body))), Request: req}, nil
}

func TestBuyKeyTakesTheFeeFromTheNodeOrFallsBackToTheClusterRate(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		answer string
		fee    uint64
	}{
		"the node's fee":         {`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":1},"value":7000}}`, 7_000},
		"an unknown blockhash":   {`{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":1},"value":null}}`, 5_000},
		"a node without pricing": {`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`, 5_000},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := startFake(t)
			c := newClient(t, srv, gpuprice.WithRPCClient(nodeThrough(srv, cannedNode{"getFeeForMessage", tc.answer})))
			payer, _ := newPayerWithSOL(t, srv, usdc.Dollars(8), 4_000)
			budget := budgetOf(t, 10_000_000)
			_, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
			assertRefusedForSOL(t, srv, budget, err, gpuprice.InsufficientSOLError{Have: 4_000, Need: tc.fee, Fee: tc.fee})
		})
	}
}

func TestBuyKeyWhenTheNodeCannotPriceTheFeeReleases(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv, gpuprice.WithRPCClient(nodeThrough(srv, cannedNode{"getFeeForMessage",
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"Node is unhealthy"}}`})))
	payer, _ := newPayer(t, srv, usdc.Dollars(8))
	budget := budgetOf(t, 10_000_000)
	_, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
	re := testkit.As[*svm.RPCError](t, err)
	assert.Equal(t, "getFeeForMessage", re.Method)
	assert.Equal(t, -32005, re.Code)
	assert.Zero(t, srv.RPCCalls()["sendTransaction"])
	assertBudget(t, budget, 0, 0)
}
