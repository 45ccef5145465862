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
// success receipt is an *x402.PaymentSettledError; a new payment requirement or a tool error
// is a clean refusal, an *x402.PaymentRejectedError (the amount stays counted until the
// authorization expires), and Policy.AllowRequote pays a new quote once; no answer (a
// dropped connection, the context ending) or a JSON-RPC error that is not a payment
// requirement is an *x402.PaymentUnconfirmedError, counted until a reconciler resolves it. Refusals before
// anything is signed are *x402.PolicyError and *x402.NoUsableRequirementsError.
//
// A paid call is sent once: a tool call is not known to be safe to repeat, and the session
// that lost an answer may be gone, so the payer's WithResend does not apply here.
//
// Besides the spec's form, a payment requirement is read in every form the reference MCP
// client accepts, and one older draft's: the PaymentRequired as JSON in the first text
// content, wrapped or not in {"x402/error": {"code": 402, "data": ...}} (in structuredContent
// too), and a JSON-RPC error of code 402 or -32042 whose data is the PaymentRequired (or
// holds it under "x402"). Package x402test serves paid MCP tools for tests (MCPServer).
package mcppay

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	res, err := c.caller.CallTool(ctx, withMeta(params, "", nil))
	pr, _ := challenge(res, err)
	switch {
	case pr == nil && err != nil:
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
	res, err := c.caller.CallTool(ctx, withMeta(params, MetaPayment, a.Payload()))
	ans := x402.Answer{}
	if err == nil {
		ans = answerOf(res)
	} else {
		// A new payment requirement in a JSON-RPC error is a refusal. Any other error says
		// nothing of what became of the payment: the session reports a lost connection as
		// a JSON-RPC error too.
		pr, perr := challenge(nil, err)
		if pr == nil && perr == nil {
			return nil, nil, a.NoAnswer(ctx, err)
		}
		ans.Challenge, ans.ChallengeErr, ans.Reason = pr, perr, err.Error()
		if pr != nil {
			ans.Reason = pr.Error
		}
	}
	next, err := a.Answered(ctx, ans)
	if err != nil || next != nil {
		return nil, next, err
	}
	p := a.Payment()
	return &Result{CallToolResult: res, Payment: &p, Receipt: ans.Receipt}, nil, nil
}

// answerOf reads a paid call's result as the payer books it: delivered unless it is a tool
// error; a new payment requirement in it; its receipt; a tool error's text as the reason.
func answerOf(res *mcp.CallToolResult) x402.Answer {
	ans := x402.Answer{Delivered: !res.IsError}
	ans.Receipt, _ = ReceiptFrom(res)
	if ans.Delivered {
		return ans
	}
	ans.Challenge, ans.ChallengeErr = challenge(res, nil)
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

// withMeta returns a copy of params whose _meta is a copy of its own (the session adds to
// it), with value under key when key is set.
func withMeta(params *mcp.CallToolParams, key string, value any) *mcp.CallToolParams {
	c := *params
	c.Meta = make(mcp.Meta, len(params.Meta)+4)
	maps.Copy(c.Meta, params.Meta)
	if key != "" {
		c.Meta[key] = value
	}
	return &c
}

// ChallengeFrom returns the payment requirement of a tool call's outcome, its result or its
// error, in any form the reference MCP client accepts: a tool error whose structuredContent
// is the PaymentRequired, or wraps it as {"x402/error": {"data": ...}}; the same as JSON in
// its first text content; a JSON-RPC error of code 402 or -32042 whose data is the
// PaymentRequired, or holds it under "x402". It reports false when there is none, or none
// that can be read.
func ChallengeFrom(res *mcp.CallToolResult, err error) (*wire.PaymentRequired, bool) {
	pr, _ := challenge(res, err)
	return pr, pr != nil
}

// challenge returns the payment requirement of a call's outcome (see ChallengeFrom), or why
// one that names an x402Version could not be read; nil, nil when there is none.
func challenge(res *mcp.CallToolResult, err error) (*wire.PaymentRequired, error) {
	var candidates []any
	var werr *jsonrpc.Error
	switch {
	case err != nil && errors.As(err, &werr) && (werr.Code == 402 || werr.Code == -32042):
		var data map[string]any
		if json.Unmarshal(werr.Data, &data) != nil {
			return nil, nil
		}
		candidates = append(candidates, data, data["x402"])
	case err == nil && res != nil && res.IsError:
		candidates = append(candidates, res.StructuredContent, wrapped(res.StructuredContent))
		if len(res.Content) > 0 {
			if t, ok := res.Content[0].(*mcp.TextContent); ok {
				var v any
				if json.Unmarshal([]byte(t.Text), &v) == nil {
					candidates = append(candidates, v, wrapped(v))
				}
			}
		}
	}
	var failed error
	for _, c := range candidates {
		obj, ok := c.(map[string]any)
		if !ok || obj["x402Version"] == nil {
			continue
		}
		b, err := json.Marshal(obj)
		if err != nil {
			continue
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

// wrapped returns the data of an {"x402/error": {"code": 402, "data": ...}} wrapper.
func wrapped(v any) any {
	obj, _ := v.(map[string]any)
	inner, _ := obj["x402/error"].(map[string]any)
	return inner["data"]
}

// ReceiptFrom returns the settlement receipt of a tool call's result: its
// _meta["x402/payment-response"], or, as one draft of the spec put it, its structuredContent's
// "x402/payment-response". It reports false when there is none, or none that can be read.
func ReceiptFrom(res *mcp.CallToolResult) (*wire.SettleResponse, bool) {
	if res == nil {
		return nil, false
	}
	v, ok := res.Meta[MetaPaymentResponse]
	if !ok {
		obj, _ := res.StructuredContent.(map[string]any)
		if v, ok = obj[MetaPaymentResponse]; !ok {
			return nil, false
		}
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
