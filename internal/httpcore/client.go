package httpcore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/excerpt"
	"github.com/agentapis/sdk/internal/poll"
)

// MaxResponseBytes caps a successful response body read into memory by Do; a larger body is a
// *sdk.DecodeError. Stream has no cap.
const MaxResponseBytes = 64 << 20

// maxRedirects is how many redirects a client follows when the caller's *http.Client has no
// redirect policy of its own.
const maxRedirects = 10

// Service describes one HTTP API to NewClient. A service package declares its static part
// once, as data:
//
//	var service = httpcore.Service{Name: serviceName, BaseURLEnv: EnvURL, PathPrefix: "/v1",
//		Defaults: httpcore.Defaults{RequestsPerMinute: 200}, Sentinels: sentinels, ClassifyAt: classify}
//
// and New fills the per-client fields (Credentials, Secrets, Transport, Decode) on a copy.
type Service struct {
	// Name is the service's short name, used in errors, logs and the User-Agent.
	Name string
	// BaseURLEnv names the environment variable that supplies the base URL when no
	// WithBaseURL option was given (see LoadEnv).
	BaseURLEnv string
	// PathPrefix is added after the base URL's own path, such as "/api/v1".
	PathPrefix string
	// Defaults are the service's own defaults for the shared settings, which the options
	// override.
	Defaults Defaults
	// Credentials are sent with every request that does not bring its own, until
	// SetCredentials replaces them.
	Credentials []Credential
	// Secrets are further values scrubbed from every error and log line of the client, such
	// as a credential that only some requests carry.
	Secrets []string
	// ErrorBody extracts the service's error code and message from an error body; when nil,
	// DecodeErrorBody is used.
	ErrorBody func(body []byte) (code, message string)
	// Sentinels are the service's sentinel errors and their codes: every *sdk.APIError whose
	// Code one of them has carries that sentinel in its Sentinels.
	Sentinels *Sentinels
	// ClassifyAt, when set, sees every failure answer the client built (an *sdk.APIError, or
	// an *sdk.RateLimitError for a 429) with the time it was read on the client's clock, and
	// returns the error to give the caller: the same one, with more sentinels, or one of the
	// package's own types around it.
	ClassifyAt func(err error, now time.Time) error
	// Transport, when set, wraps the transport of every attempt the client sends (inside the
	// pacing): the one place where a package adds behaviour of its own to the HTTP layer,
	// such as paying x402 challenges or reading quota headers. The caller's transport, or the
	// default one, is next.
	Transport func(next http.RoundTripper) http.RoundTripper
	// Decode reads every 2xx body, in place of encoding/json into the request's out value
	// (which may be nil). A service whose successful answers can still mean failure (an
	// envelope with ok false, a non-zero business code) returns a *Failure for them: the client
	// turns it into an *sdk.APIError inside the retry loop, and retries when the Failure says
	// the request was not acted upon. Any other error is reported as an *sdk.DecodeError.
	// Decode runs once per body.
	Decode func(body []byte, out any) error
}

// Defaults are a service's own defaults for the shared settings: a zero field of what the
// options set takes the service's value, then the SDK's. A package documents them in its
// "Configuration" section.
type Defaults struct {
	// Retry fills the zero fields of the WithRetry policy before the SDK's defaults do; a
	// StopOnLongRetryAfter true here is on whatever the option says.
	Retry sdk.RetryPolicy
	// RequestsPerMinute paces every attempt the client sends, whatever the goroutine, so that
	// no 60-second window holds more; 0 leaves the client unpaced. WithRequestsPerMinute
	// overrides it, 0 included.
	RequestsPerMinute int
	// Wait fills the zero fields of the WithWait policy, for a service with work in the
	// background; the package reads the result with Settings.Wait(service.Defaults.Wait).
	Wait sdk.WaitPolicy
}

// Failure is what a Service's Decode returns for a 2xx answer that reports a failure in its
// body. The client returns it to the caller as an *sdk.APIError carrying Code and Message.
type Failure struct {
	// Code is the service's machine-readable code, such as "501".
	Code string
	// Message is the service's text.
	Message string
	// Retry reports that the service did not act on the request (a rate limit, a busy
	// moment), so it may be sent again whatever its method.
	Retry bool
	// RetryAfter is how long to wait before that retry; 0 uses the backoff.
	RetryAfter time.Duration
}

// Error returns the code and the message.
func (f *Failure) Error() string { return "failure " + f.Code + ": " + f.Message }

// Client sends requests to one service. It is safe for concurrent use. It holds one retry
// engine, built once, and one *http.Client whose idle connections it never closes.
type Client struct {
	service  Service
	root     *url.URL
	engine   *retryablehttp.Client
	logger   *slog.Logger
	clock    sdk.Clock
	retry    sdk.RetryPolicy
	timeouts sdk.Timeouts
	backoff  poll.Schedule
	// perMinute paces the client's attempts; 0 leaves them unpaced.
	perMinute int
	// handler is the engine's response handler, built once.
	handler retryablehttp.ResponseHandlerFunc
	// uaValue and acceptJSON are header values shared by every request (net/http never
	// changes a request's header slices).
	uaValue, acceptJSON []string
	// auth is replaced whole, under mu, by every change of the credentials, so that a
	// request reads one consistent set.
	auth atomic.Pointer[authState]
	mu   sync.Mutex
}

// authState is what a Client knows of its credentials.
type authState struct {
	creds  []Credential
	values [][]string // the header value of each of creds, in the same order
	// redact knows every secret the client was ever given; credential changes add to it.
	redact redactor
	// headers lists every credential header name the client ever sent, for the redirect
	// guard.
	headers []string
}

// NewClient checks the settings and credentials and returns a client for svc, the settings
// over the service's Defaults.
func NewClient(s *Settings, svc Service) (*Client, error) {
	invalid := func(field, reason string) error {
		return &sdk.ValidationError{Service: svc.Name, Field: field, Reason: reason}
	}
	base := s.baseURL
	if base == nil {
		reason := "not set: use WithBaseURL"
		if svc.BaseURLEnv != "" {
			reason += " or the " + svc.BaseURLEnv + " environment variable"
		}
		return nil, invalid("base URL", reason)
	}
	root, err := serviceRoot(base, svc.PathPrefix)
	if err != nil {
		return nil, invalid("base URL", err.Error())
	}
	if err := validateCredentials(svc.Credentials); err != nil {
		return nil, invalid("credential", err.Error())
	}
	perMinute := svc.Defaults.RequestsPerMinute
	if s.requestsPerMinute != nil {
		perMinute = *s.requestsPerMinute
	}
	if perMinute < 0 {
		return nil, invalid("requests per minute", "must not be negative")
	}
	c := &Client{
		service:   svc,
		root:      root,
		logger:    s.logger,
		clock:     cmp.Or(s.clock, sdk.SystemClock()),
		retry:     retryDefaults(s.retry, svc.Defaults.Retry),
		timeouts:  timeoutDefaults(s.timeouts),
		perMinute: perMinute,
	}
	c.backoff = poll.Schedule{Min: c.retry.BaseDelay, Max: c.retry.MaxDelay, Jitter: 1}
	c.handler = c.handle
	c.uaValue, c.acceptJSON = []string{userAgent(s.userAgent, svc.Name)}, []string{"application/json"}
	observeSecrets(svc.Secrets...)
	c.auth.Store(&authState{redact: redactor{}.with(svc.Secrets...)})
	c.storeCredentials(svc.Credentials)
	c.engine = c.newEngine(s.httpClient)
	return c, nil
}

// SetCredentials replaces the credentials sent with every request that does not bring its
// own, such as a key bought or rotated while the client runs; requests already under way
// keep the credentials they started with. The new values are scrubbed from errors and logs
// from now on, and the old ones still are.
func (c *Client) SetCredentials(creds ...Credential) error {
	if err := validateCredentials(creds); err != nil {
		return &sdk.ValidationError{Service: c.service.Name, Field: "credential", Reason: err.Error()}
	}
	c.storeCredentials(creds)
	return nil
}

// storeCredentials makes creds the default credentials and teaches the redactor and the
// redirect guard about them.
func (c *Client) storeCredentials(creds []Credential) {
	values := credentialValues(creds)
	observeSecrets(values...)
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.auth.Load()
	next := &authState{creds: append([]Credential(nil), creds...), values: make([][]string, len(creds)),
		redact: old.redact.with(values...), headers: append([]string(nil), old.headers...)}
	for i, cr := range creds {
		next.values[i] = []string{cr.Prefix + cr.Value}
		next.headers = append(next.headers, cr.Header)
	}
	c.auth.Store(next)
}

// validMethod reports whether m is a valid HTTP method: a non-empty token.
func validMethod(m string) bool {
	return m != "" && !strings.ContainsFunc(m, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`()<>@,;:\"/[]?={}`, r)
	})
}

// validateCredentials refuses a credential without a header name, or whose value is too short
// to be a secret or breaks the SDK's one character rule (see CredentialRule).
func validateCredentials(creds []Credential) error {
	for _, cr := range creds {
		switch {
		case cr.Header == "":
			return errors.New("header name must not be empty")
		case len(cr.Value) < minSecretLen:
			return fmt.Errorf("value for %s is too short", cr.Header)
		case strings.ContainsFunc(cr.Prefix, forbiddenInHeader) || strings.ContainsFunc(cr.Value, forbiddenInCredential):
			return fmt.Errorf("value for %s %s", cr.Header, reasonForbiddenChars)
		}
	}
	return nil
}

// credentialValues lists the secret values of creds.
func credentialValues(creds []Credential) []string {
	out := make([]string, 0, len(creds))
	for _, cr := range creds {
		out = append(out, cr.Value)
	}
	return out
}

// Root returns the service root: the base URL with the service's path prefix.
func (c *Client) Root() *url.URL {
	u := *c.root
	return &u
}

// Redact scrubs every secret the client knows from s; service packages use it on any text
// they put into an error of their own.
func (c *Client) Redact(s string) string { return c.auth.Load().redact.text(s) }

// RedactResponse returns a copy of r with every secret the client knows scrubbed from its
// request id and its header's names and values, as the core scrubs an *sdk.APIError's: for a
// package's own error that keeps the answer's metadata.
func (c *Client) RedactResponse(r sdk.Response) sdk.Response {
	red := &c.auth.Load().redact
	r.RequestID = red.text(r.RequestID)
	r.Header = red.header(r.Header)
	return r
}

// Response is a successful response read in full by Do.
type Response struct {
	StatusCode int
	Header     http.Header
	// Body is the raw body, at most MaxResponseBytes.
	Body []byte
	// Attempts is how many times the request was sent.
	Attempts int
	// RequestID is the server's request identifier, when a response header carried one.
	RequestID string
	// path is the escaped path the response answered, for errors found while decoding it.
	path string
	// received is when the response was read, on the client's clock; zero for a Response a
	// package built itself.
	received time.Time
}

// Meta describes the response as the public sdk.Response every result of a service carries;
// its rate limit's reset counts from when the response was read (from now, on the wall clock,
// for a Response a package built itself).
func (r *Response) Meta() sdk.Response {
	at := r.received
	if at.IsZero() {
		at = time.Now()
	}
	return sdk.Response{StatusCode: r.StatusCode, Header: r.Header, RequestID: r.RequestID,
		RateLimit: ParseRateLimit(r.Header, at), Attempts: r.Attempts}
}

// Do sends req, retrying as the policy allows, reads the whole response and decodes a 2xx body
// into out (which may be nil) with the service's Decode, or with encoding/json. A non-2xx
// final response is an *sdk.APIError (an *sdk.RateLimitError for 429), a body that does not
// decode is an *sdk.DecodeError, a Failure of the service's Decode is an *sdk.APIError with
// the failure's code, and a request that got no answer is an *sdk.RequestError; the service's
// ClassifyAt sees every failure answer first.
func (c *Client) Do(ctx context.Context, req *Request, out any) (*Response, error) {
	rs, resp, err := c.send(ctx, req, out, false)
	if err != nil {
		return nil, observeError(err)
	}
	resp.Body.Close()
	return &rs.result, nil
}

// Stream sends req like Do but returns the live 2xx response for the caller to read and close,
// without buffering its body; Meta describes it. A non-2xx final response is an
// *sdk.APIError.
func (c *Client) Stream(ctx context.Context, req *Request) (*http.Response, error) {
	_, resp, err := c.send(ctx, req, nil, true)
	return resp, observeError(err)
}

// Meta describes a response that Stream returned, as the sdk.Response every result carries:
// its status, header, request id, rate limit and the attempts the call made.
func Meta(resp *http.Response) sdk.Response {
	r := &Response{StatusCode: resp.StatusCode, Header: resp.Header, RequestID: requestID(resp.Header), Attempts: 1}
	if resp.Request != nil {
		if rs := requestStateOf(resp.Request.Context()); rs != nil {
			r.Attempts, r.received = max(rs.attempt, 1), rs.clock.Now()
		}
	}
	return r.Meta()
}

// Decode runs parse on the body of resp, which Do returned for req, and turns its error into an
// *sdk.DecodeError for the request: service packages use it for bodies whose shape they check
// after Do. The error quotes the body only as Do would (scrubbed, and withheld for a request
// marked SensitiveBody).
func (c *Client) Decode(req *Request, resp *Response, parse func(body []byte) error) error {
	if err := parse(resp.Body); err != nil {
		return observeError(c.decodeError(req, resp, err))
	}
	return nil
}

// requestState is the state of one request across its attempts. It is the request's context
// (the caller's context with this state attached), so that the client's single retry engine
// can serve every request at once.
type requestState struct {
	context.Context
	req     Request
	out     any
	stream  bool
	clock   sdk.Clock
	creds   []Credential
	url     *url.URL
	attempt int
	began   time.Time
	// logged is the last attempt written to the log, so each is written once.
	logged int
	// result is the 2xx response read and decoded by the response handler.
	result Response
	// failure is the last Failure the service's Decode reported.
	failure *Failure
}

// requestStateKey is the context key under which a request finds its state.
type requestStateKey struct{}

// Value returns the state for requestStateKey, and otherwise what the caller's context holds.
func (rs *requestState) Value(key any) any {
	if key == (requestStateKey{}) {
		return rs
	}
	return rs.Context.Value(key)
}

// requestStateOf returns the *requestState of a request's context.
func requestStateOf(ctx context.Context) *requestState {
	rs, _ := ctx.Value(requestStateKey{}).(*requestState)
	return rs
}

// decodeFailure marks a 2xx body that did not decode, on its way through the retry engine.
type decodeFailure struct{ err error }

// Error returns the decoding failure.
func (d *decodeFailure) Error() string { return d.err.Error() }

// send performs the request with retries. It returns the request's state and the final 2xx
// response (its body already read and decoded unless stream), or an error.
func (c *Client) send(ctx context.Context, req *Request, out any, stream bool) (*requestState, *http.Response, error) {
	invalid := func(field, reason string) error {
		return &sdk.ValidationError{Service: c.service.Name, Field: field, Reason: reason}
	}
	auth := c.auth.Load()
	creds := auth.creds
	observeSecrets(req.Secrets...)
	if req.Credentials != nil {
		observeSecrets(credentialValues(req.Credentials)...)
		if err := validateCredentials(req.Credentials); err != nil {
			return nil, nil, invalid("credential", err.Error())
		}
		creds = req.Credentials
	}
	u, err := resolve(c.root, req.Path, req.Query)
	if err != nil {
		return nil, nil, invalid("path", err.Error())
	}
	raw, err := req.Body.encode()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: encoding %s %s request body: %w", c.service.Name, req.Method, u.EscapedPath(), err)
	}
	if ctx == nil {
		return nil, nil, invalid("context", "must not be nil")
	}
	if !validMethod(req.Method) {
		return nil, nil, invalid("method", "not a valid HTTP method")
	}
	rs := &requestState{Context: ctx, req: *req, out: out, stream: stream, clock: c.clock, creds: creds, url: u}
	h := make(http.Header, len(req.Header)+len(creds)+3)
	for k, vs := range req.Header {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	h["User-Agent"] = c.uaValue
	if h.Get("Accept") == "" {
		h["Accept"] = c.acceptJSON
	}
	if raw != nil && h.Get("Content-Type") == "" && req.Body.contentType != "" {
		h.Set("Content-Type", req.Body.contentType)
	}
	if req.Credentials == nil {
		for i, cr := range creds {
			h[http.CanonicalHeaderKey(cr.Header)] = auth.values[i]
		}
	} else {
		for _, cr := range creds {
			h.Set(cr.Header, cr.Prefix+cr.Value)
		}
	}
	hreq := (&http.Request{Method: req.Method, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Host: u.Host}).WithContext(rs)
	rreq, err := retryablehttp.FromRequest(hreq)
	if err != nil {
		return nil, nil, c.requestError(req, 0, err)
	}
	if raw != nil {
		if err := rreq.SetBody(raw); err != nil {
			return nil, nil, c.requestError(req, 0, err)
		}
	}
	if !stream {
		rreq.SetResponseHandler(c.handler)
	}

	resp, err := c.engine.Do(rreq)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		switch e := err.(type) {
		case *Failure:
			return nil, nil, c.classify(c.failureError(rs, e))
		case *decodeFailure:
			return nil, nil, c.decodeError(req, &rs.result, e.err)
		}
		return nil, nil, c.requestError(req, rs.attempt, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, nil, c.classify(c.apiError(req, resp, rs.attempt))
	}
	return rs, resp, nil
}

// classify gives a failure answer its sentinels, then hands it to the service's ClassifyAt
// with the time on the client's clock.
func (c *Client) classify(err error) error {
	var ae *sdk.APIError
	if errors.As(err, &ae) {
		if s := c.service.Sentinels.Match(ae.Code); s != nil {
			ae.Sentinels = append(ae.Sentinels, s)
		}
	}
	if c.service.ClassifyAt != nil {
		return c.service.ClassifyAt(err, c.clock.Now())
	}
	return err
}

// handle is the engine's response handler: it reads and decodes a 2xx answer inside the
// retry engine, so that a Failure in its body can be retried like an error status. Other
// statuses are left to send.
func (c *Client) handle(resp *http.Response) error {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil
	}
	rs := requestStateOf(resp.Request.Context())
	body, err := readBody(resp.Body, resp.ContentLength, MaxResponseBytes+1)
	resp.Body.Close()
	resp.Body = http.NoBody
	if err != nil {
		return err // the connection failed during the body: a network error
	}
	rs.result = Response{StatusCode: resp.StatusCode, Header: resp.Header, Body: body, Attempts: rs.attempt,
		RequestID: requestID(resp.Header), path: responsePath(&rs.req, resp), received: c.clock.Now()}
	if len(body) > MaxResponseBytes {
		rs.result.Body = body[:excerpt.MaxBytes]
		return &decodeFailure{fmt.Errorf("body exceeds %d bytes", MaxResponseBytes)}
	}
	switch {
	case c.service.Decode != nil:
		err = c.service.Decode(body, rs.out)
	case rs.out != nil:
		err = json.Unmarshal(body, rs.out)
	}
	switch e := err.(type) {
	case nil:
		return nil
	case *Failure:
		rs.failure = e
		return e
	}
	return &decodeFailure{err}
}

// readBody reads at most limit bytes of r, in one allocation when the length is announced.
func readBody(r io.Reader, length, limit int64) ([]byte, error) {
	if length < 0 || length >= limit {
		return readChunks(r, limit)
	}
	buf := make([]byte, length, length+1)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, err
	}
	// Read past the announced end, so that a longer body is noticed and the connection is
	// released for reuse.
	n, err := r.Read(buf[length : length+1])
	if n > 0 {
		rest, err := readChunks(r, limit-length-1)
		return append(buf[:length+1], rest...), err
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	return buf, nil
}

// Sizes of the chunks readChunks reads into: the first is small, for the usual small body,
// and each next one is twice as large up to the largest.
const (
	firstChunk = 16 << 10
	lastChunk  = 1 << 20
)

// readChunks reads at most limit bytes of a body of unknown length into chunks that never
// move, then joins them: at most the body twice in memory at the end, where growing one
// slice would hold it about three times over while copying.
func readChunks(r io.Reader, limit int64) ([]byte, error) {
	var chunks [][]byte
	var total int64
	size := int64(firstChunk)
	for total < limit {
		chunk := make([]byte, min(size, limit-total))
		n, err := io.ReadFull(r, chunk)
		chunks = append(chunks, chunk[:n])
		total += int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(2*size, lastChunk)
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	out := make([]byte, 0, total)
	for i, c := range chunks {
		out = append(out, c...)
		chunks[i] = nil
	}
	return out, nil
}

// failureError builds the *sdk.APIError for a Failure in a 2xx body.
func (c *Client) failureError(rs *requestState, f *Failure) *sdk.APIError {
	red := c.redactorFor(&rs.req)
	r := &rs.result
	return &sdk.APIError{
		Service:    c.service.Name,
		Method:     rs.req.Method,
		Path:       red.text(r.path),
		StatusCode: r.StatusCode,
		Code:       red.text(f.Code),
		Message:    red.text(f.Message),
		RequestID:  red.text(r.RequestID),
		RetryAfter: f.RetryAfter,
		Header:     red.header(r.Header),
		Body:       red.bytes(r.Body[:min(len(r.Body), sdk.MaxErrorBodyBytes)]),
		Attempts:   rs.attempt,
	}
}

// redactorFor returns the client's redactor, also scrubbing the request's own credentials and
// secrets.
func (c *Client) redactorFor(req *Request) redactor {
	red := c.auth.Load().redact
	if len(req.Credentials) > 0 {
		red = red.with(credentialValues(req.Credentials)...)
	}
	if len(req.Secrets) > 0 {
		red = red.with(req.Secrets...)
	}
	return red
}

// apiError reads at most sdk.MaxErrorBodyBytes of a failed response and builds the
// *sdk.APIError, or the *sdk.RateLimitError of a 429.
func (c *Client) apiError(req *Request, resp *http.Response, attempts int) error {
	red := c.redactorFor(req)
	body, _ := io.ReadAll(io.LimitReader(resp.Body, sdk.MaxErrorBodyBytes+1))
	truncated := len(body) > sdk.MaxErrorBodyBytes
	if truncated {
		body = body[:sdk.MaxErrorBodyBytes]
	}
	decode := c.service.ErrorBody
	if decode == nil {
		decode = DecodeErrorBody
	}
	code, msg := decode(body)
	now := c.clock.Now()
	ra, _ := parseRetryAfter(resp.Header.Get("Retry-After"), now)
	e := &sdk.APIError{
		Service:       c.service.Name,
		Method:        req.Method,
		Path:          red.text(responsePath(req, resp)),
		StatusCode:    resp.StatusCode,
		Code:          red.text(code),
		Message:       red.text(msg),
		RequestID:     red.text(requestID(resp.Header)),
		RetryAfter:    ra,
		Header:        red.header(resp.Header),
		Body:          red.bytes(body),
		BodyTruncated: truncated,
		Attempts:      attempts,
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return &sdk.RateLimitError{APIError: e, RateLimit: ParseRateLimit(resp.Header, now)}
	}
	return e
}

// responsePath returns the escaped path the response answered, without its query; without a
// response it is the request's endpoint path.
func responsePath(req *Request, resp *http.Response) string {
	if resp != nil && resp.Request != nil && resp.Request.URL != nil {
		return resp.Request.URL.EscapedPath()
	}
	path, _, _ := strings.Cut(req.Path, "?")
	return path
}

// requestID returns the server's request identifier from the usual headers.
func requestID(h http.Header) string {
	for _, k := range []string{"X-Request-Id", "Request-Id", "X-Amzn-Requestid", "Cf-Ray"} {
		if v := h.Get(k); v != "" {
			return v
		}
	}
	return ""
}

// decodeError builds the *sdk.DecodeError for a 2xx body that did not decode.
func (c *Client) decodeError(req *Request, resp *Response, err error) *sdk.DecodeError {
	red := c.redactorFor(req)
	ct := resp.Header.Get("Content-Type")
	if mt, _, perr := mime.ParseMediaType(ct); perr == nil {
		ct = mt
	}
	quote := red.text(excerpt.Of(resp.Body))
	if req.SensitiveBody {
		quote = fmt.Sprintf("(withheld: %d bytes that may hold a secret)", len(resp.Body))
	}
	path := cmp.Or(resp.path, responsePath(req, nil))
	if msg := red.text(err.Error()); msg != err.Error() {
		err = errors.New(msg) // the cause quoted a secret: keep only the scrubbed text
	}
	return &sdk.DecodeError{
		Service:     c.service.Name,
		Method:      req.Method,
		Path:        red.text(path),
		StatusCode:  resp.StatusCode,
		ContentType: ct,
		Excerpt:     quote,
		Err:         err,
	}
}

// requestError wraps a transport or context failure, scrubbed: the *url.Error net/http
// returns names a URL, which a redirect may have filled with a credential.
func (c *Client) requestError(req *Request, attempts int, err error) *sdk.RequestError {
	red := c.redactorFor(req)
	if ue, ok := err.(*url.Error); ok {
		u := ue.URL
		if i := strings.IndexAny(u, "?#"); i >= 0 {
			u = u[:i]
		}
		err = &url.Error{Op: ue.Op, URL: red.text(u), Err: ue.Err}
	}
	return &sdk.RequestError{
		Service:  c.service.Name,
		Method:   req.Method,
		Path:     red.text(responsePath(req, nil)),
		Attempts: attempts,
		Err:      err,
		Detail:   errorText(err, red),
	}
}

// errorText renders a transport or context failure without the URL that net/http puts in its
// errors (it may carry a query), and with known secrets scrubbed.
func errorText(err error, red redactor) string {
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		msg = ue.Op + ": " + ue.Err.Error()
		if errors.Is(ue.Err, context.Canceled) || errors.Is(ue.Err, context.DeadlineExceeded) {
			msg = ue.Err.Error()
		}
	}
	return red.text(msg)
}
