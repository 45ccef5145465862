package productdata_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/errtest"
	"github.com/agentapis/sdk/productdata"
)

// testKey is the account key the tests use.
const testKey = "atdomjnkzk5ymlgxz2jjcfe2tjvtut09"

// noRetry turns retries off, so that a test sees each answer as the server sent it.
var noRetry = sdk.RetryPolicy{MaxAttempts: 1}

// received is one request as the test server saw it.
type received struct {
	Method   string
	Path     string
	Query    url.Values
	Header   http.Header
	Endpoint string
	Body     map[string]any
	At       time.Time
}

// reply is what the test server answers.
type reply struct {
	status int
	header http.Header
	body   string
}

// api is a test server of the product-data API: handle answers each request, and every
// request is recorded.
type api struct {
	*httptest.Server
	clock  sdk.Clock
	mu     sync.Mutex
	got    []received
	handle func(r received) reply
}

// newAPI starts a test server answering with handle; clock (nil for the wall clock) stamps the
// requests.
func newAPI(t *testing.T, clock sdk.Clock, handle func(r received) reply) *api {
	t.Helper()
	if clock == nil {
		clock = sdk.SystemClock()
	}
	a := &api{clock: clock, handle: handle}
	a.Server = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.Close)
	return a
}

// serve records the request and writes handle's reply.
func (a *api) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	rec := received{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), At: a.clock.Now()}
	rec.Endpoint = r.URL.Path[len("/api/"):]
	if len(raw) > 0 {
		rec.Body = map[string]any{}
		if err := json.Unmarshal(raw, &rec.Body); err != nil {
			rec.Body = map[string]any{"unparsed": string(raw)}
		}
	}
	a.mu.Lock()
	a.got = append(a.got, rec)
	a.mu.Unlock()
	rep := a.handle(rec)
	for k, vs := range rep.header {
		w.Header()[k] = vs
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	}
	if rep.status == 0 {
		rep.status = http.StatusOK
	}
	w.WriteHeader(rep.status)
	_, _ = io.WriteString(w, rep.body)
}

// requests returns the requests received so far.
func (a *api) requests() []received {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]received(nil), a.got...)
}

// ok is a success envelope holding data, with request units.
func ok(t *testing.T, data any, left, consumed int) reply {
	t.Helper()
	b, err := json.Marshal(map[string]any{"RequestLeft": left, "RequestConsumed": consumed, "Code": 0, "Message": nil, "Data": data})
	require.NoError(t, err)
	return reply{body: string(b)}
}

// fail is a failure envelope in HTTP 200, PascalCase like the Amazon answers.
func fail(code int, message string) reply {
	b, _ := json.Marshal(map[string]any{"RequestLeft": 100, "RequestConsumed": 0, "Code": code, "Message": message, "Data": nil})
	return reply{body: string(b)}
}

// newClient returns a client of srv with the test key, without retries or pacing; opts come
// after the defaults.
func newClient(t *testing.T, srv *api, opts ...productdata.Option) *productdata.Client {
	t.Helper()
	all := append([]productdata.Option{productdata.WithBaseURL(srv.URL), productdata.WithAccountKey(testKey),
		productdata.WithRetry(noRetry), productdata.WithRequestsPerMinute(0)}, opts...)
	c, err := productdata.New(all...)
	require.NoError(t, err)
	return c
}

// Typed views of an error, failing the test when err holds none of that type.
var (
	apiError          = errtest.As[*sdk.APIError]
	validationError   = errtest.As[*sdk.ValidationError]
	missingCredential = errtest.As[*sdk.MissingCredentialError]
	decodeError       = errtest.As[*sdk.DecodeError]
)

// product is a product object in the service's shape.
func product(asin string, salesPrice, monthly int) map[string]any {
	return map[string]any{"ASIN": asin, "Title": "Item " + asin, "SalesPrice": salesPrice, "Price": salesPrice + 200,
		"ListingSalesVolumeOfMonth": monthly, "Ratings": 4.6, "RatingsCount": 1200, "Brand": "Acme"}
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }
