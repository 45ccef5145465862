package gpupricetest

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/internal/fakeserver"
	"github.com/agentapis/sdk/internal/solanafake"
	"github.com/agentapis/sdk/sdktest"
)

// Server is an in-memory GPU price API and a Solana JSON-RPC node on two local httptest
// servers sharing one state: keys bought on the node are redeemed on the API. It is safe for
// concurrent use.
type Server struct {
	// URL is the price API's base URL, {gpu_api_url}; the endpoints are under URL + "/v1".
	URL string
	// RPCURL is the address of the fake Solana JSON-RPC node, for rpc.New.
	RPCURL string
	// Treasury is the wallet that key payments must reach (its USDC associated token
	// account, TreasuryATA, receives them).
	Treasury solana.PublicKey

	api *fakeserver.Server
	rpc *httptest.Server

	cfg     config
	cluster *solanafake.Cluster
	routes  map[string]endpoint

	mu       sync.Mutex
	keys     map[string]*apiKey
	usage    map[usageKey]int
	redeemed map[solana.Signature]bool
}

// NewServer starts a fake configured by opts. Close it when done.
func NewServer(opts ...Option) *Server {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	s := &Server{
		cfg:      cfg,
		keys:     map[string]*apiKey{},
		usage:    map[usageKey]int{},
		redeemed: map[solana.Signature]bool{},
	}
	for _, k := range cfg.keys {
		if k.key == "" || !k.plan.known() {
			panic("gpupricetest: WithKey: an empty key or an unknown plan " + strconv.Quote(string(k.plan)))
		}
		s.keys[k.key] = &apiKey{plan: k.plan, expires: k.expires}
	}
	if cfg.treasury != nil {
		s.Treasury = *cfg.treasury
	} else {
		s.Treasury = solana.NewWallet().PublicKey()
	}
	s.routes = s.endpoints()
	s.cluster = s.newCluster()
	s.api = fakeserver.Start(http.HandlerFunc(s.serveAPI), fakeserver.Config{Credentials: []string{"X-API-Key"}, SecretQuery: isKeyParam, Now: s.Now})
	s.rpc = httptest.NewServer(s.cluster)
	s.URL, s.RPCURL = s.api.URL, s.rpc.URL
	return s
}

// Close shuts both servers down; no handler keeps it waiting.
func (s *Server) Close() {
	s.api.Close()
	s.rpc.Close()
}

// Client returns an *http.Client for the price API.
func (s *Server) Client() *http.Client { return s.api.Client() }

// Now returns the fake's current time, in UTC, on the clock of WithClock.
func (s *Server) Now() time.Time { return s.cfg.clock.Now().UTC() }

// InjectFaults makes the next price API requests matching each fault get its answer instead
// (before any check, and counted against no quota), in the order given; an error body has
// the API's shape, {"error":{"code","message"}}.
func (s *Server) InjectFaults(faults ...sdktest.Fault) { s.api.InjectFaults(faults...) }

// Requests returns every request the price API received so far, in order. The X-API-Key
// header's value is replaced by sdktest.Redacted, as is the value of a query parameter that
// would carry a key in the URL (api_key, apikey, key or x-api-key, in any letter case).
func (s *Server) Requests() []sdktest.Request { return s.api.Requests() }

// RequestCount returns how many price API requests had the method and the path (such as
// "/v1/history", escaped, without the query); an empty method or path matches any.
func (s *Server) RequestCount(method, path string) int { return s.api.RequestCount(method, path) }

// access says who may call an endpoint and whether the call counts against a quota.
type access int

const (
	// public endpoints check no key and count against no quota.
	public access = iota
	// free endpoints count against the caller's quota.
	free
	// paid endpoints need a Pro or Unlimited key and count against its quota.
	paid
)

// endpoint is an operation of the price API.
type endpoint struct {
	method string
	access access
	handle func(s *Server, r *http.Request, now time.Time) (int, any)
}

// endpoints returns the operations by path.
func (s *Server) endpoints() map[string]endpoint {
	return map[string]endpoint{
		"/v1/health":             {http.MethodGet, public, (*Server).health},
		"/v1/gpus":               {http.MethodGet, free, (*Server).gpus},
		"/v1/cheapest":           {http.MethodGet, free, (*Server).cheapest},
		"/v1/platforms":          {http.MethodGet, free, (*Server).platformDirectory},
		"/v1/futures/index":      {http.MethodGet, free, (*Server).futuresIndex},
		"/v1/futures/components": {http.MethodGet, free, (*Server).futuresComponents},
		"/v1/exchange/book":      {http.MethodGet, free, (*Server).orderBook},
		"/v1/history":            {http.MethodGet, paid, (*Server).history},
		s.cfg.redeemPath:         {http.MethodPost, public, (*Server).redeem},
	}
}

// isKeyParam says whether a query parameter's name is one that would carry an API key in
// the URL: api_key, apikey, key or x-api-key, in any letter case.
func isKeyParam(name string) bool {
	for _, p := range []string{"api_key", "apikey", "key", "x-api-key"} {
		if strings.EqualFold(name, p) {
			return true
		}
	}
	return false
}

// serveAPI is the pipeline every price API request goes through after the shared server's
// recording and injected faults: CORS, routing, key in the URL, authentication, quota, then
// the endpoint.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	now := s.Now()
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After")
	if r.Method == http.MethodOptions {
		h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Content-Type, X-API-Key")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	ep, ok := s.routes[r.URL.Path]
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", "no endpoint at "+r.URL.Path)
		return
	}
	if r.Method != ep.method {
		h.Set("Allow", ep.method)
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", r.URL.Path+" accepts "+ep.method+" only")
		return
	}
	for name := range r.URL.Query() {
		if isKeyParam(name) {
			writeError(w, http.StatusBadRequest, "key_in_query", "API keys go in the X-API-Key header, never in the URL")
			return
		}
	}
	if ep.access != public {
		if status, body := s.admit(w, r, ep.access, now); body != nil {
			fakeserver.WriteJSON(w, status, body)
			return
		}
	}
	status, body := ep.handle(s, r, now)
	fakeserver.WriteJSON(w, status, body)
}

// errorBody is the JSON body of every error answer of the price API.
type errorBody struct {
	Error errorDetail `json:"error"`
}

// errorDetail is the error object inside errorBody.
type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Plan, DailyQuota and ResetAt are set on a 429 only.
	Plan       Plan   `json:"plan,omitempty"`
	DailyQuota int    `json:"daily_quota,omitempty"`
	ResetAt    string `json:"reset_at,omitempty"`
}

// fail returns an error answer for a handler.
func fail(status int, code, message string) (int, any) {
	return status, errorBody{errorDetail{Code: code, Message: message}}
}

// writeError sends an error answer.
func writeError(w http.ResponseWriter, status int, code, message string) {
	status, body := fail(status, code, message)
	fakeserver.WriteJSON(w, status, body)
}

// timestamp formats t as the API does: RFC 3339 in UTC, whole seconds.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
