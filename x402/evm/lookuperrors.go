package evm

import (
	"context"
	"errors"
	"net/url"
	"strconv"

	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agentapis/sdk/internal/httpcore"
)

// ConflictError reports an endpoint whose answers about one payment contradict each other:
// its authorizationState reads used but it has no AuthorizationUsed event of the payment,
// reads unused but it has one, or reads used at its finalized block and unused at its latest.
// A node that lies, or one caught in a reorganisation; the payment is neither committed nor
// released on its word (another endpoint may still prove it settled).
type ConflictError struct {
	// Endpoint is the endpoint's place among the lookup's, from 1 (DialLookup's or
	// NewLookup's first, then the options' in order).
	Endpoint int
	// Reason says which answers disagree.
	Reason string
}

// Error names the endpoint and the contradiction; never the payment's nonce.
func (e *ConflictError) Error() string {
	return "x402: RPC endpoint " + strconv.Itoa(e.Endpoint) + " contradicts itself: " + e.Reason
}

// nodeError is a failure of a node, its text scrubbed of the endpoints' URLs and the
// payments' nonces.
type nodeError struct {
	endpoint string // "RPC endpoint n: " when the lookup has several
	method   string
	text     string
	causes   []error // among nodeSentinels, a *BatchError and reconcile.ErrUnreachable
}

// nodeSentinels are the failures a nodeError unwraps to: the ends of a context, and a batch
// the node left unanswered. Other causes are not kept, since they may quote a URL or a nonce.
var nodeSentinels = []error{context.Canceled, context.DeadlineExceeded, rpc.ErrMissingBatchResponse, rpc.ErrNoResult}

// Error names the endpoint, the method and the failure.
func (e *nodeError) Error() string { return "x402: " + e.endpoint + e.method + ": " + e.text }

// Unwrap returns the causes kept of the failure.
func (e *nodeError) Unwrap() []error { return e.causes }

// scrubText returns the text of err without secrets (endpoints' URLs, nonces) and the URL
// net/http quotes, which may carry a provider's access key.
func scrubText(err error, secrets []string) string {
	all := secrets
	var ue *url.Error
	if errors.As(err, &ue) {
		all = append(append([]string(nil), secrets...), ue.URL)
	}
	return httpcore.Scrub(err.Error(), all...)
}
