package httpcore

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// Credential is one authentication header of a service, such as
// {Header: "Authorization", Prefix: "Bearer ", Value: token} or {Header: "x-phm-key", Value: key}.
// Credentials travel only in headers; their values are scrubbed from every error and log line,
// and they are dropped when a redirect leaves the service's host.
type Credential struct {
	Header string
	Prefix string
	Value  string
}

// Request describes one call to a service endpoint.
type Request struct {
	// Method is the HTTP method.
	Method string
	// Path is the endpoint below the service root, already escaped; build it with [Path].
	// An absolute URL is refused.
	Path string
	// Query holds the query parameters; never put a secret here.
	Query url.Values
	// Header holds extra request headers.
	Header http.Header
	// Body is the request body: JSON, bytes or a replayable reader (see [JSON], [Bytes] and
	// [Reader]); the zero Body sends none.
	Body Body
	// Retry says whether the request may be sent again after a failure; the zero value
	// follows its method.
	Retry RetryMode
	// SensitiveBody marks a response body that holds a secret (such as a newly created key): a
	// body that does not decode is then reported without an excerpt.
	SensitiveBody bool
	// Credentials, when not nil, replace the client's credentials for this request; an empty
	// non-nil slice sends the request anonymously.
	Credentials []Credential
	// Secrets are further values scrubbed from every error and log line of this request, in
	// every form the client scrubs its credentials: a secret the request carries in its body
	// (a transaction signature being redeemed) that a server may echo.
	Secrets []string
}

// RetryMode says whether a request may be sent again after a network failure or a retryable
// status, within the client's RetryPolicy.
type RetryMode int

// The retry modes of a Request.
const (
	// RetryByMethod retries GET, HEAD, PUT and DELETE, and sends any other method once.
	RetryByMethod RetryMode = iota
	// RetrySafe retries the request whatever its method: a POST or PATCH the service package
	// knows to be safe to repeat.
	RetrySafe
	// RetryNever sends the request once whatever its method, for a request whose repetition
	// the caller handles itself (a paid request, a polling loop, a key creation).
	RetryNever
)

// Body is a request body and its content type. Every kind can be sent again for a retry.
type Body struct {
	contentType string
	value       any    // encoded as JSON when send reaches it
	data        []byte // raw bytes
}

// JSON returns a body holding v encoded as JSON, sent as application/json.
func JSON(v any) Body { return Body{contentType: "application/json", value: v} }

// Bytes returns a body holding b as it is, sent with the given content type.
func Bytes(b []byte, contentType string) Body { return Body{contentType: contentType, data: b} }

// encode returns the bytes of b, encoding JSON; nil for no body.
func (b Body) encode() ([]byte, error) {
	if b.value != nil {
		return json.Marshal(b.value)
	}
	return b.data, nil
}

// Path joins segments into an escaped endpoint path, escaping each segment on its own so that
// a "/", "?" or "#" inside one cannot change the endpoint: Path("repos", "a b", "files") is
// "/repos/a%20b/files".
func Path(segments ...string) string {
	n := 0
	for _, seg := range segments {
		n += 1 + len(seg)
	}
	var b strings.Builder
	b.Grow(n)
	for _, seg := range segments {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(seg))
	}
	return b.String()
}

// resolve joins the service root (base URL plus the service's path prefix) with an escaped
// endpoint path and the query, keeping any path the base URL has:
// https://h/x + /report/a = https://h/x/report/a.
func resolve(root *url.URL, endpoint string, query url.Values) (*url.URL, error) {
	if plainPath(endpoint) {
		// The common case, a path of unreserved characters without dot segments, needs no
		// parsing: it is the same escaped and unescaped.
		u := *root
		u.Path = strings.TrimSuffix(root.Path, "/") + endpoint
		if root.RawPath != "" {
			u.RawPath = strings.TrimSuffix(root.RawPath, "/") + endpoint
		}
		if len(query) > 0 {
			u.RawQuery = query.Encode()
		}
		u.Fragment, u.RawFragment = "", ""
		return &u, nil
	}
	return resolveParsed(root, endpoint, query)
}

// resolveParsed is resolve for any endpoint: it parses the endpoint, refuses an absolute one
// or one with dot segments, and merges its query with query.
func resolveParsed(root *url.URL, endpoint string, query url.Values) (*url.URL, error) {
	ep, err := url.Parse(endpoint)
	if err != nil {
		return nil, errors.New("endpoint is not a valid path")
	}
	if ep.Scheme != "" || ep.Host != "" || ep.User != nil || strings.HasPrefix(endpoint, "//") {
		return nil, errors.New("endpoint must be a path below the service root, not an absolute URL")
	}
	epPath := strings.TrimPrefix(ep.EscapedPath(), "/")
	for _, seg := range strings.Split(epPath, "/") {
		if seg == "." || seg == ".." {
			return nil, errors.New(`endpoint path must not contain "." or ".." segments`)
		}
	}
	raw := strings.TrimSuffix(root.EscapedPath(), "/")
	if epPath != "" {
		raw += "/" + epPath
	}
	u := *root
	if err := setEscapedPath(&u, raw); err != nil {
		return nil, err
	}
	q := ep.Query()
	for k, vs := range query {
		q[k] = append(q[k], vs...)
	}
	u.RawQuery = q.Encode()
	u.Fragment, u.RawFragment = "", ""
	return &u, nil
}

// plainPath reports whether endpoint is "/" followed by segments of unreserved characters
// (letters, digits, "-", "_", "~", and dots inside a segment) with no empty, "." or ".."
// segment.
func plainPath(endpoint string) bool {
	if len(endpoint) < 2 || endpoint[0] != '/' {
		return false
	}
	start := 1
	for i := 1; i <= len(endpoint); i++ {
		if i == len(endpoint) || endpoint[i] == '/' {
			seg := endpoint[start:i]
			if seg == "" || seg == "." || seg == ".." {
				return false
			}
			start = i + 1
			continue
		}
		c := endpoint[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~') {
			return false
		}
	}
	return true
}

// setEscapedPath sets both Path and RawPath of u from an escaped path.
func setEscapedPath(u *url.URL, escaped string) error {
	p, err := url.PathUnescape(escaped)
	if err != nil {
		return errors.New("endpoint path has an invalid escape")
	}
	u.Path = p
	u.RawPath = escaped
	if escaped == p {
		u.RawPath = "" // as net/url keeps it: only when the escaping is not the default one
	}
	return nil
}

// serviceRoot returns base with prefix appended to its path, unless the path already ends
// with prefix.
func serviceRoot(base *url.URL, prefix string) (*url.URL, error) {
	root := *base
	basePath := strings.TrimSuffix(base.EscapedPath(), "/")
	prefix = strings.TrimSuffix(prefix, "/")
	if prefix != "" && !strings.HasSuffix(basePath, prefix) {
		basePath += prefix
	}
	if err := setEscapedPath(&root, basePath); err != nil {
		return nil, err
	}
	return &root, nil
}
