package chartdifftest

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/fakeserver"
	"github.com/agentapis/sdk/sdktest"
)

// prefix is the path prefix of every endpoint.
const prefix = "/api/v1"

// credentialHeaders are the headers whose values the records redact: every header the service
// or its gateway reads a key or a token from.
var credentialHeaders = []string{"X-Phm-Key", "X-Hm-Token", "Authorization", "X-Api-Key"}

// Server is an in-memory chart difficulty API on a local httptest server. It is safe for
// concurrent use.
type Server struct {
	// URL is the server's base URL, {chart_api_url}; the endpoints are under URL + "/api/v1".
	URL string

	fs *fakeserver.Server

	mu       sync.Mutex
	cfg      config
	cache    map[int]*Chart
	upstream map[int]*Chart
	authors  map[int][]int
	accounts map[string]*account
	keys     map[string]*apiKey // by sha256 of the plaintext
	keyByID  map[string]*apiKey
	windows  map[string]*window
	running  int
	gate     chan struct{}
	pageRead int
	defToken string
}

// NewServer starts a fake configured by opts. Close it when done.
func NewServer(opts ...Option) *Server {
	cfg := config{charts: 200, clock: sdk.SystemClock()}
	for _, o := range opts {
		o(&cfg)
	}
	if len(cfg.sortFields) == 0 {
		cfg.sortFields = allSortFields
	}
	s := &Server{
		cfg:      cfg,
		cache:    map[int]*Chart{},
		upstream: map[int]*Chart{},
		authors:  map[int][]int{},
		accounts: map[string]*account{},
		keys:     map[string]*apiKey{},
		keyByID:  map[string]*apiKey{},
		windows:  map[string]*window{},
	}
	base := s.Now().Add(-24 * time.Hour)
	for id := 1; id <= cfg.charts; id++ {
		ch := generated(id, base)
		s.cache[id] = &ch
	}
	for id := ProlificFirstChart; id < ProlificFirstChart+200; id++ {
		ch := generated(id, base)
		s.upstream[id] = &ch
	}
	for i := range cfg.extra {
		ch := cfg.extra[i]
		s.cache[ch.ID] = &ch
	}
	var ids []int
	for id := range s.cache {
		ids = append(ids, id)
	}
	for id := range s.upstream {
		if s.cache[id] == nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		if up := s.chartAnywhere(id).Uploader; up > 0 {
			s.authors[up] = append(s.authors[up], id)
		}
	}
	for _, tok := range cfg.accounts {
		s.addAccount(tok)
	}
	if len(cfg.accounts) == 0 {
		s.defToken = "hm_" + randomHex(16)
		s.addAccount(s.defToken)
	} else {
		s.defToken = cfg.accounts[0]
	}
	s.fs = fakeserver.Start(http.HandlerFunc(s.serve), fakeserver.Config{Credentials: credentialHeaders, Now: cfg.clock.Now,
		RenderFault: func(w http.ResponseWriter, _ *http.Request, f sdktest.Fault) {
			s.write(w, fail(f.Status, f.Code, f.Message))
		}})
	s.URL = s.fs.URL
	return s
}

// Close ends every request still being answered (a held analysis answers 502
// analysis_failed) and shuts the server down.
func (s *Server) Close() { s.fs.Close() }

// Client returns an *http.Client for the server.
func (s *Server) Client() *http.Client { return s.fs.Client() }

// Requests returns every request received so far, in order, as it reached the fake: before
// any gateway or proxy of WithGatewayMangling or WithDroppedHeaders changed it, with the
// values of x-phm-key, x-hm-token, Authorization and x-api-key redacted.
func (s *Server) Requests() []sdktest.Request { return s.fs.Requests() }

// RequestCount returns how many requests had the method and the path (escaped, without the
// query, such as "/api/v1/charts"); an empty method or path matches any.
func (s *Server) RequestCount(method, path string) int { return s.fs.RequestCount(method, path) }

// InjectFaults makes the next matching requests fail as the faults say, before any other
// check; the error body has the server's ErrorShape. Each request takes the first queued fault
// that matches it.
func (s *Server) InjectFaults(faults ...sdktest.Fault) { s.fs.InjectFaults(faults...) }

// AccountToken returns the token of the first account (the one created when no WithAccount
// was given).
func (s *Server) AccountToken() string { return s.defToken }

// Now returns the time on the fake's clock (see WithClock).
func (s *Server) Now() time.Time { return s.cfg.clock.Now() }

// SetUpstreamDown switches the upstream outage (see WithUpstreamDown).
func (s *Server) SetUpstreamDown(down bool) { s.set(&s.cfg.upstreamDown, down) }

// SetCacheDown switches the database outage (see WithCacheDown).
func (s *Server) SetCacheDown(down bool) { s.set(&s.cfg.cacheDown, down) }

// SetStatsDown switches the statistics outage (see WithStatsDown).
func (s *Server) SetStatsDown(down bool) { s.set(&s.cfg.statsDown, down) }

// SetLimiterDown switches the rate limiter failure (see WithLimiterDown).
func (s *Server) SetLimiterDown(down bool) { s.set(&s.cfg.limiterDown, down) }

// set changes one switch under the lock.
func (s *Server) set(p *bool, v bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	*p = v
}

// HoldAnalyses makes every engine run wait until release is called, the client goes away or
// the server closes, so that tests can fill the two analysis slots. Cached answers are not
// held.
func (s *Server) HoldAnalyses() (release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	gate := make(chan struct{})
	s.gate = gate
	var once sync.Once
	return func() { once.Do(func() { close(gate) }) }
}

// RunningAnalyses returns the number of engine runs in progress.
func (s *Server) RunningAnalyses() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

// UpstreamPagesRead returns how many upstream pages of 30 charts the author lookups read.
func (s *Server) UpstreamPagesRead() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pageRead
}

// IssueKey creates an active key without expiry for the account of token, bypassing the HTTP
// interface, and returns its plaintext. An empty scope list grants every scope.
func (s *Server) IssueKey(token string, scopes ...string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	acc := s.accounts[token]
	if acc == nil {
		panic("chartdifftest: IssueKey: unknown account token")
	}
	if len(scopes) == 0 {
		scopes = allScopes
	}
	_, plain := s.newKey(acc, "", scopes, nil)
	return plain
}

// Analyzed reports whether the cache holds values for the chart.
func (s *Server) Analyzed(chartID int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.cache[chartID]
	return ch != nil && ch.Analyzed
}

// chartAnywhere returns the chart from the cache or the upstream, or nil.
func (s *Server) chartAnywhere(id int) *Chart {
	if ch := s.cache[id]; ch != nil {
		return ch
	}
	return s.upstream[id]
}

// serve is what every request the shared server (which records it and answers injected
// faults) passes on goes through: the proxy and the gateway, then routing and the endpoint.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	for _, h := range s.cfg.dropped {
		r.Header.Del(h)
	}
	if s.cfg.gateway {
		r.Header.Set("Authorization", "Gateway gw-internal-7f3a")
		r.Header.Del("X-Api-Key")
	}
	s.mu.Unlock()
	s.route(w, r)
}

// errorResponse is an error the endpoints return; the pipeline writes it.
type errorResponse struct {
	status        int
	code, message string
	header        http.Header
}

// fail builds an errorResponse.
func fail(status int, code, message string) *errorResponse {
	return &errorResponse{status: status, code: code, message: message}
}

// write sends e in the server's error shape.
func (s *Server) write(w http.ResponseWriter, e *errorResponse) {
	for k, vs := range e.header {
		w.Header()[k] = vs
	}
	s.mu.Lock()
	shape := s.cfg.shape
	s.mu.Unlock()
	writeError(w, shape, e.status, e.code, e.message)
}

// writeError sends an error body in the given shape.
func writeError(w http.ResponseWriter, shape ErrorShape, status int, code, message string) {
	var body any
	switch shape {
	case ErrorFlat:
		body = map[string]string{"code": code, "message": message}
	case ErrorString:
		body = map[string]string{"error": code, "message": message}
	default:
		body = map[string]any{"error": map[string]string{"code": code, "message": message}}
	}
	fakeserver.WriteJSON(w, status, body)
}

// randomHex returns n random bytes in hexadecimal.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails since Go 1.24
	return hex.EncodeToString(b)
}
