package httpcore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// MaxResponseBytes caps a successful response body read into memory by Do; a larger body is a
// *DecodeError. Stream has no cap.
const MaxResponseBytes = 64 << 20

// maxRedirects is how many redirects a client follows when the caller's *http.Client has no
// redirect policy of its own.
const maxRedirects = 10

// Service describes one HTTP API to NewClient.
type Service struct {
	// Name is the service's short name, used in errors, logs and the User-Agent.
	Name string
	// BaseURLEnv names the environment variable that supplies the base URL when no
	// WithBaseURL option was given.
	BaseURLEnv string
	// PathPrefix is added after the base URL's own path, such as "/api/v1".
	PathPrefix string
	// Credentials are sent with every request that does not bring its own.
	Credentials []Credential
	// Secrets are further values scrubbed from every error and log line of the client, such
	// as a credential that only some requests carry.
	Secrets []string
	// DecodeError extracts the service's error code and message from an error body; when nil,
	// DecodeErrorBody is used.
	DecodeError func(body []byte) (code, message string)
}

// Client sends requests to one service. It is safe for concurrent use.
type Client struct {
	service    Service
	root       *url.URL
	httpClient *http.Client
	logger     *slog.Logger
	retry      RetryPolicy
	userAgent  string
	redact     redactor
}

// NewClient checks the settings and credentials and returns a client for svc.
func NewClient(s *Settings, svc Service) (*Client, error) {
	invalid := func(field, reason string) error {
		return &ValidationError{Service: svc.Name, Field: field, Reason: reason}
	}
	base := s.baseURL
	if base == nil && svc.BaseURLEnv != "" {
		if raw := os.Getenv(svc.BaseURLEnv); raw != "" {
			u, err := parseBaseURL(raw)
			if err != nil {
				return nil, invalid(svc.BaseURLEnv, err.Error())
			}
			base = u
		}
	}
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
	hc := s.httpClient
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	c := &Client{
		service:    svc,
		root:       root,
		httpClient: hc,
		logger:     s.logger,
		retry:      s.retry.withDefaults(),
		userAgent:  userAgent(s.userAgent, svc.Name),
	}
	for _, cr := range svc.Credentials {
		c.redact = c.redact.with(cr.Value)
	}
	c.redact = c.redact.with(svc.Secrets...)
	return c, nil
}

// validateCredentials refuses a credential without a header name, or whose value is too short
// to be a secret or would break the header.
func validateCredentials(creds []Credential) error {
	for _, cr := range creds {
		switch {
		case cr.Header == "":
			return errors.New("header name must not be empty")
		case len(cr.Value) < minSecretLen:
			return fmt.Errorf("value for %s is too short", cr.Header)
		case strings.ContainsAny(cr.Prefix+cr.Value, "\r\n\x00"):
			return fmt.Errorf("value for %s contains a line break or NUL", cr.Header)
		}
	}
	return nil
}

// Root returns the service root: the base URL with the service's path prefix.
func (c *Client) Root() *url.URL {
	u := *c.root
	return &u
}

// Redact scrubs every credential the client knows from s; service packages use it on any text
// they put into an error.
func (c *Client) Redact(s string) string { return c.redact.text(s) }

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
}

// Do sends req, retrying as the policy allows, and reads the whole response. A non-2xx final
// response is an *APIError; a 2xx body is decoded as JSON into out when out is not nil, and a
// body that does not decode is a *DecodeError.
func (c *Client) Do(ctx context.Context, req *Request, out any) (*Response, error) {
	resp, attempts, red, err := c.send(ctx, req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if readErr != nil {
		return nil, c.requestError(req, attempts, red, readErr)
	}
	r := &Response{StatusCode: resp.StatusCode, Header: resp.Header, Body: body, Attempts: attempts,
		RequestID: requestID(resp.Header), path: responsePath(req, resp)}
	if len(body) > MaxResponseBytes {
		r.Body = body[:maxExcerptBytes]
		return nil, c.decodeError(req, r, red, fmt.Errorf("body exceeds %d bytes", MaxResponseBytes))
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			return nil, c.decodeError(req, r, red, err)
		}
	}
	return r, nil
}

// Stream sends req like Do but returns the live 2xx response for the caller to read and close,
// without buffering its body. A non-2xx final response is an *APIError.
func (c *Client) Stream(ctx context.Context, req *Request) (*http.Response, error) {
	resp, _, _, err := c.send(ctx, req)
	return resp, err
}

// DecodeJSON decodes the body of resp into out like Do does, turning a failure into a
// *DecodeError for the request.
func (c *Client) DecodeJSON(req *Request, resp *Response, out any) error {
	return c.Decode(req, resp, func(body []byte) error { return json.Unmarshal(body, out) })
}

// Decode runs parse on the body of resp, which Do returned for req, and turns its error into a
// *DecodeError for the request: service packages use it for bodies whose shape they check
// themselves. The error quotes the body only as Do would (scrubbed, and withheld for a
// request marked SensitiveBody).
func (c *Client) Decode(req *Request, resp *Response, parse func(body []byte) error) error {
	if err := parse(resp.Body); err != nil {
		return c.decodeError(req, resp, c.redact.with(requestSecrets(req)...), err)
	}
	return nil
}

// send performs the request with retries and returns the final 2xx response unread, or an
// error. The redactor it returns knows the request's own credentials too.
func (c *Client) send(ctx context.Context, req *Request) (*http.Response, int, redactor, error) {
	red := c.redact.with(requestSecrets(req)...)
	creds := c.service.Credentials
	if req.Credentials != nil {
		if err := validateCredentials(req.Credentials); err != nil {
			return nil, 0, red, &ValidationError{Service: c.service.Name, Field: "credential", Reason: err.Error()}
		}
		creds = req.Credentials
	}
	u, err := resolve(c.root, req.Path, req.Query)
	if err != nil {
		return nil, 0, red, &ValidationError{Service: c.service.Name, Field: "path", Reason: err.Error()}
	}
	var body []byte
	if req.Body != nil {
		if body, err = json.Marshal(req.Body); err != nil {
			return nil, 0, red, fmt.Errorf("%s: encoding %s %s request body: %w", c.service.Name, req.Method, u.EscapedPath(), err)
		}
	}
	var rawBody any
	if body != nil {
		rawBody = body
	}
	rreq, err := retryablehttp.NewRequestWithContext(ctx, req.Method, u.String(), rawBody)
	if err != nil {
		return nil, 0, red, &ValidationError{Service: c.service.Name, Field: "method", Reason: "not a valid HTTP method"}
	}
	for k, vs := range req.Header {
		for _, v := range vs {
			rreq.Header.Add(k, v)
		}
	}
	rreq.Header.Set("User-Agent", c.userAgent)
	if rreq.Header.Get("Accept") == "" {
		rreq.Header.Set("Accept", "application/json")
	}
	if body != nil && rreq.Header.Get("Content-Type") == "" {
		rreq.Header.Set("Content-Type", "application/json")
	}
	for _, cr := range creds {
		rreq.Header.Set(cr.Header, cr.Prefix+cr.Value)
	}

	a := &attemptLog{client: c, req: rreq.Request, redact: red}
	repeatable := (idempotentMethods[req.Method] || req.SafeToRetry) && !req.NoRetry
	rc := &retryablehttp.Client{
		HTTPClient:   c.guardedHTTPClient(creds),
		RetryWaitMin: c.retry.BaseDelay,
		RetryWaitMax: c.retry.MaxDelay,
		RetryMax:     c.retry.MaxAttempts - 1,
		RequestLogHook: func(_ retryablehttp.Logger, _ *http.Request, i int) {
			a.start(i + 1)
		},
		CheckRetry: func(ctx context.Context, resp *http.Response, err error) (bool, error) {
			a.finish(ctx, resp, err)
			retry, err := shouldRetry(ctx, repeatable, resp, err)
			return retry && !retryAfterTooLong(c.retry, resp), err
		},
		Backoff: func(_, _ time.Duration, retry int, resp *http.Response) time.Duration {
			return retryWait(c.retry, retry, resp)
		},
		ErrorHandler: func(resp *http.Response, err error, _ int) (*http.Response, error) {
			return resp, err
		},
	}
	resp, err := rc.Do(rreq)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return nil, a.attempt, red, c.requestError(req, a.attempt, red, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, a.attempt, red, c.apiError(req, resp, a.attempt, red)
	}
	return resp, a.attempt, red, nil
}

// requestSecrets lists the credential values a request brings of its own.
func requestSecrets(req *Request) []string {
	out := make([]string, 0, len(req.Credentials))
	for _, cr := range req.Credentials {
		out = append(out, cr.Value)
	}
	return out
}

// guardedHTTPClient returns a copy of the client's *http.Client whose redirect policy drops the
// credential headers when a redirect leaves the original host or downgrades from https. Go
// itself only drops Authorization and Cookie, not the custom headers these services use.
func (c *Client) guardedHTTPClient(creds []Credential) *http.Client {
	hc := *c.httpClient
	next := c.httpClient.CheckRedirect
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		first := via[0].URL
		if req.URL.Host != first.Host || (first.Scheme == "https" && req.URL.Scheme != "https") {
			for _, cr := range creds {
				req.Header.Del(cr.Header)
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		return nil
	}
	return &hc
}

// apiError reads at most MaxErrorBodyBytes of a failed response and builds the *APIError.
func (c *Client) apiError(req *Request, resp *http.Response, attempts int, red redactor) *APIError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBodyBytes+1))
	truncated := len(body) > MaxErrorBodyBytes
	if truncated {
		body = body[:MaxErrorBodyBytes]
	}
	decode := c.service.DecodeError
	if decode == nil {
		decode = DecodeErrorBody
	}
	code, msg := decode(body)
	ra, _ := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	return &APIError{
		Service:       c.service.Name,
		Method:        req.Method,
		Path:          responsePath(req, resp),
		StatusCode:    resp.StatusCode,
		Code:          red.text(code),
		Message:       red.text(msg),
		RequestID:     requestID(resp.Header),
		RetryAfter:    ra,
		Header:        red.header(resp.Header),
		Body:          red.bytes(body),
		BodyTruncated: truncated,
		Attempts:      attempts,
	}
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

// decodeError builds the *DecodeError for a 2xx body that did not decode.
func (c *Client) decodeError(req *Request, resp *Response, red redactor, err error) *DecodeError {
	ct := resp.Header.Get("Content-Type")
	if mt, _, perr := mime.ParseMediaType(ct); perr == nil {
		ct = mt
	}
	excerpt := red.text(Excerpt(resp.Body))
	if req.SensitiveBody {
		excerpt = fmt.Sprintf("(withheld: %d bytes that may hold a secret)", len(resp.Body))
	}
	path := resp.path
	if path == "" {
		path = responsePath(req, nil)
	}
	if msg := red.text(err.Error()); msg != err.Error() {
		err = errors.New(msg) // the cause quoted a secret: keep only the scrubbed text
	}
	return &DecodeError{
		Service:     c.service.Name,
		Method:      req.Method,
		Path:        path,
		StatusCode:  resp.StatusCode,
		ContentType: ct,
		Excerpt:     excerpt,
		Err:         err,
	}
}

// requestError wraps a transport or context failure.
func (c *Client) requestError(req *Request, attempts int, red redactor, err error) *RequestError {
	return &RequestError{
		Service:  c.service.Name,
		Method:   req.Method,
		Path:     responsePath(req, nil),
		Attempts: attempts,
		Err:      err,
		msg:      errorText(err, red),
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

// DecodeErrorBody extracts an error code and message from the common JSON error shapes:
// {"error":{"code","message"}}, {"code","message"}, {"error":"<code>","message"} and
// {"error":"<message>"}. A body that matches none gives empty strings.
func DecodeErrorBody(body []byte) (code, message string) {
	var env struct {
		Error   json.RawMessage `json:"error"`
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(body), &env); err != nil {
		return "", ""
	}
	message = env.Message
	if message == "" {
		message = env.Detail
	}
	code = scalarString(env.Code)
	if len(env.Error) > 0 {
		var nested struct {
			Code    json.RawMessage `json:"code"`
			Message string          `json:"message"`
		}
		if s := scalarString(env.Error); s != "" {
			if code == "" && isCodeLike(s) {
				code = s
			} else if message == "" {
				message = s
			}
		} else if json.Unmarshal(env.Error, &nested) == nil {
			if c := scalarString(nested.Code); c != "" {
				code = c
			}
			if nested.Message != "" {
				message = nested.Message
			}
		}
	}
	return code, message
}

// isCodeLike reports whether s looks like a machine-readable code such as "invalid_api_key"
// rather than a sentence.
func isCodeLike(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' || r == ':')
	})
}

// scalarString returns a JSON string's value or a JSON number's text, and "" for anything else.
func scalarString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}
