package x402test

import (
	"cmp"
	"context"
	"encoding/json"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentapis/sdk/internal/fakeserver"
	"github.com/agentapis/sdk/x402/wire"
)

// DefaultMCPTool is the tool an MCPServer serves: it answers with its arguments, as JSON
// text. Add others to MCPServer.Server.
const DefaultMCPTool = "echo"

// The _meta keys of the x402 MCP transport (specs/transports-v2/mcp.md of the reference).
const (
	mcpMetaPayment         = "x402/payment"
	mcpMetaPaymentResponse = "x402/payment-response"
)

// mcpCallHeader carries, on each HTTP request to an MCPServer, the number the server gives
// it, so that a tool call can find the HTTP exchange that carries it (to drop it).
const mcpCallHeader = "X-X402test-Exchange"

// MCPCall is a call to a tool of a paid MCP server, as its paywall sees it.
type MCPCall struct {
	// Tool is the tool's name.
	Tool string
	// Arguments are the call's arguments, as the client sent them.
	Arguments json.RawMessage
	// Payment is the payment in the call's _meta["x402/payment"]; nil when it carries none,
	// or one that cannot be read.
	Payment *wire.PaymentPayload
}

// MCPPaywallConfig describes what an MCPServer charges for its tools' calls, and how.
type MCPPaywallConfig struct {
	// Paywall says how a call is paid for, as it says it for an HTTP request: PayTo,
	// Network, Asset, Name, Version and Memo, or Offers (EVM and Solana side by side);
	// Amount; MaxTimeoutSeconds; Description and MimeType of the resource ("mcp://tool/" and
	// the tool's name). Without PayTo and Offers it charges to DefaultPayTo on Base; without
	// Amount or Price, DefaultPrice per call. Its Price, Fault and Settled, which take HTTP
	// requests, are not used: see the fields below. MCP payments are x402 v2:
	// ProtocolVersion must be 0 or 2.
	Paywall PaywallConfig
	// Price, when set, prices each call instead of Paywall.Amount; a nil price lets the
	// call through free.
	Price func(call *MCPCall) *big.Int
	// PayTo, when set, names each call's recipient instead of the offers' own (an empty
	// answer keeps theirs); a Solana recipient's token account is opened on the
	// facilitator's ledger.
	PayTo func(call *MCPCall) string
	// Fault, when set, decides for each call carrying a payment whether the server fails
	// around settling it. InjectSettlementFaults comes first.
	Fault func(call *MCPCall) SettlementFault
	// Settled, when set, is called once the payment of call settled, before any fault.
	Settled func(call *MCPCall, receipt *wire.SettleResponse)
}

// MCPOption configures an MCPServer.
type MCPOption func(*mcpConfig)

// mcpConfig is what the options of NewMCPServer set.
type mcpConfig struct {
	paywall MCPPaywallConfig
	fac     *Facilitator
}

// WithMCPPaywall sets what the server charges and how; without it, every call costs
// DefaultPrice, paid to DefaultPayTo on Base.
func WithMCPPaywall(cfg MCPPaywallConfig) MCPOption {
	return func(c *mcpConfig) { c.paywall = cfg }
}

// WithMCPFacilitator makes the server settle in f (a new empty facilitator by default).
func WithMCPFacilitator(f *Facilitator) MCPOption { return func(c *mcpConfig) { c.fac = f } }

// MCPServer is a paid MCP server for tests: a go-sdk server whose tool calls are charged
// for through a Facilitator as a reference x402 MCP server charges for them
// (specs/transports-v2/mcp.md), reachable in memory (Connect) and over streamable HTTP
// (URL, ConnectHTTP). It is safe for concurrent use.
//
// An unpaid call to a priced tool gets a tool result with isError set and the
// PaymentRequired both in structuredContent and, as JSON, in the first text content. A call
// carrying _meta["x402/payment"] is verified, served by the tool, and settled when the tool
// did not fail; the result carries the receipt in _meta["x402/payment-response"]. A refused
// payment gets a new challenge whose error is the facilitator's code (after a failed
// settlement, with the failed receipt in _meta). A tool error is answered as it is, and
// nothing is settled.
//
// The settlement faults mean over MCP what they mean over HTTP, a JSON-RPC internal error
// standing for a 5xx: FaultErrorBeforeSettle, a JSON-RPC internal error before anything is
// verified; FaultErrorAfterSettle, a JSON-RPC internal error after the settlement, without
// the receipt; FaultDropAfterSettle, the connection closed without an answer (in memory the
// session ends with it; over HTTP only the exchange that carried the call does);
// FaultChallengeAfterSettle, a fresh challenge without a receipt; FaultStallAfterSettle, no
// answer until the client cancels the call (over HTTP, or gives up the exchange), the server
// closes or MaxStall passes, then a drop. A session the client closes while one of its calls
// stalls waits for that call (the MCP SDK closes a session gracefully): give a stalled call a
// context that ends.
type MCPServer struct {
	// URL is the streamable HTTP endpoint.
	URL string

	server *mcp.Server
	pw     *paywall // the offers and the requirements of each price
	cfg    MCPPaywallConfig
	fs     *fakeserver.Server
	rpc    *httptest.Server // the facilitator's Solana node

	closing   chan struct{}
	closeOnce sync.Once
	exchanges atomic.Uint64

	mu       sync.Mutex
	faults   []SettlementFault
	pipes    map[*mcp.ServerSession]net.Conn // the in-memory connections, by session
	inflight map[string]*hangWriter          // the HTTP exchanges in progress, by number
	opened   map[string]bool                 // Solana recipients of PayTo whose account is open
}

// NewMCPServer starts a paid MCP server configured by opts, serving DefaultMCPTool. Close it
// when done.
//
// It panics when the paywall is unusable, as NewPaywall does.
func NewMCPServer(opts ...MCPOption) *MCPServer {
	var cfg mcpConfig
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if cfg.fac == nil {
		cfg.fac = NewFacilitator()
	}
	pc := cfg.paywall.Paywall
	if pc.ProtocolVersion != 0 && pc.ProtocolVersion != 2 {
		panic("x402test: MCP payments are x402 v2: MCPPaywallConfig.Paywall.ProtocolVersion must be 0 or 2")
	}
	if pc.PayTo == "" && len(pc.Offers) == 0 {
		pc.PayTo = DefaultPayTo
	}
	if pc.Amount == nil {
		pc.Amount = big.NewInt(DefaultPrice)
	}
	pc.Price, pc.Fault, pc.Settled = nil, nil, nil
	s := &MCPServer{
		pw:       NewPaywall(cfg.fac, pc, http.NotFoundHandler()).(*paywall),
		cfg:      cfg.paywall,
		closing:  make(chan struct{}),
		pipes:    map[*mcp.ServerSession]net.Conn{},
		inflight: map[string]*hangWriter{},
		opened:   map[string]bool{},
	}
	s.server = mcp.NewServer(&mcp.Implementation{Name: "x402test", Version: "1.0.0"}, nil)
	s.server.AddTool(&mcp.Tool{
		Name:        DefaultMCPTool,
		Description: "Answers with its arguments, as JSON text.",
		InputSchema: map[string]any{"type": "object"},
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
	})
	s.server.AddReceivingMiddleware(s.charge)
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.server }, nil)
	s.fs = fakeserver.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.serveHTTP(streamable, w, r)
	}), fakeserver.Config{Now: cfg.fac.clock.Now})
	s.URL = s.fs.URL
	s.rpc = httptest.NewServer(cfg.fac.SolanaHandler())
	return s
}

// Server returns the go-sdk server, to add tools to (mcp.AddTool): the paywall charges for
// theirs too.
func (s *MCPServer) Server() *mcp.Server { return s.server }

// Facilitator returns the facilitator the server settles in.
func (s *MCPServer) Facilitator() *Facilitator { return s.pw.f }

// SolanaURL returns the URL of the JSON-RPC node of the facilitator's Solana ledger, for a
// Solana payer (svm.DialNode) and a lookup, as Server.SolanaURL does.
func (s *MCPServer) SolanaURL() string { return s.rpc.URL }

// Connect connects client (nil: a new one) to the server in memory and returns its session,
// which the caller closes. FaultDropAfterSettle closes its connection.
func (s *MCPServer) Connect(ctx context.Context, client *mcp.Client) (*mcp.ClientSession, error) {
	mine, theirs := net.Pipe()
	ss, err := s.server.Connect(ctx, &mcp.IOTransport{Reader: mine, Writer: mine}, nil)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.pipes[ss] = mine
	s.mu.Unlock()
	go func() {
		_ = ss.Wait()
		s.mu.Lock()
		delete(s.pipes, ss)
		s.mu.Unlock()
	}()
	cs, err := orNewClient(client).Connect(ctx, &mcp.IOTransport{Reader: theirs, Writer: theirs}, nil)
	if err != nil {
		_ = ss.Close()
		return nil, err
	}
	return cs, nil
}

// ConnectHTTP connects client (nil: a new one) to the server over streamable HTTP and
// returns its session, which the caller closes.
func (s *MCPServer) ConnectHTTP(ctx context.Context, client *mcp.Client) (*mcp.ClientSession, error) {
	return orNewClient(client).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: s.fs.Client()}, nil)
}

// orNewClient returns c, or a new client when it is nil.
func orNewClient(c *mcp.Client) *mcp.Client {
	if c != nil {
		return c
	}
	return mcp.NewClient(&mcp.Implementation{Name: "x402test-client", Version: "1.0.0"}, nil)
}

// InjectSettlementFaults makes the next paid calls fail around their settlement, in order,
// before MCPPaywallConfig.Fault is asked.
func (s *MCPServer) InjectSettlementFaults(faults ...SettlementFault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, faults...)
}

// Close ends every call in progress (a stalled one included), every session, the HTTP
// endpoint and the Solana node.
func (s *MCPServer) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.mu.Lock()
		for _, c := range s.pipes {
			_ = c.Close()
		}
		s.mu.Unlock()
		s.fs.Close()
		s.rpc.Close()
		for ss := range s.server.Sessions() {
			_ = ss.Close()
		}
	})
}

// serveHTTP serves an HTTP exchange through h, numbered so that a call it carries can drop
// it (see hangUp).
func (s *MCPServer) serveHTTP(h http.Handler, w http.ResponseWriter, r *http.Request) {
	n := strconv.FormatUint(s.exchanges.Add(1), 10)
	r.Header.Set(mcpCallHeader, n)
	hw := &hangWriter{ResponseWriter: w, gone: r.Context().Done()}
	s.mu.Lock()
	s.inflight[n] = hw
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.inflight, n)
		s.mu.Unlock()
	}()
	h.ServeHTTP(hw, r)
	if hw.hang.Load() {
		fakeserver.HangUp(w)
	}
}

// hangWriter passes an HTTP answer through until a call it carries asks to drop it, then
// swallows the rest, so that serveHTTP closes the connection with no answer.
type hangWriter struct {
	http.ResponseWriter
	hang atomic.Bool
	gone <-chan struct{} // closed when the client gave up the exchange
}

// WriteHeader passes the status on, unless the exchange is dropped.
func (w *hangWriter) WriteHeader(code int) {
	if !w.hang.Load() {
		w.ResponseWriter.WriteHeader(code)
	}
}

// Write passes b on, unless the exchange is dropped.
func (w *hangWriter) Write(b []byte) (int, error) {
	if w.hang.Load() {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Flush flushes what was written, unless the exchange is dropped.
func (w *hangWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.hang.Load() {
		f.Flush()
	}
}

// Unwrap returns the underlying writer, for http.ResponseController.
func (w *hangWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// hangUp drops the connection that carries req: its in-memory pipe, or its HTTP exchange.
func (s *MCPServer) hangUp(req *mcp.CallToolRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.pipes[req.Session]; ok {
		_ = c.Close()
	}
	if hw := s.exchange(req); hw != nil {
		hw.hang.Store(true)
	}
}

// exchange returns the HTTP exchange that carries req, nil when none does; s.mu is held.
func (s *MCPServer) exchange(req *mcp.CallToolRequest) *hangWriter {
	if req.Extra == nil {
		return nil
	}
	return s.inflight[req.Extra.Header.Get(mcpCallHeader)]
}

// nextFault takes the next injected settlement fault, or asks the configuration.
func (s *MCPServer) nextFault(call *MCPCall) SettlementFault {
	s.mu.Lock()
	if len(s.faults) > 0 {
		f := s.faults[0]
		s.faults = s.faults[1:]
		s.mu.Unlock()
		return f
	}
	s.mu.Unlock()
	if s.cfg.Fault != nil {
		return s.cfg.Fault(call)
	}
	return NoFault
}

// charge is the server's receiving middleware: it charges for every tools/call as the
// reference MCP payment wrapper does, and passes every other method on.
func (s *MCPServer) charge(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, r mcp.Request) (mcp.Result, error) {
		req, ok := r.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || req.Params == nil {
			return next(ctx, method, r)
		}
		call := &MCPCall{Tool: req.Params.Name, Arguments: req.Params.Arguments}
		raw, paid := req.Params.Meta[mcpMetaPayment]
		if paid {
			call.Payment = decodeMCPPayment(raw)
		}
		reqs := s.requirements(call)
		if reqs == nil {
			return next(ctx, method, r) // free
		}
		if !paid {
			return s.challenge(call, reqs, ReasonPaymentRequired, nil)
		}
		fault := s.nextFault(call)
		if fault == FaultErrorBeforeSettle {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "service unavailable"}
		}
		p := call.Payment
		switch {
		case p == nil:
			return s.challenge(call, reqs, ReasonInvalidPayload, nil)
		case p.X402Version != 2:
			return s.challenge(call, reqs, ReasonInvalidVersion, nil)
		}
		i := -1
		for k := range reqs {
			if matches(p, &reqs[k]) {
				i = k
				break
			}
		}
		if i < 0 {
			return s.challenge(call, reqs, ReasonNoMatch, nil)
		}
		if _, err := s.pw.f.Verify(p, reqs[i]); err != nil {
			return s.challenge(call, reqs, reasonOf(err), nil)
		}
		res, err := next(ctx, method, r)
		result, _ := res.(*mcp.CallToolResult)
		if err != nil || result == nil || result.IsError {
			return res, err // the tool failed: nothing is settled
		}
		receipt, err := s.pw.f.Settle(p, reqs[i])
		if err != nil {
			return s.challenge(call, reqs, reasonOf(err), receipt)
		}
		if s.cfg.Settled != nil {
			s.cfg.Settled(call, receipt)
		}
		if fault != NoFault {
			return s.fail(ctx, req, call, reqs, fault)
		}
		return withMeta(result, mcpMetaPaymentResponse, receipt), nil
	}
}

// fail answers a call whose payment settled as fault says.
func (s *MCPServer) fail(ctx context.Context, req *mcp.CallToolRequest, call *MCPCall, reqs []wire.PaymentRequirements,
	fault SettlementFault) (mcp.Result, error) {
	switch fault {
	case FaultErrorAfterSettle:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
	case FaultChallengeAfterSettle:
		return s.challenge(call, reqs, ReasonPaymentRequired, nil)
	case FaultStallAfterSettle:
		// Until the client cancels the call or, over HTTP, gives up the exchange (a session
		// does not always get to send its cancellation).
		var gone <-chan struct{}
		s.mu.Lock()
		if hw := s.exchange(req); hw != nil {
			gone = hw.gone
		}
		s.mu.Unlock()
		stall, cancel := context.WithTimeout(ctx, MaxStall)
		defer cancel()
		select {
		case <-stall.Done():
		case <-gone:
		case <-s.closing:
		}
	}
	s.hangUp(req) // a drop, and a stall that never ends in an answer
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "connection dropped"}
}

// requirements returns what call costs, one entry per offer, or nil when it is free.
func (s *MCPServer) requirements(call *MCPCall) []wire.PaymentRequirements {
	price := s.pw.cfg.Amount
	if s.cfg.Price != nil {
		if price = s.cfg.Price(call); price == nil {
			return nil
		}
	}
	reqs := s.pw.requirements(nil, price) // nil: a v2 paywall reads no request
	if s.cfg.PayTo == nil {
		return reqs
	}
	payTo := s.cfg.PayTo(call)
	if payTo == "" {
		return reqs
	}
	for k := range reqs {
		reqs[k].PayTo = payTo
		if wire.Namespace(reqs[k].Network) == "solana" {
			s.openAccount(reqs[k].Asset, payTo)
		}
	}
	return reqs
}

// openAccount opens the token account of a Solana recipient of asset once.
func (s *MCPServer) openAccount(asset, owner string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if key := asset + "/" + owner; !s.opened[key] {
		s.pw.f.FundToken(asset, owner, 0)
		s.opened[key] = true
	}
}

// challenge answers call with a payment requirement: a tool error whose structuredContent is
// the PaymentRequired and whose first text content is its JSON, with a failed settlement's
// receipt in _meta when there is one.
func (s *MCPServer) challenge(call *MCPCall, reqs []wire.PaymentRequirements, reason string, receipt *wire.SettleResponse) (mcp.Result, error) {
	pc := s.pw.cfg
	pr := &wire.PaymentRequired{X402Version: 2, Error: reason, Accepts: reqs, Resource: &wire.ResourceInfo{
		URL:         "mcp://tool/" + url.PathEscape(call.Tool),
		Description: cmp.Or(pc.Description, "Tool: "+call.Tool),
		MimeType:    cmp.Or(pc.MimeType, "application/json"),
	}}
	b, err := pr.MarshalJSON()
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	res := &mcp.CallToolResult{IsError: true, StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
	if receipt != nil {
		res = withMeta(res, mcpMetaPaymentResponse, receipt)
	}
	return res, nil
}

// withMeta returns a copy of res with value under key in its _meta.
func withMeta(res *mcp.CallToolResult, key string, value any) *mcp.CallToolResult {
	c := *res
	c.Meta = make(mcp.Meta, len(res.Meta)+1)
	for k, v := range res.Meta {
		c.Meta[k] = v
	}
	c.Meta[key] = value
	return &c
}

// decodeMCPPayment reads the payment of a call's _meta, as the JSON-RPC decoder left it; nil
// when it cannot be read.
func decodeMCPPayment(raw any) *wire.PaymentPayload {
	b, err := json.Marshal(raw)
	if err != nil {
		return nil
	}
	var p wire.PaymentPayload
	if p.UnmarshalJSON(b) != nil {
		return nil
	}
	return &p
}
