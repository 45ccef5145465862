package mcppay_test

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/signertest"
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

// The spec's payment requirement reads as its structuredContent, and, without it, as its text
// content; the v1 transport's reads as the v1 PaymentRequired it holds.
func TestTheSpecsPaymentRequirementsAreRead(t *testing.T) {
	t.Parallel()
	spec := fixture(t, "spec_payment_required.json")
	want := member(t, spec.Result, "structuredContent")

	pr, ok := mcppay.ChallengeFrom(resultOf(t, spec))
	require.True(t, ok)
	assert.JSONEq(t, string(want), encoded(t, pr), "structuredContent")

	// Without structuredContent, the text content (which the spec says is the same JSON).
	textOnly := resultOf(t, spec)
	textOnly.StructuredContent = nil
	pr, ok = mcppay.ChallengeFrom(textOnly)
	require.True(t, ok)
	assert.JSONEq(t, string(want), encoded(t, pr), "content[0].text")

	// Only a tool error asks for payment.
	notError := resultOf(t, spec)
	notError.IsError = false
	_, ok = mcppay.ChallengeFrom(notError)
	assert.False(t, ok)

	// x402 v1: structuredContent; the text content is the v1 spec's placeholder.
	v1 := fixture(t, "v1_payment_required.json")
	pr, ok = mcppay.ChallengeFrom(resultOf(t, v1))
	require.True(t, ok)
	assert.Equal(t, 1, pr.X402Version)
	require.Len(t, pr.Accepts, 1)
	assert.Equal(t, "base-sepolia", pr.Accepts[0].Network)
	assert.Equal(t, big.NewInt(10_000), pr.Accepts[0].Amount)
	assert.Equal(t, "mcp://tool/financial_analysis", pr.Accepts[0].Resource)
	v1Text := resultOf(t, v1)
	v1Text.StructuredContent = nil
	_, ok = mcppay.ChallengeFrom(v1Text)
	assert.False(t, ok, "the v1 spec's text content is a placeholder, not JSON")
}

// The spec's receipts read as the spec says: its success in _meta; its settlement failure is
// a new payment requirement without a receipt.
func TestTheSpecsReceiptsAreRead(t *testing.T) {
	t.Parallel()
	success := fixture(t, "spec_settlement_success.json")
	receipt, ok := mcppay.ReceiptFrom(resultOf(t, success))
	require.True(t, ok)
	b, err := json.Marshal(receipt)
	require.NoError(t, err)
	assert.JSONEq(t, string(member(t, success.Result, "_meta", mcppay.MetaPaymentResponse)), string(b))

	receipt, ok = mcppay.ReceiptFrom(resultOf(t, fixture(t, "v1_settlement_success.json")))
	require.True(t, ok)
	assert.True(t, receipt.Success)
	assert.Equal(t, "0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef", receipt.Transaction)
	assert.Equal(t, "eip155:84532", receipt.Network, "the v1 name, as CAIP-2")
	assert.Equal(t, "base-sepolia", receipt.RawNetwork)

	for _, name := range []string{"spec_settlement_failure.json", "v1_settlement_failure.json"} {
		failure := resultOf(t, fixture(t, name))
		_, ok := mcppay.ReceiptFrom(failure)
		assert.False(t, ok, "the spec's settlement failure carries no receipt")
		pr, ok := mcppay.ChallengeFrom(failure)
		require.True(t, ok, name)
		assert.Equal(t, "Settlement failed", pr.Error)
	}
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
func specPayer(t *testing.T) (*x402.Payer, *signertest.EVM) {
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
	assert.Equal(t, int64(1), signer.Signed())

	assert.Equal(t, "0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef", res.Receipt.Transaction)
	assert.Equal(t, big.NewInt(10_000), res.Payment.Amount)
	assert.Equal(t, "eip155:84532", res.Payment.Network)
	assert.Equal(t, big.NewInt(10_000), budgettest.Spent(t, payer))
}

// The client answers the v1 transport's payment requirement with a call shaped as the v1
// spec's example (the v1 PaymentPayload: scheme and network beside the payload), and reads its
// receipt.
func TestTheClientPaysTheV1ExampleInTheV1Shape(t *testing.T) {
	t.Parallel()
	spec := fixture(t, "v1_tool_call_with_payment.json")
	session := &scripted{answers: []*mcp.CallToolResult{
		resultOf(t, fixture(t, "v1_payment_required.json")),
		resultOf(t, fixture(t, "v1_settlement_success.json")),
	}}
	payer, signer := specPayer(t)
	var params mcp.CallToolParams
	require.NoError(t, json.Unmarshal(spec.Params, &params))
	params.Meta = nil

	res, err := newClient(t, session, payer).CallTool(context.Background(), &params)
	require.NoError(t, err)
	require.Len(t, session.calls, 2)
	sent, err := json.Marshal(session.calls[1])
	require.NoError(t, err)
	assert.Equal(t, shape(t, spec.Params), shape(t, sent), "the paid call has the v1 spec's shape")
	for _, path := range [][]string{{"name"}, {"arguments"}, {"_meta", mcppay.MetaPayment, "x402Version"},
		{"_meta", mcppay.MetaPayment, "scheme"}, {"_meta", mcppay.MetaPayment, "network"}} {
		assert.JSONEq(t, string(member(t, spec.Params, path...)), string(member(t, sent, path...)), "%v", path)
	}
	assert.Equal(t, int64(1), signer.Signed())
	assert.Equal(t, "eip155:84532", res.Payment.Network)
	assert.Equal(t, big.NewInt(10_000), res.Payment.Amount)
	assert.Equal(t, "base-sepolia", res.Receipt.RawNetwork)
	assert.Equal(t, big.NewInt(10_000), budgettest.Spent(t, payer))
}

// The spec's settlement failures are clean refusals: the amount stays counted until the
// authorization expires.
func TestTheSpecsSettlementFailuresAreRefusals(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"spec", "v1"} {
		session := &scripted{answers: []*mcp.CallToolResult{
			resultOf(t, fixture(t, version+"_payment_required.json")),
			resultOf(t, fixture(t, version+"_settlement_failure.json")),
		}}
		payer, _ := specPayer(t)
		_, err := call(newClient(t, session, payer), "financial_analysis", nil)
		var rj *x402.PaymentRejectedError
		require.ErrorAs(t, err, &rj, version)
		assert.Equal(t, "Settlement failed", rj.Reason, version)
		assert.Nil(t, rj.Settlement, version)
		assert.Zero(t, rj.StatusCode, version)
		assert.False(t, rj.HeldUntil.IsZero(), version)
		assert.Equal(t, big.NewInt(10_000), budgettest.Reserved(t, payer), version)
		assert.Zero(t, budgettest.Spent(t, payer).Sign(), version)
	}
}

// A tool error that carries a success receipt is a settled payment whose tool answered
// nothing: committed, as a success receipt on an error status is over HTTP.
func TestAToolErrorWithASuccessReceiptIsSettled(t *testing.T) {
	t.Parallel()
	failed := resultOf(t, fixture(t, "spec_settlement_success.json"))
	failed.IsError = true
	session := &scripted{answers: []*mcp.CallToolResult{resultOf(t, fixture(t, "spec_payment_required.json")), failed}}
	payer, _ := specPayer(t)
	_, err := call(newClient(t, session, payer), "financial_analysis", nil)
	var se *x402.PaymentSettledError
	require.ErrorAs(t, err, &se)
	assert.Zero(t, se.StatusCode)
	assert.Equal(t, "0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef", se.Receipt.Transaction)
	assert.Contains(t, err.Error(), "but the answer was an error")
	assert.Equal(t, big.NewInt(10_000), budgettest.Spent(t, payer))
	assert.Zero(t, budgettest.Reserved(t, payer).Sign())
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
