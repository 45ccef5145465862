// Package mcpserver is the Model Context Protocol server of the SDK: the five services and
// any x402 resource as MCP tools, every payment under one durable budget and one spending
// policy. The program is cmd/agentapis-mcp; this package holds its logic.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/productdata"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/reconcile"
)

// Name is the server's name in the MCP handshake.
const Name = "agentapis-mcp"

// maxErrorText bounds the text of a tool error: a validation error may quote the argument it
// refused, such as a string of a megabyte.
const maxErrorText = 2000

// Options configure a Server.
type Options struct {
	// Version is the server's version in the MCP handshake.
	Version string
	// Policy is the spending policy; its zero fields take DefaultPolicy's (DefaultOfflinePolicy's
	// with Offline).
	Policy Policy
	// Env reads the environment: service addresses, credentials, wallet keys.
	Env func(string) string
	// Offline starts the SDK's in-memory fakes and funded throwaway wallets, with a budget of
	// its own in a temporary file; Env is then not read.
	Offline bool
	// AllowDestructive registers the tools that delete or replace: hosting_delete_file,
	// chartdiff_rotate_key and chartdiff_delete_key, and lets hosting_put_file replace a file.
	AllowDestructive bool
	// Fetch are x402_fetch's rules.
	Fetch FetchRules
	// BudgetPath is the budget file (DefaultBudgetPath when empty); BudgetDSN, when set, keeps
	// the budget in PostgreSQL instead, under BudgetName (budgetpg's default when empty).
	BudgetPath, BudgetDSN, BudgetName string
	// DeployRoot is the folder under which hosting_deploy may read a folder to publish; empty
	// allows inline files only.
	DeployRoot string
	// Logger receives the server's log (never stdout); nil discards it.
	Logger *slog.Logger
}

// Server is the MCP server with its clients, budget and payers.
type Server struct {
	mcp         *mcp.Server
	opts        Options
	env         func(string) string
	logger      *slog.Logger
	limits      *limits
	budget      *budget.Budget
	budgetWhere string
	// toolBudgets count what each capped tool paid, against its cap.
	toolBudgets map[string]*budget.Budget
	// payer pays x402 challenges (reportstore, x402_fetch); nil without an EVM wallet.
	payer   *x402.Payer
	lookups []reconcile.Lookup
	fetch   *fetcher
	// trustedHosts are the offline fakes' hosts, fetched and paid over http on loopback.
	trustedHosts []string
	secrets      *secrets
	tools        []string
	services     services
	closers      []func()
	// demoURL is the offline paid resource x402_fetch can try.
	demoURL string
}

// New starts a server: it opens the budget, builds the payers and the clients of the
// services the environment configures (all of them offline), and registers their tools.
// Close it when done.
func New(ctx context.Context, o Options) (s *Server, err error) {
	if o.Env == nil {
		o.Env = func(string) string { return "" }
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	base := DefaultPolicy
	if o.Offline {
		base = DefaultOfflinePolicy
	}
	l, err := base.Merge(o.Policy).parse()
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	s = &Server{opts: o, env: o.Env, logger: o.Logger, limits: l, secrets: newSecrets()}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if o.Offline {
		if err := s.startOffline(); err != nil {
			return nil, err
		}
	} else if o.BudgetDSN == "" && o.BudgetPath == "" {
		if s.opts.BudgetPath, err = DefaultBudgetPath(); err != nil {
			return nil, err
		}
	}
	b, where, closeBudget, err := openBudget(ctx, &s.opts, l)
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, closeBudget)
	s.budget, s.budgetWhere = b, where
	toolBudgets, closeTools, err := openToolBudgets(ctx, &s.opts, l)
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, closeTools)
	s.toolBudgets = toolBudgets
	if err := s.setupPayer(); err != nil {
		return nil, err
	}
	s.fetch = newFetcher(s.opts.Fetch, l.allowedHosts, s.trustedHosts)

	s.mcp = mcp.NewServer(&mcp.Implementation{Name: Name, Title: "agentapis SDK", Version: o.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       s.logger,
	})
	s.mcp.AddReceivingMiddleware(s.guard)
	s.addBudgetTools()
	s.addFetchTool()
	for _, setup := range []func(context.Context) error{s.setupReportstore, s.setupHosting, s.setupProductdata, s.setupGPUPrice, s.setupChartdiff} {
		if err := setup(ctx); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// instructions tell the client how the server spends.
const instructions = `Tools for five HTTP services (reportstore, hosting, productdata, gpuprice, chartdiff) and x402_fetch for any URL that asks for an x402 payment. Every payment draws on one durable budget with per-payment, total, window, payee and per-tool limits; budget_status shows what is spent and left. A refused payment is a tool error that names the limit and what is left; nothing was paid. Keys the server buys or creates are kept by it and shown masked.`

// MCP returns the MCP server, to run on any transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Tools returns the names of the registered tools, in registration order.
func (s *Server) Tools() []string { return slices.Clone(s.tools) }

// Close stops the fakes and closes the budget store, last opened first.
func (s *Server) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// RunStdio serves one client over stdin and stdout until it disconnects or ctx ends.
func (s *Server) RunStdio(ctx context.Context) error {
	return s.mcp.Run(ctx, &mcp.StdioTransport{})
}

// HTTPHandler returns the streamable HTTP handler of the server, at any path.
func (s *Server) HTTPHandler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)
}

// ServeHTTP serves the streamable HTTP transport on ln until ctx ends.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s.HTTPHandler(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn)}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// guard is the receiving middleware of every request: a panicking handler becomes an error
// (a tool error for a tool call) and the server goes on; a tool error's text is bounded and
// scrubbed of every secret the server knows.
func (s *Server) guard(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.logger.Error("a handler panicked; the server goes on", "method", method, "panic", s.secrets.scrub(fmt.Sprint(r)))
				if method == "tools/call" {
					res, err = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
						Text: "internal error: the tool failed unexpectedly and did nothing more; the server goes on"}}}, nil
					return
				}
				res, err = nil, errors.New("internal error")
			}
		}()
		res, err = next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && r.IsError {
			for _, c := range r.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					t.Text = truncate(s.secrets.scrub(t.Text), maxErrorText)
				}
			}
		}
		return res, err
	}
}

// truncate cuts text to at most n bytes, on a rune boundary, saying so.
func truncate(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + " …(truncated)"
}

// handler is a tool's typed handler: its result, a short text for the model, or an error
// that becomes a tool error.
type handler[In, Out any] func(ctx context.Context, req *mcp.CallToolRequest, in In) (Out, string, error)

// addTool registers a tool whose input schema is In's bounded by its tags (see inputSchema)
// and whose output schema is Out's. It panics when In has an unbounded field: a programming
// error that every test of the server meets.
func addTool[In, Out any](s *Server, t *mcp.Tool, h handler[In, Out]) {
	schema, err := inputSchema[In]()
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", t.Name, err))
	}
	t.InputSchema = schema
	name := t.Name
	mcp.AddTool(s.mcp, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		c := &call{tool: name, session: req.Session}
		ctx = withCall(ctx, c)
		out, text, err := h(ctx, req, in)
		c.settle(ctx, s.logger, err)
		if err != nil {
			var zero Out
			s.logger.Info("tool call failed", "tool", name, "error", s.secrets.scrub(err.Error()))
			return nil, zero, errors.New(s.secrets.scrub(err.Error()))
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s.secrets.scrub(text)}}}, out, nil
	})
	s.tools = append(s.tools, name)
}

// readOnly, paid, writes and destructive are the annotations of the kinds of tools.
var (
	readOnly    = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(true)}
	paid        = &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)}
	writes      = &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)}
	destructive = &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)}
)

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// addBudgetTools registers budget_status, budget_outstanding and budget_reconcile.
func (s *Server) addBudgetTools() {
	addTool(s, &mcp.Tool{Name: "budget_status", Annotations: readOnly,
		Description: "Shows what the durable budget has spent, holds in reserve and has left, and every limit of the spending policy (total, per payment, rolling window, per payee, per-tool caps, the approval threshold). Free."},
		s.budgetStatus)
	addTool(s, &mcp.Tool{Name: "budget_outstanding", Annotations: readOnly,
		Description: "Lists the payments the budget still holds: in flight, refused but still usable by the payee, or of unknown outcome, with amount, payee, rail and expiry. Free."},
		s.budgetOutstanding)
	addTool(s, &mcp.Tool{Name: "budget_reconcile", Annotations: &mcp.ToolAnnotations{IdempotentHint: true, OpenWorldHint: ptr(true)},
		Description: "Looks the outstanding payments up on their chains: those that settled are counted as spent, those that expired unsettled are given back. Free."},
		s.budgetReconcile)
}

// secrets are the credentials the server holds (from the environment, bought or created),
// scrubbed from every text it sends or logs.
type secrets struct {
	mu     sync.Mutex
	values []string
}

// newSecrets returns an empty set.
func newSecrets() *secrets { return &secrets{} }

// add remembers values; values shorter than 6 bytes are not scrubbed (they would match
// ordinary text, and no credential is that short).
func (x *secrets) add(values ...string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, v := range values {
		if len(v) >= 6 && !slices.Contains(x.values, v) {
			x.values = append(x.values, v)
		}
	}
}

// scrub replaces every secret in text by a mask.
func (x *secrets) scrub(text string) string {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, v := range x.values {
		if strings.Contains(text, v) {
			text = strings.ReplaceAll(text, v, mask(v))
		}
	}
	return text
}

// mask shows a credential as its kind's prefix and last four characters: "sk-…1a2b".
func mask(v string) string {
	if len(v) < 12 {
		return "…"
	}
	prefix := ""
	if i := strings.IndexAny(v, "-_"); i > 0 && i <= 4 {
		prefix = v[:i+1]
	}
	return prefix + "…" + v[len(v)-4:]
}

// services are the clients of the services the environment configures; nil when not.
type services struct {
	reportstore *reportstore.Client
	hosting     *hosting.Client
	productdata *productdata.Client
	gpuprice    *gpuprice.Client
	gpuBuyer    *gpuBuyer
	chartdiff   *chartdiff.Client
}
