package httpcore

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxErrorBodyBytes caps how much of an error response body is read and kept.
const MaxErrorBodyBytes = 1 << 20

// maxExcerptBytes caps how much of a body an error message quotes.
const maxExcerptBytes = 200

// APIError is a response from a service that reports a failure: a non-2xx status, or a
// service-level failure inside a 2xx envelope. Service packages alias it as their own APIError.
type APIError struct {
	// Service is the name of the service that answered, such as "chartdiff".
	Service string
	// Method and Path identify the request; Path never holds the query string.
	Method string
	Path   string
	// StatusCode is the HTTP status of the final response.
	StatusCode int
	// Code is the service's machine-readable error code, when the body carried one.
	Code string
	// Message is the service's human-readable message, when the body carried one.
	Message string
	// RequestID is the server's request identifier, when a response header carried one.
	RequestID string
	// RetryAfter is the wait the server asked for in its Retry-After header (0 when absent).
	RetryAfter time.Duration
	// Header is the final response's header.
	Header http.Header
	// Body is the final response body, at most MaxErrorBodyBytes of it, with known secrets
	// scrubbed.
	Body []byte
	// BodyTruncated reports that the body was longer than MaxErrorBodyBytes.
	BodyTruncated bool
	// Attempts is how many times the request was sent before this response.
	Attempts int
}

// Error describes the failure with its status, code and message (or a short body excerpt when
// the body carried neither), and the attempt count when the request was retried.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s: %d %s", e.Service, e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Code != "" {
		b.WriteString(": ")
		b.WriteString(e.Code)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Code == "" && e.Message == "" && len(e.Body) > 0 {
		fmt.Fprintf(&b, ": body %q", Excerpt(e.Body))
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

// Is reports whether target is the sentinel for this error's service and code, so that
// errors.Is(err, chartdiff.ErrInvalidChartID) works.
func (e *APIError) Is(target error) bool {
	var code *CodeError
	if errors.As(target, &code) {
		return code.Service == e.Service && code.Code == e.Code && e.Code != ""
	}
	return false
}

// CodeError is a sentinel for one error code of one service. Compare with errors.Is: an
// *APIError matches it when its Service and Code are equal.
type CodeError struct {
	Service string
	Code    string
}

// NewCodeError returns the sentinel for code of service.
func NewCodeError(service, code string) *CodeError {
	return &CodeError{Service: service, Code: code}
}

// Error returns the service and the code.
func (c *CodeError) Error() string { return c.Service + ": " + c.Code }

// ValidationError reports input that the service rules out, found before any request was
// sent. Field names the offending parameter as the service spells it.
type ValidationError struct {
	Service string
	Field   string
	Reason  string
}

// Error names the field and why it was refused; it never quotes the value, which may be secret.
func (e *ValidationError) Error() string {
	return fmt.Sprintf("%s: invalid %s: %s", e.Service, e.Field, e.Reason)
}

// DecodeError reports a 2xx response whose body could not be decoded.
type DecodeError struct {
	Service     string
	Method      string
	Path        string
	StatusCode  int
	ContentType string
	// Excerpt is at most 200 bytes of the body, with known secrets scrubbed, or a note that it
	// was withheld for a request marked SensitiveBody.
	Excerpt string
	Err     error
}

// Error names the request, the decoding failure and a short quote of the body.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s: %s %s: decoding %d response (%s): %v: body %q",
		e.Service, e.Method, e.Path, e.StatusCode, e.ContentType, e.Err, e.Excerpt)
}

// Unwrap returns the underlying decoding error.
func (e *DecodeError) Unwrap() error { return e.Err }

// RequestError reports a request that got no usable response: a network failure, or the
// context ending. errors.Is(err, context.Canceled) and similar work through it.
type RequestError struct {
	Service  string
	Method   string
	Path     string
	Attempts int
	Err      error
	// msg is Err's text with the URL's query and known secrets scrubbed.
	msg string
}

// Error names the request, the cause and the attempt count.
func (e *RequestError) Error() string {
	s := fmt.Sprintf("%s: %s %s: %s", e.Service, e.Method, e.Path, e.msg)
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	return s
}

// Unwrap returns the underlying cause.
func (e *RequestError) Unwrap() error { return e.Err }

// Excerpt returns at most the first 200 bytes of b, cut on a rune boundary and made valid
// UTF-8, marking a cut with "...".
func Excerpt(b []byte) string {
	cut := len(b) > maxExcerptBytes
	if cut {
		end := maxExcerptBytes
		for end > 0 && !utf8.RuneStart(b[end]) {
			end--
		}
		b = b[:end]
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if cut {
		s += "..."
	}
	return s
}
