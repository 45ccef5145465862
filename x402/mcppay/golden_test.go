package mcppay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/mcppay"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// message is a JSON-RPC message of a fixture (see testdata/README.md).
type message struct {
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// fixture reads a JSON-RPC message of testdata.
func fixture(t *testing.T, name string) message {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	var m message
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// resultOf decodes a fixture's result as the go-sdk client does.
func resultOf(t *testing.T, m message) *mcp.CallToolResult {
	t.Helper()
	var res mcp.CallToolResult
	require.NoError(t, json.Unmarshal(m.Result, &res))
	return &res
}

// member returns the member at path of a JSON value.
func member(t *testing.T, raw json.RawMessage, path ...string) json.RawMessage {
	t.Helper()
	for _, k := range path {
		var obj map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(raw, &obj), "at %q", k)
		var ok bool
		raw, ok = obj[k]
		require.True(t, ok, "no member %q", k)
	}
	return raw
}

// shape returns the structure of a JSON value: an object's members' shapes, an array's first
// element's, and the kind of anything else.
func shape(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(raw, &v))
	var walk func(any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, e := range v {
				out[k] = walk(e)
			}
			return out
		case []any:
			if len(v) == 0 {
				return []any{}
			}
			return []any{walk(v[0])}
		case string:
			return "string"
		case float64:
			return "number"
		case bool:
			return "bool"
		}
		return "null"
	}
	return walk(v)
}

// encoded returns the wire JSON of a challenge.
func encoded(t *testing.T, pr *wire.PaymentRequired) string {
	t.Helper()
	b, err := pr.MarshalJSON()
	require.NoError(t, err)
	return string(b)
}

// Every payment-required message of the spec and of its earlier forms reads as the spec's
// PaymentRequired.
func TestTheSpecsPaymentRequirementsAreRead(t *testing.T) {
	t.Parallel()
	spec := fixture(t, "spec_payment_required.json")
	want := member(t, spec.Result, "structuredContent")

	pr, ok := mcppay.ChallengeFrom(resultOf(t, spec), nil)
	require.True(t, ok)
	assert.JSONEq(t, string(want), encoded(t, pr), "structuredContent")

	// Without structuredContent, the text content (which the spec says is the same JSON).
	textOnly := resultOf(t, spec)
	textOnly.StructuredContent = nil
	pr, ok = mcppay.ChallengeFrom(textOnly, nil)
	require.True(t, ok)
	assert.JSONEq(t, string(want), encoded(t, pr), "content[0].text")

	// The draft's x402/error wrapper: structuredContent is read; its text holds the wrapper,
	// whose data the draft leaves as a placeholder, filled here with the same challenge.
	draft := resultOf(t, fixture(t, "draft_x402_error_payment_required.json"))
	pr, ok = mcppay.ChallengeFrom(draft, nil)
	require.True(t, ok)
	assert.JSONEq(t, string(want), encoded(t, pr), "the draft's structuredContent")
	draft.StructuredContent = nil
	_, ok = mcppay.ChallengeFrom(draft, nil)
	assert.False(t, ok, "the draft's placeholder is no challenge")
	draft.Content = []mcp.Content{&mcp.TextContent{Text: `{"x402/error":{"code":402,"message":"Payment required","data":` + string(want) + `}}`}}
	pr, ok = mcppay.ChallengeFrom(draft, nil)
	require.True(t, ok)
	assert.JSONEq(t, string(want), encoded(t, pr), "the draft's wrapper")

	// The first v2 spec: a JSON-RPC error of code 402, as the session returns it.
	legacy := fixture(t, "legacy_jsonrpc_payment_required.json")
	var werr jsonrpc.Error
	require.NoError(t, json.Unmarshal(legacy.Error, &werr))
	pr, ok = mcppay.ChallengeFrom(nil, fmt.Errorf("calling %q: %w", "tools/call", &werr))
	require.True(t, ok)
	assert.JSONEq(t, string(member(t, legacy.Error, "data")), encoded(t, pr), "error.data")
}

// The spec's receipts read as the spec says: its success in _meta, the draft's failure in
// structuredContent; the spec's settlement failure is a new payment requirement.
func TestTheSpecsReceiptsAreRead(t *testing.T) {
	t.Parallel()
	success := fixture(t, "spec_settlement_success.json")
	receipt, ok := mcppay.ReceiptFrom(resultOf(t, success))
	require.True(t, ok)
	b, err := json.Marshal(receipt)
	require.NoError(t, err)
	assert.JSONEq(t, string(member(t, success.Result, "_meta", mcppay.MetaPaymentResponse)), string(b))

	failure := resultOf(t, fixture(t, "spec_settlement_failure.json"))
	_, ok = mcppay.ReceiptFrom(failure)
	assert.False(t, ok, "the spec's settlement failure carries no receipt")
	pr, ok := mcppay.ChallengeFrom(failure, nil)
	require.True(t, ok)
	assert.Equal(t, "Settlement failed", pr.Error)

	draft := resultOf(t, fixture(t, "draft_x402_error_settlement_failure.json"))
	receipt, ok = mcppay.ReceiptFrom(draft)
	require.True(t, ok)
	assert.Equal(t, &wire.SettleResponse{ErrorReason: "insufficient_funds", Network: "eip155:84532"}, receipt)
}

// scripted is a session that answers with fixtures, recording the calls it gets.
type scripted struct {
	mu      sync.Mutex
	answers []*mcp.CallToolResult
	calls   []*mcp.CallToolParams
}

func (s *scripted) CallTool(_ context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, p)
	res := s.answers[0]
	s.answers = s.answers[1:]
	return res, nil
}

// specPayer returns a payer that can pay the spec's example: Base Sepolia USDC, to its payee.
func specPayer(t *testing.T) (*x402.Payer, *countingSigner) {
	t.Helper()
	return newPayer(t, x402test.NewFacilitator(), 0, x402.Policy{MaxTotal: big.NewInt(100_000),
		Networks: []string{"eip155:84532"}, PayTo: []string{"0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}})
}

// The client answers the spec's payment requirement with a call shaped as the spec's
// example, echoing the spec's accepted entry and resource, and reads the spec's receipt.
func TestTheClientPaysTheSpecsExampleInTheSpecsShape(t *testing.T) {
	t.Parallel()
	spec := fixture(t, "spec_tool_call_with_payment.json")
	session := &scripted{answers: []*mcp.CallToolResult{
		resultOf(t, fixture(t, "spec_payment_required.json")),
		resultOf(t, fixture(t, "spec_settlement_success.json")),
	}}
	payer, signer := specPayer(t)
	var params mcp.CallToolParams
	require.NoError(t, json.Unmarshal(spec.Params, &params))
	params.Meta = nil // the client adds the payment

	res, err := newClient(t, session, payer).CallTool(context.Background(), &params)
	require.NoError(t, err)
	require.Len(t, session.calls, 2)
	assert.NotContains(t, session.calls[0].Meta, mcppay.MetaPayment, "the first call is unpaid")
	sent, err := json.Marshal(session.calls[1])
	require.NoError(t, err)
	assert.Equal(t, shape(t, spec.Params), shape(t, sent), "the paid call has the spec's shape")
	for _, path := range [][]string{{"name"}, {"arguments"}, {"_meta", mcppay.MetaPayment, "accepted"}, {"_meta", mcppay.MetaPayment, "resource"},
		{"_meta", mcppay.MetaPayment, "x402Version"}} {
		assert.JSONEq(t, string(member(t, spec.Params, path...)), string(member(t, sent, path...)), "%v", path)
	}
	assert.Equal(t, int64(1), signer.n.Load())

	assert.Equal(t, "0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef", res.Receipt.Transaction)
	assert.Equal(t, big.NewInt(10_000), res.Payment.Amount)
	assert.Equal(t, "eip155:84532", res.Payment.Network)
	assert.Equal(t, big.NewInt(10_000), budgettest.Spent(t, payer))
}

// The spec's settlement failures are clean refusals: the amount stays counted until the
// authorization expires, and the draft's failed receipt is kept.
func TestTheSpecsSettlementFailuresAreRefusals(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"spec_settlement_failure.json", "draft_x402_error_settlement_failure.json"} {
		session := &scripted{answers: []*mcp.CallToolResult{
			resultOf(t, fixture(t, "spec_payment_required.json")),
			resultOf(t, fixture(t, name)),
		}}
		payer, _ := specPayer(t)
		_, err := call(newClient(t, session, payer), "financial_analysis", nil)
		var rj *x402.PaymentRejectedError
		require.ErrorAs(t, err, &rj, name)
		assert.False(t, rj.HeldUntil.IsZero(), name)
		assert.Equal(t, big.NewInt(10_000), budgettest.Reserved(t, payer), name)
		if name == "spec_settlement_failure.json" {
			assert.Equal(t, "Settlement failed", rj.Reason)
			assert.Nil(t, rj.Settlement)
		} else {
			assert.Equal(t, "Payment settlement failed: insufficient funds", rj.Reason)
			require.NotNil(t, rj.Settlement)
			assert.Equal(t, "insufficient_funds", rj.Settlement.ErrorReason)
		}
	}
}

// x402test's MCP server answers in the spec's shapes: its payment requirement, and its
// receipt (which may add the optional amount).
func TestX402testServesTheSpecsShapes(t *testing.T) {
	t.Parallel()
	srv := x402test.NewMCPServer()
	t.Cleanup(srv.Close)
	cs := connect(t, srv, "memory")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: x402test.DefaultMCPTool})
	require.NoError(t, err)
	got, err := json.Marshal(res)
	require.NoError(t, err)
	spec := fixture(t, "spec_payment_required.json").Result
	for _, path := range [][]string{{"isError"}, {"structuredContent"}, {"content"}} {
		assert.Equal(t, shape(t, member(t, spec, path...)), shape(t, member(t, got, path...)), "%v", path)
	}
	assert.JSONEq(t, string(member(t, got, "structuredContent")), text(t, res), "the text content is the same JSON")

	payer, _ := newPayer(t, srv.Facilitator(), 100_000, x402.Policy{MaxTotal: big.NewInt(100_000)})
	paid, err := call(newClient(t, cs, payer), x402test.DefaultMCPTool, nil)
	require.NoError(t, err)
	got, err = json.Marshal(paid.CallToolResult)
	require.NoError(t, err)
	want := shape(t, member(t, fixture(t, "spec_settlement_success.json").Result, "_meta", mcppay.MetaPaymentResponse)).(map[string]any)
	receipt := shape(t, member(t, got, "_meta", mcppay.MetaPaymentResponse)).(map[string]any)
	for k, v := range want {
		assert.Equal(t, v, receipt[k], k)
	}
	assert.Subset(t, []string{"success", "transaction", "network", "payer", "amount"}, keys(receipt))
}

// keys returns the keys of m.
func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
