package x402test

import (
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/agentapis/sdk/internal/fakeserver"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/wire"
)

// DefaultPayTo is the recipient of a Server's paywall unless WithPaywall names another.
const DefaultPayTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

// DefaultPrice is what a Server charges per request unless WithPaywall says otherwise: 0.01
// USDC, in atomic units.
const DefaultPrice = 10_000

// Server is a started paid resource server for tests: a paywall (see NewPaywall) in front of
// a content handler, settling in a Facilitator. It is safe for concurrent use.
type Server struct {
	// URL is the server's base URL; every path under it is paid.
	URL string

	fs  *fakeserver.Server
	fac *Facilitator
	rpc *httptest.Server // the facilitator's Solana node

	mu     sync.Mutex
	faults []SettlementFault
}

// Option configures a Server.
type Option func(*serverConfig)

// serverConfig is what the options of NewServer set.
type serverConfig struct {
	paywall PaywallConfig
	fac     *Facilitator
	content http.Handler
}

// WithPaywall sets what the paywall charges and how (PayTo, Amount or Price, network,
// protocol version...); its Fault field is combined with InjectSettlementFaults, which
// comes first. Without it the paywall charges DefaultPrice to DefaultPayTo on Base.
func WithPaywall(cfg PaywallConfig) Option { return func(c *serverConfig) { c.paywall = cfg } }

// WithFacilitator makes the server settle in f (a new empty facilitator by default), so that
// a test funds the payer and audits the settlements there.
func WithFacilitator(f *Facilitator) Option { return func(c *serverConfig) { c.fac = f } }

// WithContent sets the handler that serves a paid request (by default a JSON document
// naming the path).
func WithContent(h http.Handler) Option { return func(c *serverConfig) { c.content = h } }

// NewServer starts a paid resource server configured by opts. Close it when done.
func NewServer(opts ...Option) *Server {
	cfg := serverConfig{paywall: PaywallConfig{PayTo: DefaultPayTo, Amount: big.NewInt(DefaultPrice)}}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if cfg.fac == nil {
		cfg.fac = NewFacilitator()
	}
	if cfg.content == nil {
		cfg.content = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"paid": true, "path": r.URL.Path})
		})
	}
	s := &Server{fac: cfg.fac}
	own := cfg.paywall.Fault
	cfg.paywall.Fault = func(r *http.Request) SettlementFault {
		if f, ok := s.nextFault(); ok {
			return f
		}
		if own != nil {
			return own(r)
		}
		return NoFault
	}
	paywall := NewPaywall(cfg.fac, cfg.paywall, cfg.content)
	s.fs = fakeserver.Start(paywall, fakeserver.Config{
		Credentials: []string{wire.HeaderPaymentSignature, wire.HeaderPaymentV1},
		Now:         cfg.fac.clock.Now,
	})
	s.URL = s.fs.URL
	s.rpc = httptest.NewServer(cfg.fac.SolanaHandler())
	return s
}

// Close ends every request in progress (a stalled one included) and shuts the server down,
// with its Solana node.
func (s *Server) Close() {
	s.fs.Close()
	s.rpc.Close()
}

// SolanaURL returns the URL of the JSON-RPC node of the facilitator's Solana ledger, for a
// Solana payer to read mints and blockhashes from and a lookup to find payments on
// (svm.DialNode(srv.SolanaURL())).
func (s *Server) SolanaURL() string { return s.rpc.URL }

// Client returns an unpaid *http.Client for the server; wrap its transport with a payer's
// RoundTripper to pay.
func (s *Server) Client() *http.Client { return s.fs.Client() }

// Facilitator returns the facilitator the server settles in.
func (s *Server) Facilitator() *Facilitator { return s.fac }

// Requests returns the requests received so far, in order; payment headers are redacted.
func (s *Server) Requests() []sdktest.Request { return s.fs.Requests() }

// RequestCount returns how many requests with that method and path were received; an empty
// method or path matches any.
func (s *Server) RequestCount(method, path string) int { return s.fs.RequestCount(method, path) }

// InjectFaults makes the next matching requests fail as faults say, before the paywall sees
// them (so nothing is verified or settled).
func (s *Server) InjectFaults(faults ...sdktest.Fault) { s.fs.InjectFaults(faults...) }

// InjectSettlementFaults makes the next paid requests fail around their settlement, in
// order: FaultErrorBeforeSettle fails before anything is settled, the others after the
// payment settled (see SettlementFault).
func (s *Server) InjectSettlementFaults(faults ...SettlementFault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, faults...)
}

// nextFault takes the next injected settlement fault.
func (s *Server) nextFault() (SettlementFault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.faults) == 0 {
		return NoFault, false
	}
	f := s.faults[0]
	s.faults = s.faults[1:]
	return f, true
}
