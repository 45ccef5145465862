// Package testkit holds the helpers the SDK's tests share, so that a test of one client reads
// like a test of another: values (Ptr, the retry policies of tests), the client constructor
// of a test (New), typed views of an error (As and its instances), a recording server for the
// answers no fake gives (Record), the headers a client sent (HeaderLog), raw requests to a
// fake (Do), Start, which closes a fake when its test ends, and the checks that no
// credential a hostile server echoes reaches an error (NoSecretInError and the like).
//
// A test of a client against its service uses the fake (<pkg>test) and, for injected
// failures, its InjectFaults; an answer no fake gives (hostile, malformed, a gateway's) is
// served by Record; a recorded real exchange is replayed with fixturetest.
package testkit

import (
	"errors"
	"testing"
	"time"

	"github.com/agentapis/sdk"
)

// NoRetry turns a client's retries off, so that a test sees each answer as the server sent
// it.
var NoRetry = sdk.RetryPolicy{MaxAttempts: 1}

// FastRetry keeps a client's retries with backoffs of milliseconds, so that a test of the
// retry path takes no time.
var FastRetry = sdk.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}

// Ptr returns a pointer to a copy of v, for the optional fields of params and results.
func Ptr[T any](v T) *T { return &v }

// New returns the client newFn (a package's New) makes with opts, failing t at once when it
// refuses them. A package's newClient is one line over it, with its own defaults first:
//
//	defaults := []hosting.Option{hosting.WithBaseURL(url), hosting.WithRetry(testkit.NoRetry)}
//	return testkit.New(t, hosting.New, append(defaults, opts...)...)
func New[C, O any](t testing.TB, newFn func(...O) (C, error), opts ...O) C {
	t.Helper()
	c, err := newFn(opts...)
	if err != nil {
		t.Fatalf("new client: %v", err)
	}
	return c
}

// Start returns s, a started fake or server, and closes it when t ends:
//
//	srv := testkit.Start(t, chartdifftest.NewServer(opts...))
func Start[S interface{ Close() }](t testing.TB, s S) S {
	t.Helper()
	t.Cleanup(s.Close)
	return s
}

// As returns the first error of type T in err's tree (see errors.As), failing t at once when
// there is none, so that a test can go on to assert the error's fields.
func As[T error](t testing.TB, err error) T {
	t.Helper()
	var target T
	if !errors.As(err, &target) {
		t.Fatalf("want %T, got %T: %v", target, err, err)
	}
	return target
}

// Typed views of an error, failing the test when err holds none of that type:
// testkit.APIError(t, err).StatusCode.
var (
	APIError          = As[*sdk.APIError]
	ValidationError   = As[*sdk.ValidationError]
	MissingCredential = As[*sdk.MissingCredentialError]
	DecodeError       = As[*sdk.DecodeError]
)
