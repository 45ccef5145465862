package testkit

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/secrettest"
)

// NoSecretInError checks an error a client returned from a hostile server, one that echoes
// the credentials it receives: err is an error, scan records it, and none of the ways a
// caller may print it (Error, %v, %+v, %#v) holds a telltale of secrets in any form of es.
// what names the case in a failure.
func NoSecretInError(t testing.TB, scan *secrettest.Scanner, es secrettest.Echoes, what string, secrets []string, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: want an error", what)
	}
	scan.Record(err)
	es.AssertNoTelltale(t, what, secrets, err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err))
}

// NoSecretInURLError checks the error of a request redirected, with a credential in its new
// path and query, to a host that does not answer: an *sdk.RequestError over a *url.Error
// whose URL and renderings hold no telltale of secrets in any form of es, and whose URL has
// lost the query the redirect gave.
func NoSecretInURLError(t testing.TB, es secrettest.Echoes, secrets []string, err error, query string) {
	t.Helper()
	As[*sdk.RequestError](t, err)
	ue := As[*url.Error](t, err)
	es.AssertNoTelltale(t, "the *url.Error", secrets, ue.URL, ue.Error(), fmt.Sprintf("%#v", ue))
	if strings.Contains(ue.URL, query) {
		t.Errorf("the query %q is dropped: %s", query, ue.URL)
	}
}

// NoSecretInAPIError checks the *sdk.APIError of an answer that echoed a credential in form
// f: its message says [REDACTED] where the credential stood, and neither its request id, its
// headers nor its body hold a telltale of secrets in any form of es. It returns the error.
func NoSecretInAPIError(t testing.TB, es secrettest.Echoes, f secrettest.Echo, secrets []string, err error) *sdk.APIError {
	t.Helper()
	ae := APIError(t, err)
	if !strings.Contains(ae.Message, "[REDACTED]") {
		t.Errorf("%s: the message says [REDACTED]: %q", f.Name, ae.Message)
	}
	es.AssertNoTelltale(t, f.Name, secrets, ae.RequestID, fmt.Sprint(ae.Header), string(ae.Body))
	return ae
}
