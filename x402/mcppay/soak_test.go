package mcppay_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/soaktest"
	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/mcppay"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// soakTool is the paid tool of the soak; its argument n names the call.
const soakTool = "item"

// soakStore is the server side of the soak: it sells call n of soakTool at soaktest.Price,
// with the fault of n (those of the HTTP soak, as an MCP server meets them), and logs which
// call each payment was for.
type soakStore struct {
	shop, foreign string
	log           *soaktest.Log
	mu            sync.Mutex
	paid          map[int]int // call -> paid calls seen
}

// numberOf reads the call's n.
func numberOf(call *x402test.MCPCall) int {
	var args struct{ N int }
	_ = json.Unmarshal(call.Arguments, &args)
	return args.N
}

// attempt returns how many paid calls of n came so far, counting this one when it carries a
// payment (Price is asked once per call, first).
func (s *soakStore) attempt(call *x402test.MCPCall, count bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := numberOf(call)
	if count && call.Payment != nil {
		s.paid[n]++
	}
	return s.paid[n]
}

func (s *soakStore) config() x402test.MCPPaywallConfig {
	return x402test.MCPPaywallConfig{
		Paywall: x402test.PaywallConfig{MaxTimeoutSeconds: 300},
		Price: func(call *x402test.MCPCall) *big.Int {
			attempt := s.attempt(call, true)
			switch kind := numberOf(call) % 10; {
			case kind == soaktest.RequoteWithinCap && attempt >= 1:
				return big.NewInt(soaktest.RequotePrice) // the first payment does not match: a new quote
			case kind == soaktest.RequoteAboveCap && attempt >= 1:
				return big.NewInt(soaktest.ExpensivePrice)
			}
			return big.NewInt(soaktest.Price)
		},
		PayTo: func(call *x402test.MCPCall) string {
			attempt := s.attempt(call, false)
			switch kind := numberOf(call) % 10; {
			case kind == soaktest.ForeignPayeeFirst, kind == soaktest.ForeignPayeeOnRequote && attempt >= 1:
				return s.foreign
			}
			return s.shop
		},
		Fault: func(call *x402test.MCPCall) x402test.SettlementFault {
			n := numberOf(call)
			if call.Payment != nil {
				s.log.Paid(call.Payment, n)
			}
			switch n % 10 {
			case soaktest.ErrorBeforeSettle:
				if s.attempt(call, false) == 1 {
					return x402test.FaultErrorBeforeSettle
				}
			case soaktest.ErrorAfterSettle:
				return x402test.FaultErrorAfterSettle
			case soaktest.DropAfterSettle:
				return x402test.FaultDropAfterSettle
			case soaktest.StallAfterSettle:
				return x402test.FaultStallAfterSettle
			}
			return x402test.NoFault
		},
		Settled: func(call *x402test.MCPCall, _ *wire.SettleResponse) { s.log.Settled(numberOf(call)) },
	}
}

// failUnpaid is the soak's own fault before any payment: a JSON-RPC error to the unpaid
// calls of soaktest.ErrorBeforePayment.
func failUnpaid(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if r, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" {
			_, paid := r.Params.Meta[mcppay.MetaPayment]
			var args struct{ N int }
			_ = json.Unmarshal(r.Params.Arguments, &args)
			if !paid && args.N%10 == soaktest.ErrorBeforePayment {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "overloaded"}
			}
		}
		return next(ctx, method, req)
	}
}

// soakRail is a chain family the soak pays on, and how a payer's scheme is made and funded.
type soakRail struct {
	soaktest.Rail
	scheme func(t *testing.T, srv *x402test.MCPServer, funds int64) x402.Scheme
}

var evmRail = soakRail{Rail: soaktest.EVM(shop),
	scheme: func(t *testing.T, srv *x402test.MCPServer, funds int64) x402.Scheme {
		signer := newSigner(t)
		srv.Facilitator().Fund(signer.Address(), big.NewInt(funds))
		s, err := evm.NewExact(signer)
		require.NoError(t, err)
		return s
	}}

func solanaRail() soakRail {
	return soakRail{Rail: soaktest.Solana(),
		scheme: func(t *testing.T, srv *x402test.MCPServer, funds int64) x402.Scheme {
			s, _ := newSolanaScheme(t, srv, funds)
			return s
		}}
}

// soakStores returns the stores the soak runs on: memory, and the one
// budgettest.EnvStore names when it is another.
func soakStores(t *testing.T) []budgettest.Kind {
	kinds := []budgettest.Kind{budgettest.Memory}
	if k := budgettest.Selected(t); k != budgettest.Memory {
		kinds = append(kinds, k)
	}
	return kinds
}

// TestFaultSoakOverMCP runs paid tool calls (200 on EVM, 100 on Solana; 500 and 300 with
// SDK_TEST_FULL=1) over streamable HTTP from 16 goroutines, a tenth of them clean and a
// tenth with each kind of fault, with and without AllowRequote, on the memory store and on
// the one SDK_TEST_BUDGET_STORE names, and checks the facilitator's ledger as the HTTP soak
// does: nothing above the cap, nothing to a foreign payee, no call settled twice, the total
// within MaxTotal, the budget covering every settlement and never counting more as spent
// than settled, every failed call a typed error, and spent plus reserved exactly what the
// server received (no answer released a signed payment early); then, once reconciled with
// the facilitator, Spent is exactly what settled and Reserved what did not.
func TestFaultSoakOverMCP(t *testing.T) {
	t.Parallel()
	for _, rail := range []soakRail{evmRail, solanaRail()} {
		size := testenv.Size(200, 500)
		if rail.Name == "solana" {
			size = testenv.Size(100, 300)
		}
		for _, kind := range soakStores(t) {
			for _, requote := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/AllowRequote=%t", rail.Name, kind, requote), func(t *testing.T) {
					t.Parallel()
					faultSoak(t, rail, kind, requote, size)
				})
			}
		}
	}
}

// faultSoak runs calls paid calls on rail with the budget in a store of kind (see
// soaktest.NewPayer).
func faultSoak(t *testing.T, rail soakRail, kind budgettest.Kind, requote bool, calls int) {
	start := time.Now()
	store := &soakStore{shop: rail.Shop, foreign: rail.Foreign, log: soaktest.NewLog(), paid: map[int]int{}}
	cfg := store.config()
	cfg.Paywall.PayTo, cfg.Paywall.Network = rail.Shop, rail.Network
	srv := x402test.NewMCPServer(x402test.WithMCPPaywall(cfg))
	t.Cleanup(srv.Close)
	srv.Server().AddTool(&mcp.Tool{Name: soakTool, InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "item " + string(req.Params.Arguments)}}}, nil
		})
	srv.Server().AddReceivingMiddleware(failUnpaid)
	f := srv.Facilitator()
	payer := soaktest.NewPayer(t, rail.Rail, kind, requote, calls, rail.scheme(t, srv, 10_000_000))
	client := newClient(t, connect(t, srv, "http"), payer)

	outcomes, untyped := soaktest.Run(calls, func(n int) (string, error) { return soakCall(client, store.log, n) })
	t.Logf("%d calls on %s in %s; outcomes: %v", calls, rail.Name, time.Since(start).Round(time.Millisecond), outcomes)
	require.Empty(t, untyped, "every failed call is a typed error")
	ledger, spent, reserved := soaktest.Check(t, f, store.log, rail.Rail, calls, payer, outcomes)
	received := store.log.Received()
	assert.Equal(t, received, new(big.Int).Add(spent, reserved), "every payment the server got stays counted: nothing it said released one")

	reconcileWith(t, payer, f)
	assert.Equal(t, ledger, budgettest.Spent(t, payer), "once reconciled, Spent is what settled")
	assert.Equal(t, new(big.Int).Sub(received, ledger), budgettest.Reserved(t, payer),
		"once reconciled, what did not settle stays reserved until it expires")
}

// soakCall runs call n and names its outcome; err is non-nil only for a failure that is not
// one of the payer's typed errors (or, before any payment, the server's own error).
func soakCall(client *mcppay.Client, log *soaktest.Log, n int) (string, error) {
	ctx, cancel := log.Context(n)
	defer cancel()
	res, err := callCtx(ctx, client, soakTool, map[string]any{"n": n})
	if err == nil {
		if res.IsError || res.Payment == nil {
			return "", fmt.Errorf("call %d: an unpaid or failed result without an error", n)
		}
		return "ok", nil
	}
	if outcome, ok := soaktest.Outcome(err); ok {
		return outcome, nil
	}
	var werr *jsonrpc.Error
	if errors.As(err, &werr) && n%10 == soaktest.ErrorBeforePayment {
		return "unpaid error", nil // answered before any payment
	}
	return "untyped", fmt.Errorf("call %d: %w", n, err)
}
