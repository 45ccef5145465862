package productdata_test

import (
	"cmp"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/productdata"
	"github.com/agentapis/sdk/sdktest"
)

// testKey is the account key the tests use.
const testKey = "atdomjnkzk5ymlgxz2jjcfe2tjvtut09"

// scan checks that no account key the suite uses ever reaches a log line or an error string.
var scan = secrettest.New()

func TestMain(m *testing.M) {
	testenv.RunWaitingTestsTogether()
	os.Exit(secrettest.Main(m, scan))
}

// received is one request as the test server saw it, with its endpoint and its body decoded.
type received struct {
	Method   string
	Path     string
	Query    url.Values
	Header   http.Header
	Endpoint string
	Body     map[string]any
	At       time.Time
}

// receivedOf reads a recorded request.
func receivedOf(r sdktest.Request) received {
	rec := received{Method: r.Method, Path: r.Path, Query: r.Query, Header: r.Header, At: r.Time}
	rec.Endpoint, _ = strings.CutPrefix(r.Path, "/api/")
	if len(r.Body) > 0 {
		rec.Body = map[string]any{}
		if err := json.Unmarshal(r.Body, &rec.Body); err != nil {
			rec.Body = map[string]any{"unparsed": string(r.Body)}
		}
	}
	return rec
}

// reply is what the test server answers.
type reply struct {
	status int
	header http.Header
	body   string
}

// api is a test server of the product-data API for the answers the fake does not give:
// handle answers each request, and testkit records it.
type api struct{ *testkit.Recorder }

// newAPI starts a test server answering with handle; clock (nil for the wall clock) stamps the
// requests.
func newAPI(t *testing.T, clock sdk.Clock, handle func(r received) reply) *api {
	t.Helper()
	if clock == nil {
		clock = sdk.SystemClock()
	}
	return &api{testkit.RecordOn(t, clock, func(w http.ResponseWriter, r *http.Request, body []byte) {
		rep := handle(receivedOf(sdktest.Request{Time: clock.Now(), Method: r.Method, Path: r.URL.Path,
			Query: r.URL.Query(), Header: r.Header.Clone(), Body: body}))
		for k, vs := range rep.header {
			w.Header()[k] = vs
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
		}
		w.WriteHeader(cmp.Or(rep.status, http.StatusOK))
		_, _ = io.WriteString(w, rep.body)
	})}
}

// requests returns the requests received so far.
func (a *api) requests() []received {
	var out []received
	for _, r := range a.Requests() {
		out = append(out, receivedOf(r))
	}
	return out
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
	defaults := []productdata.Option{productdata.WithBaseURL(srv.URL), productdata.WithAccountKey(testKey),
		productdata.WithRetry(testkit.NoRetry), productdata.WithRequestsPerMinute(0)}
	return testkit.New(t, productdata.New, append(defaults, opts...)...)
}

// product is a product object in the service's shape.
func product(asin string, salesPrice, monthly int) map[string]any {
	return map[string]any{"ASIN": asin, "Title": "Item " + asin, "SalesPrice": salesPrice, "Price": salesPrice + 200,
		"ListingSalesVolumeOfMonth": monthly, "Ratings": 4.6, "RatingsCount": 1200, "Brand": "Acme"}
}
