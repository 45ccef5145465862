package mcppay_test

import (
	"context"
	"encoding/json"
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

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/mcppay"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// The faults of the soak, one call in ten each; call n gets fault n % 10. They are those of
// the HTTP soak (x402/soak_test.go), as an MCP server meets them.
const (
	soakClean = iota
	soakErrorBeforePayment
	soakErrorBeforeSettle
	soakErrorAfterSettle
	soakDropAfterSettle
	soakRequoteWithinCap
	soakRequoteAboveCap
	soakForeignPayeeFirst
	soakForeignPayeeOnRequote
	soakStallAfterSettle
)

// soakTool is the paid tool of the soak; its argument n names the call.
const soakTool = "item"

// soakStore is the server side of the soak: it sells call n of soakTool at 100, with the
// fault of n, and remembers which call each payment (by its id) was for.
type soakStore struct {
	shop, foreign string
	mu            sync.Mutex
	paid          map[int]int                // call -> paid calls seen
	fetchOf       map[string]int             // payment id -> call
	received      map[string]*big.Int        // payment id -> amount, every payment that arrived
	giveUp        map[int]context.CancelFunc // the stalled calls' cancels, called once they settled
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
			case kind == soakRequoteWithinCap && attempt >= 1:
				return big.NewInt(150) // the first payment does not match: a new quote at 150
			case kind == soakRequoteAboveCap && attempt >= 1:
				return big.NewInt(1000)
			}
			return big.NewInt(100)
		},
		PayTo: func(call *x402test.MCPCall) string {
			attempt := s.attempt(call, false)
			switch kind := numberOf(call) % 10; {
			case kind == soakForeignPayeeFirst, kind == soakForeignPayeeOnRequote && attempt >= 1:
				return s.foreign
			}
			return s.shop
		},
		Fault: func(call *x402test.MCPCall) x402test.SettlementFault {
			n := numberOf(call)
			if id, ok := soakPaymentID(call); ok {
				s.mu.Lock()
				s.fetchOf[id] = n
				s.received[id] = call.Payment.Accepted.Amount
				s.mu.Unlock()
			}
			switch n % 10 {
			case soakErrorBeforeSettle:
				if s.attempt(call, false) == 1 {
					return x402test.FaultErrorBeforeSettle
				}
			case soakErrorAfterSettle:
				return x402test.FaultErrorAfterSettle
			case soakDropAfterSettle:
				return x402test.FaultDropAfterSettle
			case soakStallAfterSettle:
				return x402test.FaultStallAfterSettle
			}
			return x402test.NoFault
		},
		Settled: func(call *x402test.MCPCall, _ *wire.SettleResponse) {
			n := numberOf(call)
			if n%10 != soakStallAfterSettle {
				return
			}
			s.mu.Lock()
			cancel := s.giveUp[n]
			s.mu.Unlock()
			if cancel != nil {
				cancel()
			}
		},
	}
}

// failUnpaid is the soak's own fault before any payment: a JSON-RPC error to the unpaid
// calls of soakErrorBeforePayment.
func failUnpaid(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if r, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" {
			_, paid := r.Params.Meta[mcppay.MetaPayment]
			var args struct{ N int }
			_ = json.Unmarshal(r.Params.Arguments, &args)
			if !paid && args.N%10 == soakErrorBeforePayment {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "overloaded"}
			}
		}
		return next(ctx, method, req)
	}
}

// soakPaymentID returns what identifies a call's payment on its chain, as the budget and the
// facilitator's settlements name it: an EVM authorization's nonce, the payer's signature of a
// Solana transaction.
func soakPaymentID(call *x402test.MCPCall) (string, bool) {
	p := call.Payment
	if p == nil {
		return "", false
	}
	if wire.Namespace(p.Accepted.Network) == "solana" {
		tx, err := svm.DecodeExactPayload(p)
		if err != nil || len(tx.Signatures) < 2 {
			return "", false
		}
		return tx.Signatures[1].String(), true // the fee payer's comes first
	}
	e, err := evm.DecodeExactPayload(p)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("0x%x", e.Authorization.Nonce), true
}

// soakRail is a chain family the soak pays on.
type soakRail struct {
	name          string
	shop, foreign string
	network       string // the offer's network ("" for Base)
	same          func(a, b string) bool
	scheme        func(t *testing.T, srv *x402test.MCPServer, funds int64) x402.Scheme
}

var evmRail = soakRail{name: "evm", shop: shop, foreign: "0x000000000000000000000000000000000000bEEF",
	same: strings.EqualFold,
	scheme: func(t *testing.T, srv *x402test.MCPServer, funds int64) x402.Scheme {
		signer := newSigner(t)
		srv.Facilitator().Fund(signer.Address(), big.NewInt(funds))
		s, err := evm.NewExact(signer)
		require.NoError(t, err)
		return s
	}}

func solanaRail() soakRail {
	return soakRail{name: "solana", shop: newSolanaAddress(), foreign: newSolanaAddress(), network: svm.NetworkMainnet,
		same: func(a, b string) bool { return a == b },
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

// TestFaultSoakOverMCP runs paid tool calls (200 on EVM, 100 on Solana; 1,000 each with
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
		size := testenv.Size(200, 1000)
		if rail.name == "solana" {
			size = testenv.Size(100, 1000)
		}
		for _, kind := range soakStores(t) {
			for _, requote := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/AllowRequote=%t", rail.name, kind, requote), func(t *testing.T) {
					t.Parallel()
					faultSoak(t, rail, kind, requote, size)
				})
			}
		}
	}
}

// faultSoak runs calls paid calls on rail with the budget in a store of kind. The budget
// allows 60 a call: it runs out after about half of them.
func faultSoak(t *testing.T, rail soakRail, kind budgettest.Kind, requote bool, calls int) {
	const workers = 16
	maxTotal := int64(60 * calls)
	start := time.Now()
	store := &soakStore{shop: rail.shop, foreign: rail.foreign, paid: map[int]int{}, fetchOf: map[string]int{},
		received: map[string]*big.Int{}, giveUp: map[int]context.CancelFunc{}}
	cfg := store.config()
	cfg.Paywall.PayTo, cfg.Paywall.Network = rail.shop, rail.network
	srv := x402test.NewMCPServer(x402test.WithMCPPaywall(cfg))
	t.Cleanup(srv.Close)
	srv.Server().AddTool(&mcp.Tool{Name: soakTool, InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "item " + string(req.Params.Arguments)}}}, nil
		})
	srv.Server().AddReceivingMiddleware(failUnpaid)
	f := srv.Facilitator()
	policy := x402.Policy{MaxPerPayment: big.NewInt(200), MaxTotal: big.NewInt(maxTotal), PayTo: []string{rail.shop}, AllowRequote: requote}
	var opts []x402.PayerOption
	if kind != budgettest.Memory {
		opts = append(opts, x402.WithBudget(budgettest.NewBudget(t, kind, policy.MaxTotal, nil)))
		policy.MaxTotal = nil
	}
	payer, err := x402.NewPayer(policy, []x402.Scheme{rail.scheme(t, srv, 10_000_000)}, opts...)
	require.NoError(t, err)
	client := newClient(t, connect(t, srv, "http"), payer)

	var next atomic.Int64
	var mu sync.Mutex
	outcomes := map[string]int{}
	var untyped []error
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := int(next.Add(1)) - 1
				if n >= calls {
					return
				}
				outcome, err := soakCall(client, store, n)
				mu.Lock()
				outcomes[outcome]++
				if err != nil {
					untyped = append(untyped, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d calls on %s in %s; outcomes: %v", calls, rail.name, time.Since(start).Round(time.Millisecond), outcomes)
	require.Empty(t, untyped, "every failed call is a typed error")

	ledger, received := new(big.Int), new(big.Int)
	perCall := map[int]int{}
	store.mu.Lock()
	for _, amount := range store.received {
		received.Add(received, amount)
	}
	for _, st := range f.Settlements() {
		ledger.Add(ledger, st.Value)
		assert.LessOrEqual(t, st.Value.Int64(), int64(200), "no payment above the per-payment cap")
		assert.True(t, rail.same(st.To, rail.shop), "no payment to a foreign payee")
		n, ok := store.fetchOf[st.ID]
		require.True(t, ok)
		perCall[n]++
	}
	store.mu.Unlock()
	for n, times := range perCall {
		assert.Equal(t, 1, times, "call %d settled more than once", n)
	}
	assert.LessOrEqual(t, ledger.Cmp(big.NewInt(maxTotal)), 0, "the total settled stays within MaxTotal")
	spent, reserved := budgettest.Spent(t, payer), budgettest.Reserved(t, payer)
	counted := new(big.Int).Add(spent, reserved)
	t.Logf("settled %d payments, %s in all (MaxTotal %d); Spent %s, Reserved %s", len(f.Settlements()), ledger, maxTotal, spent, reserved)
	assert.GreaterOrEqual(t, counted.Cmp(ledger), 0, "spent plus reserved covers every settlement: %s < %s", counted, ledger)
	assert.LessOrEqual(t, spent.Cmp(ledger), 0, "nothing is counted as spent that did not settle")
	assert.Equal(t, received, counted, "every payment the server got stays counted: nothing it said released one")
	assert.Positive(t, outcomes["ok"], "some calls went through")
	assert.Positive(t, outcomes["budget exceeded"], "the budget ran out")

	reconcileWith(t, payer, f)
	assert.Equal(t, ledger, budgettest.Spent(t, payer), "once reconciled, Spent is what settled")
	assert.Equal(t, new(big.Int).Sub(received, ledger), budgettest.Reserved(t, payer),
		"once reconciled, what did not settle stays reserved until it expires")
}

// soakCall runs call n and names its outcome; err is non-nil only for a failure that is not
// one of the payer's typed errors (or, before any payment, the server's own error).
func soakCall(client *mcppay.Client, store *soakStore, n int) (string, error) {
	// A generous bound: only the stalled calls give up, when the store says it settled.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if n%10 == soakStallAfterSettle {
		store.mu.Lock()
		store.giveUp[n] = cancel
		store.mu.Unlock()
		defer func() {
			store.mu.Lock()
			delete(store.giveUp, n)
			store.mu.Unlock()
		}()
	}
	res, err := callCtx(ctx, client, soakTool, map[string]any{"n": n})
	if err == nil {
		if res.IsError || res.Payment == nil {
			return "", fmt.Errorf("call %d: an unpaid or failed result without an error", n)
		}
		return "ok", nil
	}
	var (
		pe   *x402.PolicyError
		nu   *x402.NoUsableRequirementsError
		rj   *x402.PaymentRejectedError
		uc   *x402.PaymentUnconfirmedError
		st   *x402.PaymentSettledError
		werr *jsonrpc.Error
	)
	switch {
	case errors.Is(err, x402.ErrBudgetExceeded):
		return "budget exceeded", nil
	case errors.As(err, &rj):
		return "rejected", nil
	case errors.As(err, &pe):
		return "refused: " + pe.Rule.Error(), nil
	case errors.As(err, &nu):
		return "no usable requirements", nil
	case errors.As(err, &uc):
		return "unconfirmed", nil
	case errors.As(err, &st):
		return "settled without content", nil
	case errors.As(err, &werr) && n%10 == soakErrorBeforePayment:
		return "unpaid error", nil // answered before any payment
	}
	return "untyped", fmt.Errorf("call %d: %w", n, err)
}
