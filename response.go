package sdk

import (
	"net/http"
	"time"
)

// Response describes the HTTP answer a result came from: every value a service method
// returns carries one, so that the request id and the quota state are visible on every call.
// A result made of several calls (hosting's DeployResult, chartdiff's SelfCheckReport) has no
// Response of its own: each call's result in it carries its own.
type Response struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Header is the answer's header.
	Header http.Header
	// RequestID is the server's request identifier, when a header carried one.
	RequestID string
	// RateLimit is the quota state of the rate-limit headers, or nil when the answer had none.
	RateLimit *RateLimit
	// Attempts is how many times the request was sent.
	Attempts int
}

// RateLimit is the quota state an answer reported in its rate-limit headers
// (X-RateLimit-Limit, -Remaining, -Reset, or the unprefixed RateLimit-* of the IETF draft).
// A field is nil when its header was absent: a nil Remaining is unknown, not 0.
type RateLimit struct {
	// Limit is the number of requests the window allows.
	Limit *int
	// Remaining is the number of requests left in the window.
	Remaining *int
	// Reset is the time until the window resets, from the moment the answer was read. A reset
	// sent as a Unix time is converted.
	Reset *time.Duration
}
