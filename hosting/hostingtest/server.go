package hostingtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/agentapis/sdk/internal/conncount"
)

// apiPrefix is the path prefix of every API endpoint.
const apiPrefix = "/api/v1"

// Server is an in-memory hosting service on a local httptest server. It is safe for
// concurrent use by hundreds of clients.
type Server struct {
	// URL is the service's base URL, {hosting_url} of the API description: the API is under
	// URL + "/api/v1" and published sites under URL + "/site/".
	URL string

	ts  *conncount.Server // counts the TCP connections it accepts
	cfg config            // fixed after NewServer, except the failure share and seed (under mu)

	mu       sync.Mutex
	accounts map[string]string // token -> owner
	repos    map[string]*repo  // by name: site names are global, so repository names are too
	seq      uint64
	requests []Request
	stats    Stats
}

// NewServer starts a fake configured by opts. Close it when done.
func NewServer(opts ...Option) *Server {
	cfg := config{clock: time.Now, maxBodyBytes: DefaultMaxBodyBytes}
	for _, o := range opts {
		o(&cfg)
	}
	s := &Server{cfg: cfg, accounts: map[string]string{}, repos: map[string]*repo{}}
	s.AddAccount(DefaultToken, DefaultOwner)
	for _, a := range cfg.accounts {
		s.AddAccount(a.token, a.owner)
	}
	s.ts = conncount.Start(http.HandlerFunc(s.serve))
	s.URL = s.ts.URL
	return s
}

// Connections returns how many TCP connections the server has accepted, so that tests and
// benchmarks can check that a client reuses its connections.
func (s *Server) Connections() int { return int(s.ts.Connections()) }

// Close shuts the server down.
func (s *Server) Close() { s.ts.Close() }

// Client returns an *http.Client for the server.
func (s *Server) Client() *http.Client { return s.ts.Client() }

// AddAccount lets token authenticate as owner from now on. It panics on an empty owner, on
// a token that is empty or holds whitespace or control characters (it could not travel in
// a header), or on a token that already belongs to another owner.
func (s *Server) AddAccount(token, owner string) {
	if owner == "" || token == "" || strings.IndexFunc(token, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		panic("hostingtest: AddAccount needs an owner and a token without whitespace or control characters")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.accounts[token]; ok && prev != owner {
		panic("hostingtest: AddAccount: the token already belongs to another owner")
	}
	s.accounts[token] = owner
}

// SetWriteFailures changes the share of file writes that fail and the seed of the draw (see
// WithWriteFailures); a share of 0 stops the failures.
func (s *Server) SetWriteFailures(share float64, seed uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.failShare, s.cfg.failSeed = clampShare(share), seed
}

// now returns the fake's time.
func (s *Server) now() time.Time { return s.cfg.clock() }

// next returns a new sequence number; the caller holds mu.
func (s *Server) next() uint64 {
	s.seq++
	return s.seq
}

// statusWriter remembers the status of the answer.
type statusWriter struct {
	http.ResponseWriter
	status int
}

// WriteHeader records the status and sends it.
func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

// Write sends body bytes, with status 200 if none was set.
func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// serve is the pipeline every request goes through: the log entry, latency, the body limit,
// the gateway, then the site or the API (behind the CDN firewall).
func (s *Server) serve(rw http.ResponseWriter, r *http.Request) {
	w := &statusWriter{ResponseWriter: rw}
	entry := s.newEntry(r)
	defer func() { s.record(entry, w.status) }()

	if d := s.cfg.latency; d > 0 {
		t := time.NewTimer(d)
		select {
		case <-r.Context().Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, s.cfg.maxBodyBytes+1))
	if err != nil {
		writeError(w, &apiError{http.StatusBadRequest, "the request body could not be read"})
		return
	}
	if int64(len(body)) > s.cfg.maxBodyBytes {
		writeError(w, &apiError{http.StatusRequestEntityTooLarge, "the request body is too large"})
		return
	}
	if s.cfg.stripAuth {
		r.Header.Del("Authorization")
	}
	path := r.URL.EscapedPath()
	switch {
	case strings.HasPrefix(path, sitePrefix):
		s.serveSite(w, r)
	case path == apiPrefix || strings.HasPrefix(path, apiPrefix+"/"):
		c := &call{r: r, body: body, entry: entry}
		if s.blockedByCDN(c) {
			entry.Blocked = true
			writeBlockPage(w)
			return
		}
		s.serveAPI(w, c)
	default:
		http.NotFound(w, r)
	}
}

// blockedByCDN applies the CDN firewall options to an API request and notes the encoding of
// a file write on its log entry.
func (s *Server) blockedByCDN(c *call) bool {
	if c.r.Method != http.MethodPut && c.r.Method != http.MethodPost {
		return false
	}
	obj, _ := c.object()
	content, hasContent, _ := obj.stringMember("content")
	if isFileAddress(c.r.URL.EscapedPath()) {
		switch _, hasBase64, _ := obj.stringMember("content_base64"); {
		case hasContent && hasBase64:
			c.entry.Encoding = "content+content_base64"
		case hasContent:
			c.entry.Encoding = "content"
		case hasBase64:
			c.entry.Encoding = "content_base64"
		}
		if s.cfg.blockPUT && c.r.Method == http.MethodPut {
			return true
		}
	}
	return s.cfg.blockRawHTML && hasContent && hasRawMarkup(content)
}

// newEntry starts the log entry of a request: never a token value, even one a client put in
// its URL.
func (s *Server) newEntry(r *http.Request) *Request {
	e := &Request{Method: r.Method, Path: r.URL.EscapedPath()}
	if r.Header.Get("Authorization") != "" {
		e.AuthHeaders = append(e.AuthHeaders, AuthAuthorization)
	}
	if r.Header.Get("X-API-Token") != "" {
		e.AuthHeaders = append(e.AuthHeaders, AuthAPIToken)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for token := range s.accounts {
		for _, form := range []string{token, url.PathEscape(token), url.QueryEscape(token)} {
			if strings.Contains(r.RequestURI, form) {
				e.TokenInURL = true
			}
			e.Path = strings.ReplaceAll(e.Path, form, "[token]")
		}
	}
	return e
}

// record finishes a log entry and counts its answer.
func (s *Server) record(e *Request, status int) {
	e.Status = status
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, *e)
	s.stats.Requests++
	switch status {
	case http.StatusUnauthorized:
		s.stats.Unauthorized++
	case http.StatusForbidden:
		s.stats.Forbidden++
	}
}

// apiError is an ok:false answer.
type apiError struct {
	status  int
	message string
}

// errorBody is the envelope of a failure.
type errorBody struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

// okBody starts the envelope of a success; answers embed it so that "ok" comes first.
type okBody struct {
	OK bool `json:"ok"`
}

// success is the okBody of every successful answer.
var success = okBody{OK: true}

// writeError sends an ok:false envelope.
func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, errorBody{OK: false, Error: e.message})
}

// writeJSON sends v as a JSON body, with markup left unescaped as a JavaScript server
// would send it.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
