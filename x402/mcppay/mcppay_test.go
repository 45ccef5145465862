package mcppay_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/mcppay"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// A paid tool served by x402test is paid over either transport, on EVM and on Solana from
// one server offering both, and the budget's Spent is what the facilitator settled.
func TestPaysAPaidToolAndSpendsWhatSettled(t *testing.T) {
	t.Parallel()
	solanaShop := newSolanaAddress()
	for _, transport := range transports {
		for _, rail := range []string{"evm", "solana"} {
			t.Run(transport+"/"+rail, func(t *testing.T) {
				t.Parallel()
				srv := x402test.NewMCPServer(x402test.WithMCPPaywall(x402test.MCPPaywallConfig{Paywall: x402test.PaywallConfig{
					Amount: big.NewInt(2_500),
					Offers: []x402test.Offer{{PayTo: shop}, {PayTo: solanaShop, Network: svm.NetworkMainnet}},
				}}))
				t.Cleanup(srv.Close)
				policy := x402.Policy{MaxTotal: big.NewInt(100_000)}
				var payer *x402.Payer
				if rail == "evm" {
					payer, _ = newPayer(t, srv.Facilitator(), 100_000, policy)
				} else {
					scheme, _ := newSolanaScheme(t, srv, 100_000)
					p, opts := budgettest.ForPayer(t, policy, nil)
					var err error
					payer, err = x402.NewPayer(p, []x402.Scheme{scheme}, opts...)
					require.NoError(t, err)
				}
				c := newClient(t, connect(t, srv, transport), payer)
				for i := range 3 {
					res, err := call(c, x402test.DefaultMCPTool, map[string]any{"i": i})
					require.NoError(t, err)
					assert.False(t, res.IsError)
					assert.JSONEq(t, fmt.Sprintf(`{"i":%d}`, i), text(t, res.CallToolResult))
					require.NotNil(t, res.Payment)
					assert.Equal(t, big.NewInt(2_500), res.Payment.Amount)
					assert.Equal(t, "mcp://tool/echo", res.Payment.Resource)
					require.NotNil(t, res.Receipt)
					assert.True(t, res.Receipt.Success)
					last := srv.Facilitator().Settlements()[i]
					assert.Equal(t, last.TxHash, res.Receipt.Transaction)
					assert.Equal(t, last.ID, res.Payment.ID)
				}
				assert.Equal(t, big.NewInt(7_500), settled(srv.Facilitator()))
				assert.Equal(t, big.NewInt(7_500), budgettest.Spent(t, payer), "Spent is what the facilitator settled")
				assert.Zero(t, budgettest.Reserved(t, payer).Sign())
			})
		}
	}
}

// Free tools, and tools that fail without asking for payment, answer as the session does.
func TestFreeToolsAndPlainToolErrorsAreNotPaid(t *testing.T) {
	t.Parallel()
	srv := x402test.NewMCPServer(x402test.WithMCPPaywall(x402test.MCPPaywallConfig{
		Price: func(call *x402test.MCPCall) *big.Int {
			if call.Tool == "paid" {
				return big.NewInt(100)
			}
			return nil
		},
	}))
	t.Cleanup(srv.Close)
	srv.Server().AddTool(&mcp.Tool{Name: "broken", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "out of order"}}}, nil
		})
	payer, signer := newPayer(t, srv.Facilitator(), 1_000, x402.Policy{MaxTotal: big.NewInt(1_000)})
	c := newClient(t, connect(t, srv, "memory"), payer)

	res, err := call(c, x402test.DefaultMCPTool, map[string]any{"free": true})
	require.NoError(t, err)
	assert.JSONEq(t, `{"free":true}`, text(t, res.CallToolResult))
	assert.Nil(t, res.Payment)
	assert.Nil(t, res.Receipt)

	res, err = call(c, "broken", nil)
	require.NoError(t, err, "a tool error that asks for no payment is the tool's answer")
	assert.True(t, res.IsError)
	assert.Equal(t, "out of order", text(t, res.CallToolResult))

	_, err = call(c, "missing", nil)
	var werr *jsonrpc.Error
	require.ErrorAs(t, err, &werr, "a protocol error of an unpaid call is returned as it is")
	assert.Zero(t, signer.Signed(), "nothing signed")
	assert.Empty(t, srv.Facilitator().Settlements())
}

// The policy and the budget refuse before anything is signed, as over HTTP.
func TestPolicyAndBudgetRefusalsSignNothing(t *testing.T) {
	t.Parallel()
	srv := x402test.NewMCPServer(x402test.WithMCPPaywall(x402test.MCPPaywallConfig{Paywall: x402test.PaywallConfig{Amount: big.NewInt(500)}}))
	t.Cleanup(srv.Close)
	cs := connect(t, srv, "memory")
	for name, tc := range map[string]struct {
		policy x402.Policy
		rule   error
	}{
		"cap":    {x402.Policy{MaxTotal: big.NewInt(10_000), MaxPerPayment: big.NewInt(499)}, x402.ErrAmountOverCap},
		"payee":  {x402.Policy{MaxTotal: big.NewInt(10_000), PayTo: []string{"0x000000000000000000000000000000000000bEEF"}}, x402.ErrPayToNotAllowed},
		"budget": {x402.Policy{MaxTotal: big.NewInt(499)}, x402.ErrBudgetExceeded},
	} {
		payer, signer := newPayer(t, srv.Facilitator(), 10_000, tc.policy)
		_, err := call(newClient(t, cs, payer), x402test.DefaultMCPTool, nil)
		var pe *x402.PolicyError
		require.ErrorAs(t, err, &pe, name)
		assert.ErrorIs(t, err, tc.rule, name)
		assert.Zero(t, signer.Signed(), name)
	}
	payer, signer := newPayer(t, srv.Facilitator(), 10_000, x402.Policy{MaxTotal: big.NewInt(10_000), Networks: []string{"eip155:84532"}})
	_, err := call(newClient(t, cs, payer), x402test.DefaultMCPTool, nil)
	var nu *x402.NoUsableRequirementsError
	require.ErrorAs(t, err, &nu)
	assert.Zero(t, signer.Signed())
	assert.Empty(t, srv.Facilitator().Settlements())
}

// requoting returns a server whose price is 100 for an unpaid call and paid for a paid one.
func requoting(t *testing.T, paid int64) *x402test.MCPServer {
	t.Helper()
	srv := x402test.NewMCPServer(x402test.WithMCPPaywall(x402test.MCPPaywallConfig{
		Price: func(call *x402test.MCPCall) *big.Int {
			if call.Payment != nil {
				return big.NewInt(paid)
			}
			return big.NewInt(100)
		},
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A new quote in the answer to a paid call is paid once when the policy allows it, and both
// authorizations count, as over HTTP.
func TestARequoteIsPaidOnceWhenThePolicyAllows(t *testing.T) {
	t.Parallel()
	for _, transport := range transports {
		srv := requoting(t, 150)
		payer, signer := newPayer(t, srv.Facilitator(), 10_000, x402.Policy{MaxTotal: big.NewInt(10_000), AllowRequote: true})
		res, err := call(newClient(t, connect(t, srv, transport), payer), x402test.DefaultMCPTool, nil)
		require.NoError(t, err, transport)
		assert.Equal(t, big.NewInt(150), res.Payment.Amount)
		assert.Equal(t, int64(2), signer.Signed())
		assert.Equal(t, big.NewInt(150), settled(srv.Facilitator()))
		assert.Equal(t, big.NewInt(150), budgettest.Spent(t, payer))
		assert.Equal(t, big.NewInt(100), budgettest.Reserved(t, payer), "the refused first authorization is held until it expires")

		// Without AllowRequote the refusal is the outcome.
		payer, _ = newPayer(t, srv.Facilitator(), 10_000, x402.Policy{MaxTotal: big.NewInt(10_000)})
		_, err = call(newClient(t, connect(t, srv, transport), payer), x402test.DefaultMCPTool, nil)
		var rj *x402.PaymentRejectedError
		require.ErrorAs(t, err, &rj, transport)
		assert.Equal(t, x402test.ReasonNoMatch, rj.Reason)
		assert.Zero(t, rj.StatusCode)
		assert.False(t, rj.HeldUntil.IsZero())
		assert.Equal(t, big.NewInt(100), budgettest.Reserved(t, payer))
		assert.Zero(t, budgettest.Spent(t, payer).Sign())
	}

	// A new quote above the cap is not paid, and says so.
	srv := requoting(t, 1_000)
	payer, signer := newPayer(t, srv.Facilitator(), 10_000, x402.Policy{MaxTotal: big.NewInt(10_000), MaxPerPayment: big.NewInt(200), AllowRequote: true})
	_, err := call(newClient(t, connect(t, srv, "memory"), payer), x402test.DefaultMCPTool, nil)
	var rj *x402.PaymentRejectedError
	require.ErrorAs(t, err, &rj)
	assert.ErrorIs(t, rj.Requote, x402.ErrAmountOverCap)
	assert.Equal(t, int64(1), signer.Signed())
	assert.Empty(t, srv.Facilitator().Settlements())
}

// A connection dropped after the payment settled leaves it in doubt, counted, never a silent
// success or loss; a reconciliation against the facilitator then commits it.
func TestADropAfterSettlementIsInDoubtUntilReconciled(t *testing.T) {
	t.Parallel()
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			srv := x402test.NewMCPServer()
			t.Cleanup(srv.Close)
			payer, _ := newPayer(t, srv.Facilitator(), 100_000, x402.Policy{MaxTotal: big.NewInt(100_000)})
			c := newClient(t, connect(t, srv, transport), payer)
			srv.InjectSettlementFaults(x402test.FaultDropAfterSettle)

			_, err := call(c, x402test.DefaultMCPTool, nil)
			var uc *x402.PaymentUnconfirmedError
			require.ErrorAs(t, err, &uc)
			require.Len(t, srv.Facilitator().Settlements(), 1, "the server settled")
			assert.Equal(t, srv.Facilitator().Settlements()[0].ID, uc.ID)
			assert.Equal(t, big.NewInt(x402test.DefaultPrice), budgettest.Reserved(t, payer))
			assert.Zero(t, budgettest.Spent(t, payer).Sign())
			out := budgettest.Outstanding(t, payer)
			require.Len(t, out, 1)
			assert.Equal(t, ledger.InDoubt, out[0].State)

			rep := reconcileWith(t, payer, srv.Facilitator())
			assert.Len(t, rep.Committed, 1)
			assert.Equal(t, settled(srv.Facilitator()), budgettest.Spent(t, payer), "Spent is what settled")
			assert.Zero(t, budgettest.Reserved(t, payer).Sign())

			_, err = call(c, x402test.DefaultMCPTool, nil)
			if transport == "memory" {
				require.ErrorIs(t, err, mcp.ErrConnectionClosed, "the session went with its connection")
			} else {
				require.NoError(t, err, "over HTTP only the exchange was lost")
			}
		})
	}
}

// The other faults around a settlement give the outcomes they give over HTTP.
func TestSettlementFaultsGiveTheTypedOutcomes(t *testing.T) {
	t.Parallel()
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			srv := x402test.NewMCPServer()
			t.Cleanup(srv.Close)
			f := srv.Facilitator()
			payer, _ := newPayer(t, f, 100_000, x402.Policy{MaxTotal: big.NewInt(100_000)})
			c := newClient(t, connect(t, srv, transport), payer)
			price := big.NewInt(x402test.DefaultPrice)

			// An error after settlement (a 5xx over HTTP): in doubt, counted.
			srv.InjectSettlementFaults(x402test.FaultErrorAfterSettle)
			_, err := call(c, x402test.DefaultMCPTool, nil)
			var uc *x402.PaymentUnconfirmedError
			require.ErrorAs(t, err, &uc)
			var werr *jsonrpc.Error
			assert.ErrorAs(t, err, &werr, "the server's error is kept")
			assert.Equal(t, f.Settlements()[0].ID, uc.ID)
			assert.Equal(t, price, budgettest.Reserved(t, payer))
			assert.Zero(t, budgettest.Spent(t, payer).Sign())

			// A settlement that fails: a refusal, with the failed receipt.
			f.FailNextSettle("insufficient_funds")
			_, err = call(c, x402test.DefaultMCPTool, nil)
			var rj *x402.PaymentRejectedError
			require.ErrorAs(t, err, &rj)
			assert.Equal(t, "insufficient_funds", rj.Reason)
			require.NotNil(t, rj.Settlement)
			assert.False(t, rj.Settlement.Success)
			assert.Equal(t, "insufficient_funds", rj.Settlement.ErrorReason)
			assert.Equal(t, new(big.Int).Mul(price, big.NewInt(2)), budgettest.Reserved(t, payer), "held until it expires")

			// An error before settlement: a JSON-RPC error, in doubt.
			srv.InjectSettlementFaults(x402test.FaultErrorBeforeSettle)
			_, err = call(c, x402test.DefaultMCPTool, nil)
			require.ErrorAs(t, err, &uc)
			assert.ErrorAs(t, err, &werr, "the server's error is kept")

			// A fresh challenge after settlement: a refusal, as the server says; the
			// reconciliation finds that it settled.
			srv.InjectSettlementFaults(x402test.FaultChallengeAfterSettle)
			_, err = call(c, x402test.DefaultMCPTool, nil)
			require.ErrorAs(t, err, &rj)
			assert.Equal(t, x402test.ReasonPaymentRequired, rj.Reason)

			// A stall after settlement, until the caller gives up (once the payment settled,
			// however slow the machine): in doubt.
			srv.InjectSettlementFaults(x402test.FaultStallAfterSettle)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				defer cancel()
				for end := time.Now().Add(x402test.MaxStall); len(f.Settlements()) < 3 && time.Now().Before(end); {
					time.Sleep(5 * time.Millisecond)
				}
				time.Sleep(100 * time.Millisecond)
			}()
			_, err = callCtx(ctx, c, x402test.DefaultMCPTool, nil)
			require.ErrorAs(t, err, &uc)
			assert.ErrorIs(t, err, context.Canceled)

			require.Len(t, f.Settlements(), 3)
			assert.Equal(t, big.NewInt(5*x402test.DefaultPrice), budgettest.Reserved(t, payer), "nothing a server says releases a signed payment")
			assert.Zero(t, budgettest.Spent(t, payer).Sign())
			reconcileWith(t, payer, f)
			assert.Equal(t, settled(f), budgettest.Spent(t, payer), "every settlement is committed once reconciled")
			assert.Equal(t, big.NewInt(2*x402test.DefaultPrice), budgettest.Reserved(t, payer), "the two that never settled wait for their expiry")
		})
	}
}

// A paid tool that fails is not charged: the refusal keeps the authorization counted until
// it expires, and says what the tool said, without the payment in it.
func TestAPaidToolThatFailsIsARefusalWithoutThePayment(t *testing.T) {
	t.Parallel()
	srv := x402test.NewMCPServer()
	t.Cleanup(srv.Close)
	var echoed atomic.Value // the signature the tool echoed
	srv.Server().AddTool(&mcp.Tool{Name: "echoes-payment", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			payment, _ := req.Params.Meta[mcppay.MetaPayment].(map[string]any)
			payload, _ := payment["payload"].(map[string]any)
			signature, _ := payload["signature"].(string)
			echoed.Store(signature)
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "cannot use " + signature}}}, nil
		})
	payer, _ := newPayer(t, srv.Facilitator(), 10_000, x402.Policy{MaxTotal: big.NewInt(10_000)})
	_, err := call(newClient(t, connect(t, srv, "http"), payer), "echoes-payment", nil)
	var rj *x402.PaymentRejectedError
	require.ErrorAs(t, err, &rj)
	signature, _ := echoed.Load().(string)
	require.NotEmpty(t, signature)
	assert.Equal(t, "cannot use [REDACTED]", rj.Reason, "the tool's text, the signature scrubbed")
	assert.NotContains(t, err.Error(), strings.TrimPrefix(signature, "0x"))
	assert.Empty(t, srv.Facilitator().Settlements())
	assert.Equal(t, big.NewInt(x402test.DefaultPrice), budgettest.Reserved(t, payer))
}

// textOnly drops structuredContent from x402test's payment requirements, leaving the same
// JSON in the text content, the form the reference MCP client falls back to.
func textOnly(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && err == nil && r.IsError && r.StructuredContent != nil {
			return &mcp.CallToolResult{IsError: true, Content: r.Content}, nil
		}
		return res, err
	}
}

// A payment requirement in the text content alone is paid, before and after a paid call.
func TestAPaymentRequirementInTheTextContentIsPaid(t *testing.T) {
	t.Parallel()
	srv := requoting(t, 120)
	srv.Server().AddReceivingMiddleware(textOnly)
	payer, signer := newPayer(t, srv.Facilitator(), 10_000, x402.Policy{MaxTotal: big.NewInt(10_000), AllowRequote: true})
	res, err := call(newClient(t, connect(t, srv, "memory"), payer), x402test.DefaultMCPTool, map[string]any{"x": 1})
	require.NoError(t, err)
	assert.Equal(t, big.NewInt(120), res.Payment.Amount, "the re-quote in the same form is paid too")
	assert.Equal(t, int64(2), signer.Signed())
	assert.Equal(t, big.NewInt(120), budgettest.Spent(t, payer))
	assert.Equal(t, big.NewInt(100), budgettest.Reserved(t, payer), "the refused first authorization is held until it expires")
}

// A payment requirement that names x402Version and accepts but cannot be read is a
// *wire.FormatError, as an unreadable PAYMENT-REQUIRED header is over HTTP; nothing is signed.
func TestAnUnreadablePaymentRequirementIsAFormatError(t *testing.T) {
	t.Parallel()
	session := &scripted{answers: []*mcp.CallToolResult{{IsError: true,
		StructuredContent: map[string]any{"x402Version": "two", "accepts": []any{}}}}}
	payer, signer := newPayer(t, x402test.NewFacilitator(), 0, x402.Policy{MaxTotal: big.NewInt(10_000)})
	_, err := call(newClient(t, session, payer), x402test.DefaultMCPTool, nil)
	var fe *wire.FormatError
	require.ErrorAs(t, err, &fe)
	assert.Zero(t, signer.Signed())
}

// A call that carries a payment of its own is passed through.
func TestACallCarryingItsOwnPaymentIsPassedThrough(t *testing.T) {
	t.Parallel()
	srv := x402test.NewMCPServer()
	t.Cleanup(srv.Close)
	payer, signer := newPayer(t, srv.Facilitator(), 10_000, x402.Policy{MaxTotal: big.NewInt(10_000)})
	c := newClient(t, connect(t, srv, "memory"), payer)
	res, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: x402test.DefaultMCPTool,
		Meta: mcp.Meta{mcppay.MetaPayment: map[string]any{"x402Version": 2}}})
	require.NoError(t, err)
	assert.True(t, res.IsError, "the server's answer to a payment it cannot read")
	_, ok := mcppay.ChallengeFrom(res.CallToolResult)
	assert.True(t, ok)
	assert.Nil(t, res.Payment)
	assert.Zero(t, signer.Signed())
}

// Concurrent calls through one client share the payer's budget exactly.
func TestConcurrentCallsShareTheBudget(t *testing.T) {
	t.Parallel()
	srv := x402test.NewMCPServer(x402test.WithMCPPaywall(x402test.MCPPaywallConfig{Paywall: x402test.PaywallConfig{Amount: big.NewInt(100)}}))
	t.Cleanup(srv.Close)
	payer, _ := newPayer(t, srv.Facilitator(), 100_000, x402.Policy{MaxTotal: big.NewInt(2_000)})
	c := newClient(t, connect(t, srv, "http"), payer)
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for i := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := call(c, x402test.DefaultMCPTool, map[string]any{"i": i})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				outcomes["ok"]++
			case errors.Is(err, x402.ErrBudgetExceeded):
				outcomes["budget"]++
			default:
				outcomes[err.Error()]++
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, map[string]int{"ok": 20, "budget": 10}, outcomes)
	assert.Equal(t, big.NewInt(2_000), budgettest.Spent(t, payer))
	assert.Equal(t, big.NewInt(2_000), settled(srv.Facilitator()))
}

func TestNewRefusesNil(t *testing.T) {
	t.Parallel()
	payer, _ := newPayer(t, x402test.NewFacilitator(), 0, x402.Policy{MaxTotal: budget.Unlimited})
	var ve *sdk.ValidationError
	_, err := mcppay.New(nil, payer)
	assert.ErrorAs(t, err, &ve)
	_, err = mcppay.New(&mcp.ClientSession{}, nil)
	assert.ErrorAs(t, err, &ve)
}

// ReceiptFrom and ChallengeFrom report false on what carries neither.
func TestReadersOfNothing(t *testing.T) {
	t.Parallel()
	_, ok := mcppay.ReceiptFrom(nil)
	assert.False(t, ok)
	_, ok = mcppay.ReceiptFrom(&mcp.CallToolResult{Meta: mcp.Meta{mcppay.MetaPaymentResponse: map[string]any{"transaction": "0x1"}}})
	assert.False(t, ok, "success is required")
	_, ok = mcppay.ChallengeFrom(nil)
	assert.False(t, ok)
	_, ok = mcppay.ChallengeFrom(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "not json"}}})
	assert.False(t, ok)
	_, ok = mcppay.ChallengeFrom(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: `{"x402Version":2}`}}})
	assert.False(t, ok, "no accepts")
	_, ok = mcppay.ChallengeFrom(&mcp.CallToolResult{StructuredContent: map[string]any{"x402Version": 2, "accepts": []any{}}})
	assert.False(t, ok, "only a tool error asks for payment")
	pr, ok := mcppay.ChallengeFrom(&mcp.CallToolResult{IsError: true, StructuredContent: map[string]any{"x402Version": 2, "accepts": []any{}}})
	require.True(t, ok)
	assert.Equal(t, &wire.PaymentRequired{X402Version: 2, Accepts: []wire.PaymentRequirements{}}, pr)
}
