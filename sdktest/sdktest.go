// Package sdktest holds what the fake servers of the SDK share, so that every fake reads the
// same way in a test: the record of a request a fake received, and the faults any fake can
// be told to answer with.
//
// Each service package has its fake in <package>test (chartdifftest, hostingtest,
// productdatatest, gpupricetest, reportstoretest, x402test). Every fake's Server has:
//
//   - URL, the base URL to give the client's WithBaseURL, and Close;
//   - Client, an *http.Client for the server;
//   - Requests, the requests it received in order, and RequestCount(method, path);
//   - InjectFaults, which makes the next matching requests fail as a Fault says.
//
// Stability: the fakes follow the SDK's versioning like the clients do. Their behaviour
// follows the service's API description; where it is silent, a fake answers as the SDK's
// documentation says a real server is likely to, and that may be refined in minor releases.
package sdktest

import (
	"net/http"
	"net/url"
	"time"
)

// Request is a request a fake received, as it reached the fake. Every credential header's
// value is replaced by "[REDACTED]", so a record can be printed in a test log.
type Request struct {
	// Time is the fake's clock when the request arrived.
	Time time.Time
	// Method is the HTTP method.
	Method string
	// Path is the path as sent, still escaped, without the query.
	Path string
	// Query is the parsed query string.
	Query url.Values
	// Header is the request's header, credentials redacted.
	Header http.Header
	// Body is the request body, at most MaxBodyBytes of it.
	Body []byte
	// Status is the status of the fake's answer; 0 when it answered none (the connection was
	// dropped, or the client went away first).
	Status int
}

// MaxBodyBytes is the most of a request body a Request keeps.
const MaxBodyBytes = 1 << 20

// Redacted replaces the value of a credential header in a Request.
const Redacted = "[REDACTED]"

// Fault is an answer a fake gives instead of serving a request, injected with the fake's
// InjectFaults. Faults are used in the order they were injected: each request takes the
// first fault that matches it.
type Fault struct {
	// Method and Path select the requests it applies to; an empty field matches any. Path is
	// the full path, such as "/api/v1/stats".
	Method, Path string
	// Status is the HTTP status of the answer (500 when zero and Drop is false). A status of
	// 200 with a Code injects a failure reported inside a successful answer, for services
	// that report failures so (productdata's business codes, hosting's {"ok": false}).
	Status int
	// Code and Message go into the answer's error body, in the service's shape.
	Code, Message string
	// RetryAfter, when positive, is sent as Retry-After, in whole seconds.
	RetryAfter time.Duration
	// Header holds extra answer headers.
	Header http.Header
	// Drop closes the connection without an answer instead.
	Drop bool
	// Delay waits this long before the answer (or the drop); the wait ends early when the
	// client goes away or the server closes.
	Delay time.Duration
	// Times is how many matching requests get the fault; 0 means one.
	Times int
}
