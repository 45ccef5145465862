// Package fakeserver is what the SDK's fake servers share underneath their service logic: an
// httptest server that records every request (the sdktest.Request every fake's Requests
// returns), answers injected faults (sdktest.Fault), and whose Close never waits on a handler:
// every request's context ends when Close begins, so a handler that waits on it, or on Wait,
// returns at once.
package fakeserver

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/sdktest"
)

// Config describes what a fake adds to the shared server.
type Config struct {
	// Credentials names the request headers whose values are redacted in records (any
	// letter case), such as "Authorization" and "X-API-Key".
	Credentials []string
	// Now is the fake's clock, for Request.Time; nil means time.Now.
	Now func() time.Time
	// RenderFault writes the answer of a fault that is not a drop, in the service's error
	// shape, after the fault's headers and Retry-After were set. Nil writes
	// {"error":{"code":..., "message":...}} with the fault's status.
	RenderFault func(w http.ResponseWriter, r *http.Request, f sdktest.Fault)
	// Secrets, when set, returns the values the fake knows to be credentials (the tokens it
	// issued). Requests and Records replace each, as sent or path- or query-escaped, by
	// sdktest.Redacted in a record's path, query, header values and body, so that a
	// credential a client put in the wrong place can be found without being printed.
	Secrets func() []string
	// SecretQuery, when set, reports the query parameters whose values are credentials (such
	// as api_key); Requests and Records replace their values by sdktest.Redacted.
	SecretQuery func(name string) bool
}

// Server is a started fake. It is safe for concurrent use.
type Server struct {
	// URL is the server's base URL.
	URL string

	ts     *httptest.Server
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	records  []*record
	faults   []*pendingFault
	redacted map[string]bool
}

// record is one request as recorded, with what the fake's own logic added to it.
type record struct {
	sdktest.Request
	extra any
}

// pendingFault is an injected fault and how many more requests it applies to.
type pendingFault struct {
	sdktest.Fault
	left int
}

// Start starts a fake serving h.
func Start(h http.Handler, cfg Config) *Server {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{cfg: cfg, redacted: map[string]bool{}}
	for _, name := range cfg.Credentials {
		s.redacted[http.CanonicalHeaderKey(name)] = true
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.ts = httptest.NewUnstartedServer(s.wrap(h))
	s.ts.Config.BaseContext = func(net.Listener) context.Context { return s.ctx }
	s.ts.Start()
	s.URL = s.ts.URL
	return s
}

// Close ends every request's context, so that no handler keeps it waiting, then shuts the
// server down.
func (s *Server) Close() {
	s.cancel()
	s.ts.Close()
}

// Client returns an *http.Client for the server.
func (s *Server) Client() *http.Client { return s.ts.Client() }

// Wait waits d, and reports false when ctx (a request's context, which Close ends) ended
// first.
func Wait(ctx context.Context, d time.Duration) bool { return sdk.SystemClock().Sleep(ctx, d) == nil }

// InjectFaults queues faults; each request takes the first queued fault that matches it.
func (s *Server) InjectFaults(faults ...sdktest.Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range faults {
		f.Header = f.Header.Clone()
		s.faults = append(s.faults, &pendingFault{Fault: f, left: max(f.Times, 1)})
	}
}

// Requests returns the requests received so far, in order of arrival, with the secrets of
// Config scrubbed.
func (s *Server) Requests() []sdktest.Request {
	recs := s.Records()
	out := make([]sdktest.Request, len(recs))
	for i, r := range recs {
		out[i] = r.Request
	}
	return out
}

// Records returns the requests received so far with what the fake's logic attached to each
// (see Attach), for a fake whose own record type adds to sdktest.Request; the secrets of
// Config are scrubbed.
func (s *Server) Records() []Record {
	var secrets []string
	if s.cfg.Secrets != nil {
		secrets = s.cfg.Secrets() // before s.mu: the fake's function may take its own lock
	}
	s.mu.Lock()
	out := make([]Record, len(s.records))
	for i, r := range s.records {
		out[i] = Record{Request: copyRequest(r.Request), Extra: r.extra}
	}
	s.mu.Unlock()
	if len(secrets) > 0 || s.cfg.SecretQuery != nil {
		scrub := newScrubber(secrets)
		for i := range out {
			s.scrub(&out[i].Request, scrub)
		}
	}
	return out
}

// scrub replaces in r, a copy, the values of secret query parameters and every secret
// scrub knows.
func (s *Server) scrub(r *sdktest.Request, scrub *strings.Replacer) {
	r.Path = scrub.Replace(r.Path)
	query := make(map[string][]string, len(r.Query))
	for k, vs := range r.Query {
		secret := s.cfg.SecretQuery != nil && s.cfg.SecretQuery(k)
		k = scrub.Replace(k)
		for _, v := range vs {
			if secret {
				v = sdktest.Redacted
			}
			query[k] = append(query[k], scrub.Replace(v))
		}
	}
	r.Query = query
	for _, vs := range r.Header {
		for i := range vs {
			vs[i] = scrub.Replace(vs[i])
		}
	}
	r.Body = []byte(scrub.Replace(string(r.Body)))
}

// newScrubber returns a replacer of each secret, as sent and path- or query-escaped, by
// sdktest.Redacted; empty secrets are skipped.
func newScrubber(secrets []string) *strings.Replacer {
	var pairs []string
	for _, v := range secrets {
		if v == "" {
			continue
		}
		for _, form := range []string{v, url.PathEscape(v), url.QueryEscape(v)} {
			pairs = append(pairs, form, sdktest.Redacted)
		}
	}
	return strings.NewReplacer(pairs...)
}

// Record is a request with what the fake's logic attached to it.
type Record struct {
	sdktest.Request
	// Extra is the value given to Attach, or nil.
	Extra any
}

// RequestCount returns how many requests with that method and path (escaped, without the
// query) were received; an empty method or path matches any.
func (s *Server) RequestCount(method, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.records {
		if (method == "" || r.Method == method) && (path == "" || r.Path == path) {
			n++
		}
	}
	return n
}

// recordKey is the context key under which a request finds its record.
type recordKey struct{}

// Attach sets what the fake's logic adds to the record of request r (such as the credential
// it accepted, or the business code it answered).
func (s *Server) Attach(r *http.Request, extra any) {
	if rec, ok := r.Context().Value(recordKey{}).(*record); ok {
		s.mu.Lock()
		rec.extra = extra
		s.mu.Unlock()
	}
}

// wrap returns h behind the recording and the faults.
func (s *Server) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &record{Request: sdktest.Request{
			Time:   s.cfg.Now(),
			Method: r.Method,
			Path:   r.URL.EscapedPath(),
			Query:  r.URL.Query(),
			Header: s.redact(r.Header),
		}}
		body := &cappedBuffer{limit: sdktest.MaxBodyBytes}
		if r.Body != nil {
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.TeeReader(r.Body, body), r.Body}
		}
		s.mu.Lock()
		s.records = append(s.records, rec)
		fault := s.takeFault(r)
		s.mu.Unlock()

		sw := &statusWriter{ResponseWriter: w, answered: func(status int) {
			// The status is recorded as the answer starts, so that a client that has read the
			// whole answer finds it in Requests even before the handler returns.
			s.mu.Lock()
			rec.Body, rec.Status = bytes.Clone(body.Bytes()), status
			s.mu.Unlock()
		}}
		finish := func(answered bool) {
			s.mu.Lock()
			rec.Body = body.Bytes()
			rec.Status = sw.status
			if rec.Status == 0 && answered && !sw.hijacked {
				rec.Status = http.StatusOK // net/http answers 200 for a handler that wrote nothing
			}
			s.mu.Unlock()
		}
		if fault == nil {
			defer func() {
				p := recover()
				finish(p == nil)
				if p != nil {
					panic(p)
				}
			}()
			h.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), recordKey{}, rec)))
			return
		}
		defer finish(false)
		_, _ = io.Copy(io.Discard, r.Body) // the fault's request is read whole, as a server would
		if !Wait(r.Context(), fault.Delay) {
			return
		}
		if fault.Drop {
			HangUp(w)
			return
		}
		for k, vs := range fault.Header {
			sw.Header()[k] = append([]string(nil), vs...)
		}
		if fault.RetryAfter > 0 {
			sw.Header().Set("Retry-After", strconv.Itoa(int((fault.RetryAfter+time.Second-1)/time.Second)))
		}
		fault.Status = cmp.Or(fault.Status, http.StatusInternalServerError)
		if s.cfg.RenderFault != nil {
			s.cfg.RenderFault(sw, r, *fault)
			return
		}
		WriteJSONError(sw, fault.Status, fault.Code, fault.Message)
	})
}

// takeFault returns the fault for r and uses it up, or nil; s.mu must be held.
func (s *Server) takeFault(r *http.Request) *sdktest.Fault {
	for i, f := range s.faults {
		if (f.Method != "" && f.Method != r.Method) || (f.Path != "" && f.Path != r.URL.EscapedPath() && f.Path != r.URL.Path) {
			continue
		}
		f.left--
		if f.left == 0 {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
		}
		out := f.Fault
		return &out
	}
	return nil
}

// redact returns a copy of h with the values of credential headers replaced.
func (s *Server) redact(h http.Header) http.Header {
	out := h.Clone()
	for k, vs := range out {
		if s.redacted[k] {
			for i := range vs {
				vs[i] = sdktest.Redacted
			}
		}
	}
	return out
}

// WriteJSON writes v as a JSON body with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// WriteJSONError writes {"error":{"code":code,"message":message}} with status.
func WriteJSONError(w http.ResponseWriter, status int, code, message string) {
	WriteJSON(w, status, map[string]any{"error": map[string]string{"code": code, "message": message}})
}

// PeerHost returns the host of the request's remote address, without its port: who is
// calling, for a fake that keeps quotas or keys per caller.
func PeerHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// HangUp closes the client's connection without an answer, as a network failure or a crashed
// server would.
func HangUp(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // HTTP/2 or a recorder: abort the stream instead
	}
	_ = conn.Close()
}

// copyRequest returns a copy of r that shares nothing with it.
func copyRequest(r sdktest.Request) sdktest.Request {
	r.Header = r.Header.Clone()
	r.Body = bytes.Clone(r.Body)
	q := make(map[string][]string, len(r.Query))
	for k, vs := range r.Query {
		q[k] = append([]string(nil), vs...)
	}
	r.Query = q
	return r
}

// statusWriter remembers the status of the answer, and whether the handler took the
// connection over; answered sees the status as the answer starts.
type statusWriter struct {
	http.ResponseWriter
	status   int
	hijacked bool
	answered func(status int)
}

// Hijack hands the connection to the handler (HangUp uses it).
func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.hijacked = true
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// WriteHeader records the status.
func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		w.answered(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write records an implicit 200.
func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the underlying writer (Flush, Hijack).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush flushes the underlying writer when it can.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// cappedBuffer keeps at most limit bytes of what is written to it and accepts the rest.
type cappedBuffer struct {
	bytes.Buffer
	limit int
}

// Write keeps what fits under the limit.
func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
