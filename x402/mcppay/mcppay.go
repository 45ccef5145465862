// Package mcppay pays for the paid tools of MCP servers with x402, per the x402 MCP
// transport (specs/transports-v2/mcp.md of the x402 reference): a paid tool answers a call
// with a tool error whose structuredContent is the PaymentRequired; the call is made again
// with the payment in _meta["x402/payment"]; the result carries the settlement receipt in
// _meta["x402/payment-response"].
//
// A Client wraps an MCP session (github.com/modelcontextprotocol/go-sdk) and an
// *x402.Payer, and pays through the payer's own machinery (x402.Payer.Prepare): the same
// schemes, Policy, WithPreference and budget as its HTTP RoundTripper, so one budget bounds
// what a program pays over HTTP and over MCP, and every outcome is the same typed error:
//
//	payer, err := x402.NewPayer(x402.Policy{MaxPerPayment: usdc.Cents(5), MaxTotal: usdc.Dollars(2)},
//		[]x402.Scheme{scheme})
//	...
//	session, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil).
//		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "https://tools.example/mcp"}, nil)
//	...
//	client, err := mcppay.New(session, payer)
//	...
//	res, err := client.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"q": "gpu"}})
//
// What a paid call's outcome means for the money is what it means over HTTP (see package
// x402): a result that is not a tool error commits the payment; a tool error carrying a
// success receipt is an *x402.PaymentSettledError; a new payment requirement or another tool
// error is a clean refusal, an *x402.PaymentRejectedError (the amount stays counted until the
// authorization expires), and Policy.AllowRequote pays a new quote once; no answer (a dropped
// connection, the context ending) or a JSON-RPC error (the server failed, as a 5xx does over
// HTTP) is an *x402.PaymentUnconfirmedError, counted until a reconciler resolves it.
// Refusals before anything is signed are *x402.PolicyError and
// *x402.NoUsableRequirementsError, and a payment requirement that cannot be read is a
// *wire.FormatError.
//
// A paid call is sent once: a tool call is not known to be safe to repeat, and the session
// that lost an answer may be gone, so the payer's WithResend does not apply here.
//
// A payment requirement is read as the reference MCP client reads it: from a tool error's
// structuredContent, else from its first text content holding the same JSON; in x402
// version 2, or version 1 as the x402 v1 MCP transport has it (specs/transports-v1/mcp.md).
// Package x402test serves paid MCP tools for tests (MCPServer).
package mcppay

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/wire"
)

// The _meta keys of the x402 MCP transport.
const (
	// MetaPayment carries a paid call's PaymentPayload, in the call's _meta.
	MetaPayment = "x402/payment"
	// MetaPaymentResponse carries the settlement receipt (a SettleResponse), in the result's
	// _meta.
	MetaPaymentResponse = "x402/payment-response"
)

// Caller calls MCP tools: an *mcp.ClientSession, or anything that wraps one.
type Caller interface {
	CallTool(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error)
}

// Client calls the tools of an MCP server, paying for those that ask for payment with its
// payer. It is safe for concurrent use when its Caller is (an *mcp.ClientSession is).
type Client struct {
	caller Caller
	payer  *x402.Payer
}

// New returns a client calling tools through session and paying with payer. Nil arguments
// are a *sdk.ValidationError.
func New(session Caller, payer *x402.Payer) (*Client, error) {
	switch {
	case session == nil:
		return nil, &sdk.ValidationError{Service: "mcppay", Field: "session", Reason: "must not be nil"}
	case payer == nil:
		return nil, &sdk.ValidationError{Service: "mcppay", Field: "payer", Reason: "must not be nil"}
	}
	return &Client{caller: session, payer: payer}, nil
}

// Result is a tool's answer, with what was paid for it.
type Result struct {
	*mcp.CallToolResult
	// Payment identifies the payment made for the call (its Resource is
	// "mcp://tool/<name>"); nil when the tool asked for none.
	Payment *x402.Payment
	// Receipt is the settlement receipt the result carries; nil when it carries none.
	Receipt *wire.SettleResponse
}

// CallTool calls a tool. When it answers with a payment requirement, CallTool pays it within
// the payer's policy and budget and calls again with the payment; it returns the tool's
// result, or one of the typed errors of package x402 (see the package documentation). A
// call whose _meta already carries a payment is passed through, unpaid by the client. A
// tool error that asks for no payment is returned as a Result, as the session returns it.
func (c *Client) CallTool(ctx context.Context, params *mcp.CallToolParams) (*Result, error) {
	if params == nil {
		params = &mcp.CallToolParams{}
	}
	if _, ok := params.Meta[MetaPayment]; ok {
		res, err := c.caller.CallTool(ctx, params)
		if err != nil {
			return nil, err
		}
		receipt, _ := ReceiptFrom(res)
		return &Result{CallToolResult: res, Receipt: receipt}, nil
	}
	res, err := c.caller.CallTool(ctx, params)
	if err != nil {
		return nil, err
	}
	pr, err := challenge(res)
	switch {
	case err != nil:
		return nil, err
	case pr == nil:
		return &Result{CallToolResult: res}, nil
	}
	a, err := c.payer.Prepare(ctx, pr, "mcp://tool/"+url.PathEscape(params.Name))
	for err == nil {
		var out *Result
		if out, a, err = c.paid(ctx, params, a); out != nil {
			return out, nil
		}
	}
	return nil, err
}

// paid calls the tool with the attempt's payment and books what came back. It returns the
// result when the tool delivered, the attempt that pays a new quote, or the typed error.
func (c *Client) paid(ctx context.Context, params *mcp.CallToolParams, a *x402.Attempt) (*Result, *x402.Attempt, error) {
	res, err := c.caller.CallTool(ctx, withPayment(params, a.Payload()))
	if err != nil {
		// A lost connection and a server's JSON-RPC error alike say nothing of what
		// became of the payment (the session reports both as errors).
		return nil, nil, a.NoAnswer(ctx, err)
	}
	ans := answerOf(res)
	next, err := a.Answered(ctx, ans)
	if err != nil || next != nil {
		return nil, next, err
	}
	p := a.Payment()
	return &Result{CallToolResult: res, Payment: &p, Receipt: ans.Receipt}, nil, nil
}

// answerOf reads a paid call's result as the payer books it: delivered unless it is a tool
// error; its receipt; a new payment requirement in it, or why it cannot be read; a tool
// error's reason.
func answerOf(res *mcp.CallToolResult) x402.Answer {
	ans := x402.Answer{Delivered: !res.IsError}
	ans.Receipt, _ = ReceiptFrom(res)
	if ans.Delivered {
		return ans
	}
	ans.Challenge, ans.ChallengeErr = challenge(res)
	if ans.Challenge != nil {
		ans.Reason = ans.Challenge.Error
		return ans
	}
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			ans.Reason = t.Text
			break
		}
	}
	return ans
}

// withPayment returns a copy of params carrying payment in a _meta of its own (the session
// adds to it).
func withPayment(params *mcp.CallToolParams, payment json.RawMessage) *mcp.CallToolParams {
	c := *params
	c.Meta = make(mcp.Meta, len(params.Meta)+1)
	maps.Copy(c.Meta, params.Meta)
	c.Meta[MetaPayment] = payment
	return &c
}

// ChallengeFrom returns the payment requirement of a tool result, read as the reference MCP
// client reads it: a tool error whose structuredContent is the PaymentRequired, else whose
// first text content is its JSON; x402 version 2, or version 1. It reports false when there
// is none, or none that can be read.
func ChallengeFrom(res *mcp.CallToolResult) (*wire.PaymentRequired, bool) {
	pr, _ := challenge(res)
	return pr, pr != nil
}

// challenge returns the payment requirement of a tool result (see ChallengeFrom); nil, nil
// when there is none; a *wire.FormatError when one that names x402Version and accepts
// cannot be read.
func challenge(res *mcp.CallToolResult) (*wire.PaymentRequired, error) {
	if res == nil || !res.IsError {
		return nil, nil
	}
	var failed error
	for i := range 2 {
		var b []byte
		switch {
		case i == 0:
			b = structured(res.StructuredContent)
		case len(res.Content) > 0:
			if t, ok := res.Content[0].(*mcp.TextContent); ok {
				b = []byte(t.Text)
			}
		}
		var probe struct {
			Version json.RawMessage `json:"x402Version"`
			Accepts json.RawMessage `json:"accepts"`
		}
		if len(b) == 0 || json.Unmarshal(b, &probe) != nil || probe.Version == nil || probe.Accepts == nil {
			continue // not a payment requirement
		}
		var pr wire.PaymentRequired
		if err := pr.UnmarshalJSON(b); err != nil {
			failed = cmp.Or(failed, error(&wire.FormatError{What: "MCP payment requirement", Err: err}))
			continue
		}
		return &pr, nil
	}
	return nil, failed
}

// structured returns the JSON of a result's structuredContent when it is an object with
// x402Version and accepts members, as a session decodes it (a map) or a server sets it (raw
// JSON); nil otherwise.
func structured(v any) []byte {
	switch v := v.(type) {
	case json.RawMessage:
		return v
	case map[string]any:
		if _, ok := v["x402Version"]; !ok {
			return nil
		}
		if _, ok := v["accepts"]; !ok {
			return nil
		}
		b, _ := json.Marshal(v) // nil on failure: not a payment requirement
		return b
	}
	return nil
}

// ReceiptFrom returns the settlement receipt of a tool call's result, its
// _meta["x402/payment-response"]. It reports false when there is none, or none that can be
// read.
func ReceiptFrom(res *mcp.CallToolResult) (*wire.SettleResponse, bool) {
	if res == nil {
		return nil, false
	}
	v, ok := res.Meta[MetaPaymentResponse]
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	s, err := wire.DecodeSettleResponse(string(b)) // it reads bare JSON too
	if err != nil {
		return nil, false
	}
	return s, true
}
