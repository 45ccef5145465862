package sdk

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/agentapis/sdk/internal/excerpt"
)

// MaxErrorBodyBytes caps how much of a failure answer's body an *APIError keeps.
const MaxErrorBodyBytes = 1 << 20

// Sentinels for the HTTP statuses a caller branches on, whatever the service. Every
// *APIError with that status matches them with errors.Is, and each service package exports
// the same values under its own name (chartdiff.ErrUnauthorized is sdk.ErrUnauthorized), so
// that a check written against one package works for all:
//
//	if errors.Is(err, sdk.ErrUnauthorized) { ... refresh the credential ... }
var (
	// ErrUnauthorized matches a 401 answer: the credential is missing, unknown or expired.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrForbidden matches a 403 answer: the credential is valid but not allowed to do this,
	// or a firewall in front of the service blocked the request.
	ErrForbidden = errors.New("forbidden")
	// ErrNotFound matches a 404 answer: the resource does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict matches a 409 answer: the request conflicts with the resource's state.
	ErrConflict = errors.New("conflict")
	// ErrRateLimited matches every *RateLimitError: a 429 answer, or a quota the service
	// reported in another way.
	ErrRateLimited = errors.New("rate limited")
	// ErrMissingCredential matches every *MissingCredentialError.
	ErrMissingCredential = errors.New("missing credential")
)

// statusSentinels maps the statuses of the status sentinels to them.
var statusSentinels = map[int]error{
	http.StatusUnauthorized:    ErrUnauthorized,
	http.StatusForbidden:       ErrForbidden,
	http.StatusNotFound:        ErrNotFound,
	http.StatusConflict:        ErrConflict,
	http.StatusTooManyRequests: ErrRateLimited,
}

// APIError is an answer of a service that reports a failure: a non-2xx status, or a failure
// the service reported inside a 2xx answer (hosting's {"ok": false}, a non-zero productdata
// Code). Every service package returns it; errors.Is matches the status sentinels of this
// package and the service package's own sentinels listed in Sentinels
// (errors.Is(err, chartdiff.ErrPlayerNotFound)).
//
// Its texts are scrubbed of every credential the client knows before the client returns it.
type APIError struct {
	// Service is the name of the service that answered, such as "chartdiff".
	Service string
	// Method is the request's HTTP method.
	Method string
	// Path is the escaped path the answer came from, without the query string.
	Path string
	// StatusCode is the HTTP status of the final answer.
	StatusCode int
	// Code is the service's machine-readable error code, when the answer carried one.
	Code string
	// Message is the service's human-readable message, when the answer carried one.
	Message string
	// RequestID is the server's request identifier, when a response header carried one.
	RequestID string
	// RetryAfter is the wait the service asked for (0 when it asked for none).
	RetryAfter time.Duration
	// Header is the final answer's header.
	Header http.Header
	// Body is the final answer's body, at most MaxErrorBodyBytes of it.
	Body []byte
	// BodyTruncated reports that the body was longer than MaxErrorBodyBytes.
	BodyTruncated bool
	// Attempts is how many times the request was sent before this answer.
	Attempts int
	// Sentinels are the service package's sentinel errors this failure matches, such as
	// chartdiff.ErrPlayerNotFound for the code player_not_found.
	Sentinels []error
}

// Error describes the failure with its status, code and message (or a short excerpt of the
// body when it carried neither), and the attempt count when the request was retried.
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
		fmt.Fprintf(&b, ": body %q", excerpt.Of(e.Body))
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

// Is matches the status sentinel of StatusCode and every error in Sentinels.
func (e *APIError) Is(target error) bool {
	if s, ok := statusSentinels[e.StatusCode]; ok && s == target {
		return true
	}
	for _, s := range e.Sentinels {
		if s == target {
			return true
		}
	}
	return false
}

// RateLimitError is a failure that says a quota is used up: every 429 answer, and a quota
// the service reported with another status. RetryAfter (of the embedded *APIError) is the
// wait the service asked for; RateLimit is the quota state of the answer's rate-limit
// headers. errors.Is(err, ErrRateLimited) matches it, and errors.As finds the *APIError
// through it.
type RateLimitError struct {
	*APIError
	// RateLimit is the quota state of the answer's headers, or nil without such headers.
	RateLimit *RateLimit
}

// Unwrap returns the *APIError.
func (e *RateLimitError) Unwrap() error { return e.APIError }

// Is matches ErrRateLimited, whatever the status.
func (e *RateLimitError) Is(target error) bool { return target == ErrRateLimited }

// ValidationError reports input the service rules out, or a setting the SDK refuses, found
// before any request was sent. Its text never quotes the value, which may be a secret.
type ValidationError struct {
	// Service is the name of the service (or "x402" for the payment package).
	Service string
	// Field names the parameter or setting as the service or the option spells it.
	Field string
	// Reason says why it was refused.
	Reason string
}

// Error names the field and why it was refused.
func (e *ValidationError) Error() string {
	return fmt.Sprintf("%s: invalid %s: %s", e.Service, e.Field, e.Reason)
}

// MissingCredentialError reports a call that needs a credential the client does not have. It
// is returned before any request is sent. errors.Is matches ErrMissingCredential and the
// service package's sentinels listed in Sentinels (such as chartdiff.ErrAccountTokenRequired).
type MissingCredentialError struct {
	// Service is the name of the service.
	Service string
	// Operation names the method that needs the credential, such as "CreateKey"; "New" when
	// the client cannot be made without it.
	Operation string
	// Credential names the credential as the service's API description calls it, such as
	// "API key" or "account token".
	Credential string
	// Reason says how to give the credential, and why a value in the environment was not
	// used when there is one.
	Reason string
	// Sentinels are the service package's sentinel errors this error matches.
	Sentinels []error
}

// Error names the operation, the missing credential and how to give it.
func (e *MissingCredentialError) Error() string {
	msg := fmt.Sprintf("%s: %s needs the %s", e.Service, e.Operation, e.Credential)
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Is matches ErrMissingCredential and every error in Sentinels.
func (e *MissingCredentialError) Is(target error) bool {
	if target == ErrMissingCredential {
		return true
	}
	for _, s := range e.Sentinels {
		if s == target {
			return true
		}
	}
	return false
}

// DecodeError reports a 2xx answer whose body could not be read as the expected shape, such
// as one lacking a field the service's API description names.
type DecodeError struct {
	// Service is the name of the service.
	Service string
	// Method is the request's HTTP method.
	Method string
	// Path is the escaped path the answer came from, without the query string.
	Path string
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// ContentType is the answer's media type.
	ContentType string
	// Excerpt is at most 200 bytes of the body, scrubbed of credentials, or a note that it was
	// withheld because the body may hold a secret.
	Excerpt string
	// Err is the decoding failure.
	Err error
}

// Error names the request, the decoding failure and a short quote of the body.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s: %s %s: decoding %d response (%s): %v: body %q",
		e.Service, e.Method, e.Path, e.StatusCode, e.ContentType, e.Err, e.Excerpt)
}

// Unwrap returns the decoding failure.
func (e *DecodeError) Unwrap() error { return e.Err }

// RequestError reports a request that got no usable answer: a network failure, a timeout, or
// the context ending. errors.Is(err, context.Canceled) and the like work through it.
type RequestError struct {
	// Service is the name of the service.
	Service string
	// Method is the request's HTTP method.
	Method string
	// Path is the escaped path of the request, without the query string.
	Path string
	// Attempts is how many times the request was sent.
	Attempts int
	// Err is the cause.
	Err error
	// Detail is the cause's text without the request's URL and scrubbed of credentials.
	Detail string
}

// Error names the request, the cause and the attempt count.
func (e *RequestError) Error() string {
	s := fmt.Sprintf("%s: %s %s: %s", e.Service, e.Method, e.Path, e.Detail)
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	return s
}

// Unwrap returns the cause.
func (e *RequestError) Unwrap() error { return e.Err }

// Reasons a listing's iteration stops with a *PagingError.
var (
	// ErrRepeatedPage: the server answered a page with the same content as the page before,
	// as a server that ignores the page number does; reading on would never end.
	ErrRepeatedPage = errors.New("the page repeats the previous one")
	// ErrTooManyPages: the listing went past MaxPages pages, more than any real listing of
	// these services has.
	ErrTooManyPages = errors.New("too many pages")
)

// MaxPages is the most pages an iteration over a listing reads before it stops with
// ErrTooManyPages.
const MaxPages = 10_000

// PagingError reports a listing whose iteration stopped because its pages cannot be those of
// a real listing. The items yielded before it are real answers; errors.Is matches
// ErrRepeatedPage or ErrTooManyPages.
type PagingError struct {
	// Service is the name of the service.
	Service string
	// Page is the number of the page at which the iteration stopped.
	Page int
	// Err is ErrRepeatedPage or ErrTooManyPages.
	Err error
}

// Error names the service, the page and the reason.
func (e *PagingError) Error() string {
	return fmt.Sprintf("%s: listing stopped at page %d: %v", e.Service, e.Page, e.Err)
}

// Unwrap returns the reason.
func (e *PagingError) Unwrap() error { return e.Err }
