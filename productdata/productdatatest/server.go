package productdatatest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/fakeserver"
	"github.com/agentapis/sdk/sdktest"
)

// authScheme is the scheme word of the Authorization header, literally.
const authScheme = "BasicAuth"

// Server is an in-memory product-data API on a local httptest server. It is safe for
// concurrent use.
type Server struct {
	// URL is the server's base URL, {data_api_url}; the endpoints are under URL + "/api/".
	URL string

	fs *fakeserver.Server

	mu         sync.Mutex
	cfg        config
	keys       map[string]bool
	created    time.Time
	left       int
	window     []time.Time // admitted calls of the last minute
	executed   int
	tasks      []*task
	latest     map[taskKey]*task
	nextTaskID int
}

// Exchange is one request as the fake received and answered it: the record every fake keeps
// (with the Authorization header's value redacted; a key a client sends anywhere else, such
// as the query or the body, is kept, so that a test can catch the leak) and what this fake
// made of it. A request answered by an injected fault has only the record and Endpoint.
type Exchange struct {
	sdktest.Request
	// Endpoint is the endpoint name as the path spelled it (the part after /api/).
	Endpoint string
	// AuthScheme is the word of letters before the first space of the Authorization header
	// ("BasicAuth" when the client follows the service), empty when there is no such word.
	AuthScheme string
	// Authorized reports whether the header carried an accepted key with the right scheme.
	Authorized bool
	// Params are the body's top-level members as sent (the spelling of their names kept);
	// nil when the body was not read as a JSON object.
	Params map[string]json.RawMessage
	// Domain is the site code the call was served for; 0 when it had none that was valid.
	Domain int
	// Code is the business code of the answer's envelope; 0 for answers without one (see
	// Status).
	Code int
	// Consumed is the request units the call consumed.
	Consumed int
}

// NewServer starts a fake configured by opts. Close it when done.
func NewServer(opts ...Option) *Server {
	cfg := config{
		requests:      DefaultRequests,
		clock:         sdk.SystemClock(),
		taskDuration:  DefaultTaskDuration,
		taskDurations: map[string]time.Duration{},
		perMinute:     DefaultPerMinuteLimit,
		costs:         map[string]int{},
	}
	for _, o := range opts {
		o(&cfg)
	}
	if len(cfg.keys) == 0 {
		cfg.keys = []string{DefaultKey}
	}
	s := &Server{
		cfg:     cfg,
		keys:    map[string]bool{},
		created: cfg.clock.Now(),
		left:    cfg.requests,
		latest:  map[taskKey]*task{},
	}
	for _, k := range cfg.keys {
		s.keys[k] = true
	}
	s.fs = fakeserver.Start(http.HandlerFunc(s.serve), fakeserver.Config{
		Credentials: []string{"Authorization"},
		Now:         s.Now,
		RenderFault: s.renderFault,
	})
	s.URL = s.fs.URL
	return s
}

// Close shuts the server down; no request keeps it waiting.
func (s *Server) Close() { s.fs.Close() }

// Client returns an *http.Client for the server.
func (s *Server) Client() *http.Client { return s.fs.Client() }

// Now returns the fake's current time, on the clock of WithClock.
func (s *Server) Now() time.Time { return s.cfg.clock.Now() }

// RequestLeft returns the account's request-unit balance.
func (s *Server) RequestLeft() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.left
}

// SetRequestLeft sets the account's request-unit balance.
func (s *Server) SetRequestLeft(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.left = max(n, 0)
}

// Requests returns every request received so far, in order of arrival, as every fake
// records them.
func (s *Server) Requests() []sdktest.Request { return s.fs.Requests() }

// Exchanges returns every request received so far, in order of arrival, with what the fake
// made of it.
func (s *Server) Exchanges() []Exchange {
	recs := s.fs.Records()
	out := make([]Exchange, len(recs))
	for i, rec := range recs {
		if r, ok := rec.Extra.(Exchange); ok {
			out[i] = r
		}
		out[i].Request = rec.Request
		out[i].Endpoint, _ = strings.CutPrefix(rec.Path, "/api/")
	}
	return out
}

// RequestCount returns how many requests with that method and path (such as
// "/api/ProductRequest", as sent) were received; an empty method or path matches any.
func (s *Server) RequestCount(method, path string) int { return s.fs.RequestCount(method, path) }

// InjectFaults makes the next matching requests fail as the faults say, before any check of
// the fake and without consuming request units (see sdktest.Fault). A fault with Status 200
// and a Code answers that business code in HTTP 200, {"Code": n, "Message": ..., "Data":
// null}, with the fake's message for the code when Message is empty; another status with a
// Code answers that envelope with that status; a status without a Code (or with one that is
// not an integer) answers a plain-text body, as a gateway does: Message, else the Code, else
// the status text.
func (s *Server) InjectFaults(faults ...sdktest.Fault) { s.fs.InjectFaults(faults...) }

// renderFault writes the answer of an injected fault.
func (s *Server) renderFault(w http.ResponseWriter, r *http.Request, f sdktest.Fault) {
	code, err := strconv.Atoi(f.Code)
	if err != nil {
		text := cmp.Or(f.Message, f.Code, http.StatusText(f.Status))
		plainReply{status: f.Status, text: text}.send(w)
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/api/")
	s.mu.Lock()
	a := answer{status: f.Status, left: s.left, lowercase: s.cfg.lowercase, gzipBody: s.cfg.gzipBody.covers(name),
		code: code, message: cmp.Or(f.Message, codeMessages[code], "Injected fault")}
	s.mu.Unlock()
	a.send(w)
}

// reply is what the pipeline sends back.
type reply interface{ send(http.ResponseWriter) }

// plainReply is an answer without an envelope.
type plainReply struct {
	status int
	text   string
	header http.Header
}

func (p plainReply) send(w http.ResponseWriter) {
	for k, v := range p.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(p.status)
	_, _ = io.WriteString(w, p.text)
}

// serve runs a request through the pipeline, attaches what it found to the request's record,
// and sends the answer outside the lock.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, sdktest.MaxBodyBytes))
	rec := Exchange{AuthScheme: schemeWord(r.Header.Get("Authorization"))}
	s.mu.Lock()
	out := s.process(r, body, &rec)
	s.mu.Unlock()
	s.fs.Attach(r, rec)
	out.send(w)
}

// process is the pipeline: routing, key, IP whitelist, per-minute limit, content type, body,
// domain, endpoint availability, balance, then the endpoint.
func (s *Server) process(r *http.Request, body []byte, c *Exchange) reply {
	name, isAPI := strings.CutPrefix(r.URL.Path, "/api/")
	ep := endpoints[strings.ToLower(name)]
	if !isAPI || strings.ContainsAny(name, "/_") || ep == nil && !closedEndpoints[strings.ToLower(name)] {
		return plainReply{status: http.StatusNotFound, text: "Not Found"}
	}
	if r.Method != http.MethodPost {
		return plainReply{status: http.StatusMethodNotAllowed, text: "Method Not Allowed", header: http.Header{"Allow": {http.MethodPost}}}
	}
	a := answer{status: http.StatusOK, left: s.left, lowercase: s.cfg.lowercase, gzipBody: s.cfg.gzipBody.covers(name)}
	now := s.Now()
	if c.Authorized = s.authorized(r.Header.Get("Authorization")); !c.Authorized {
		a.left = 0
		if s.cfg.http401 {
			a.status = http.StatusUnauthorized
		}
		return s.finish(c, a, codeNotOpen, msgBadKey)
	}
	if !s.whitelisted(r.RemoteAddr) {
		return s.finish(c, a, codeIPNotAllowed, msgIPNotAllowed)
	}
	if !s.admit(now) {
		return s.finish(c, a, codePerMinuteLimit, msgPerMinuteLimit)
	}
	if !jsonContentType(r.Header.Get("Content-Type")) {
		return s.finish(c, a, codeBadParams, "Request parameters error: Content-Type must be application/json;charset=UTF-8")
	}
	p, raw, err := parseParams(body)
	c.Params = raw
	if err != nil {
		return s.finish(c, a, codeBadParams, err.Error())
	}
	st, problem := s.domainOf(r.URL.Query(), p)
	if problem != "" {
		return s.finish(c, a, codeNotOpen, "Endpoint not open: "+problem)
	}
	c.Domain = st.code
	a.lowercase = a.lowercase || st.platform.lowercaseErrors()
	a.gzipBody = a.gzipBody || st.platform.encodesBody()
	a.gzipData = s.cfg.gzipData.covers(name)
	a.walmart = st.platform == walmart
	switch {
	case ep == nil:
		return s.finish(c, a, codeNotOpen, msgNotOpen)
	case !slices.Contains(ep.platforms, st.platform) && st.platform.hasUnsupportedCode():
		return s.finish(c, a, codeUnsupported, msgUnsupported)
	case !slices.Contains(ep.platforms, st.platform):
		return s.finish(c, a, codeNotOpen, msgNotOpen)
	}
	cost, ok := s.cfg.costs[strings.ToLower(ep.name)]
	if !ok {
		cost = 1
	}
	if s.left < cost {
		return s.finish(c, a, codeNoRequestsLeft, msgNoRequestsLeft)
	}
	s.executed++
	if s.cfg.failEvery > 0 && s.executed%s.cfg.failEvery == 0 {
		return s.finish(c, a, codeFailed, msgFailed)
	}
	res := ep.handle(s, &request{site: st, p: p, now: now})
	if res.charge {
		s.left -= cost
		a.consumed = cost
	}
	a.left, a.data = s.left, res.data
	return s.finish(c, a, res.code, res.message)
}

// finish completes an answer and what the request's record adds.
func (s *Server) finish(c *Exchange, a answer, code int, message string) answer {
	a.code, a.message = code, message
	c.Code, c.Consumed = code, a.consumed
	return a
}

// authorized checks an Authorization header: "BasicAuth", one space, an accepted key.
func (s *Server) authorized(header string) bool {
	scheme, key, ok := strings.Cut(header, " ")
	return ok && scheme == authScheme && s.keys[key]
}

// schemeWord returns the scheme word of an Authorization header: up to 20 letters before
// the first space. Anything else might be the key itself, so it gives "".
func schemeWord(header string) string {
	word, _, ok := strings.Cut(header, " ")
	if !ok || len(word) == 0 || len(word) > 20 || strings.IndexFunc(word, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z')
	}) >= 0 {
		return ""
	}
	return word
}

// whitelisted checks the caller's address against the IP whitelist, when it is on.
func (s *Server) whitelisted(remoteAddr string) bool {
	if !s.cfg.whitelistOn {
		return true
	}
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	return slices.Contains(s.cfg.whitelist, host)
}

// admit counts a call against the per-minute limit: a call at t counts until t+60s. It
// reports false, counting nothing, when the limit is reached.
func (s *Server) admit(now time.Time) bool {
	s.window = slices.DeleteFunc(s.window, func(t time.Time) bool { return !t.After(now.Add(-time.Minute)) })
	if s.cfg.perMinute > 0 && len(s.window) >= s.cfg.perMinute {
		return false
	}
	s.window = append(s.window, now)
	return true
}

// jsonContentType accepts application/json with no parameter but a UTF-8 charset.
func jsonContentType(value string) bool {
	mt, ps, err := mime.ParseMediaType(value)
	if err != nil || mt != "application/json" {
		return false
	}
	for k, v := range ps {
		if k != "charset" || !strings.EqualFold(v, "utf-8") {
			return false
		}
	}
	return true
}

// domainOf reads the site code from the query and the body; problem says what is wrong with
// them.
func (s *Server) domainOf(query url.Values, p params) (st site, problem string) {
	var code int
	var inQuery, found bool
	switch q := query["domain"]; {
	case len(q) > 1:
		return site{}, "domain is given more than once in the query"
	case len(q) == 1:
		n, err := strconv.Atoi(q[0])
		if err != nil {
			return site{}, fmt.Sprintf("domain %q in the query is not a site code", q[0])
		}
		code, inQuery, found = n, true, true
	}
	if p.has("domain") {
		var n int
		if err := json.Unmarshal(p["domain"], &n); err != nil {
			return site{}, "domain in the body is not an integer site code"
		}
		if inQuery && n != code {
			return site{}, fmt.Sprintf("domain %d in the query differs from domain %d in the body", code, n)
		}
		code, found = n, true
	}
	if !found {
		return site{}, "domain is required"
	}
	st, ok := sites[code]
	if !ok {
		return site{}, fmt.Sprintf("domain %d is not a site code of the service", code)
	}
	return st, ""
}
