package hostingtest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/fakeserver"
	"github.com/agentapis/sdk/sdktest"
)

// apiPrefix is the path prefix of every API endpoint.
const apiPrefix = "/api/v1"

// Server is an in-memory hosting service on a local httptest server. It is safe for
// concurrent use by hundreds of clients.
type Server struct {
	// URL is the service's base URL, {hosting_url} of the API description: the API is under
	// URL + "/api/v1" and published sites under URL + "/site/".
	URL string

	fs  *fakeserver.Server // records the requests and answers the injected faults
	cfg config             // fixed after NewServer

	mu       sync.Mutex
	accounts map[string]string // token -> owner
	repos    map[string]*repo  // by name: site names are global, so repository names are too
	seq      uint64
	stats    Stats
}

// NewServer starts a fake configured by opts. Close it when done.
func NewServer(opts ...Option) *Server {
	cfg := config{clock: sdk.SystemClock(), maxBodyBytes: DefaultMaxBodyBytes}
	for _, o := range opts {
		o(&cfg)
	}
	s := &Server{cfg: cfg, accounts: map[string]string{}, repos: map[string]*repo{}}
	s.AddAccount(DefaultToken, DefaultOwner)
	for _, a := range cfg.accounts {
		s.AddAccount(a.token, a.owner)
	}
	s.fs = fakeserver.Start(http.HandlerFunc(s.serve), fakeserver.Config{
		Credentials: []string{"Authorization", "X-API-Token"},
		Now:         cfg.clock.Now,
		RenderFault: renderFault,
		Secrets:     s.tokens,
	})
	s.URL = s.fs.URL
	return s
}

// Close shuts the server down. A request still waiting (WithLatency, a fault's Delay) ends at
// once, unanswered.
func (s *Server) Close() { s.fs.Close() }

// Client returns an *http.Client for the server.
func (s *Server) Client() *http.Client { return s.fs.Client() }

// InjectFaults makes the next requests that match each fault fail as it says, instead of
// reaching the service (see sdktest.Fault); a fault that is not a drop is answered with the
// envelope {"ok":false,"error":<Message>}, and "code":<Code> beside it when Code is set.
func (s *Server) InjectFaults(faults ...sdktest.Fault) { s.fs.InjectFaults(faults...) }

// RequestCount returns how many requests with that method and escaped path (without the
// query) the server received; an empty method or path matches any.
func (s *Server) RequestCount(method, path string) int { return s.fs.RequestCount(method, path) }

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

// now returns the fake's time.
func (s *Server) now() time.Time { return s.cfg.clock.Now() }

// next returns a new sequence number; the caller holds mu.
func (s *Server) next() uint64 {
	s.seq++
	return s.seq
}

// serve is the pipeline every request goes through: latency, the body limit, the gateway,
// then the site or the API (behind the CDN firewall). What it learns about the request joins
// the request's record.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var rec record
	defer func() { s.fs.Attach(r, rec) }()
	if !fakeserver.Wait(r.Context(), s.cfg.latency) {
		panic(http.ErrAbortHandler) // the client went away, or the server is closing: no answer
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
		c := &call{r: r, body: body, rec: &rec}
		if s.blockedByCDN(c) {
			rec.blocked = true
			writeBlockPage(w)
			return
		}
		s.serveAPI(w, c)
	default:
		http.NotFound(w, r)
	}
}

// blockedByCDN applies the CDN firewall options to an API request and notes the encoding of
// a file write in its record.
func (s *Server) blockedByCDN(c *call) bool {
	if c.r.Method != http.MethodPut && c.r.Method != http.MethodPost {
		return false
	}
	obj, _ := c.object()
	content, hasContent, _ := obj.stringMember("content")
	if isFileAddress(c.r.URL.EscapedPath()) {
		switch _, hasBase64, _ := obj.stringMember("content_base64"); {
		case hasContent && hasBase64:
			c.rec.encoding = "content+content_base64"
		case hasContent:
			c.rec.encoding = "content"
		case hasBase64:
			c.rec.encoding = "content_base64"
		}
		if s.cfg.blockPUT && c.r.Method == http.MethodPut {
			return true
		}
	}
	return s.cfg.blockRawHTML && hasContent && hasRawMarkup(content)
}

// apiError is an ok:false answer.
type apiError struct {
	status  int
	message string
}

// errorBody is the envelope of a failure; Code is set only by an injected fault.
type errorBody struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
	Code  string `json:"code,omitempty"`
}

// okBody starts the envelope of a success; answers embed it so that "ok" comes first.
type okBody struct {
	OK bool `json:"ok"`
}

// success is the okBody of every successful answer.
var success = okBody{OK: true}

// writeError sends an ok:false envelope.
func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, errorBody{Error: e.message})
}

// renderFault answers an injected fault with the envelope: its message (or code, or the
// status text) as the error, and its code beside it.
func renderFault(w http.ResponseWriter, _ *http.Request, f sdktest.Fault) {
	writeJSON(w, f.Status, errorBody{Error: cmp.Or(f.Message, f.Code, http.StatusText(f.Status)), Code: f.Code})
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
