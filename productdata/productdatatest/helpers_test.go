package productdatatest_test

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/productdata/productdatatest"
	"github.com/agentapis/sdk/sdktest"
)

// scan checks that no credential a client of this suite sends ever reaches a log line or an
// error string.
var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }

// epoch is the start time of the tests' fake clocks.
var epoch = time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)

// start starts a fake on a fake clock at epoch (unless opts set another) and closes it after
// the test.
func start(t *testing.T, opts ...productdatatest.Option) *productdatatest.Server {
	t.Helper()
	srv, _ := startClock(t, opts...)
	return srv
}

// startClock is start that also returns the fake clock, for a test that moves it on.
func startClock(t *testing.T, opts ...productdatatest.Option) (*productdatatest.Server, *sdktest.Clock) {
	t.Helper()
	clock := sdktest.NewClock(epoch)
	all := append([]productdatatest.Option{productdatatest.WithClock(clock)}, opts...)
	return testkit.Start(t, productdatatest.NewServer(all...)), clock
}

// req is a raw request to the fake. Empty fields take the service's defaults: POST, the
// default key with BasicAuth, Content-Type application/json;charset=UTF-8.
type req struct {
	method   string
	endpoint string
	query    string
	body     string
	header   map[string]string
}

// reply is a raw answer of the fake.
type reply struct {
	status int
	header http.Header
	raw    []byte
	env    map[string]json.RawMessage // nil when the body is not a JSON object
	// encoded reports that the whole body arrived as base64 of gzip; env is then read from
	// the decoded body.
	encoded bool
}

// send sends a raw request to the fake (testkit.Do), with the default key and content type
// unless r.header replaces them ("" leaves the header out).
func send(t *testing.T, srv *productdatatest.Server, r req) reply {
	t.Helper()
	target := srv.URL + "/api/" + r.endpoint
	if r.query != "" {
		target += "?" + r.query
	}
	header := map[string]string{"Authorization": "BasicAuth " + productdatatest.DefaultKey,
		"Content-Type": "application/json;charset=UTF-8"}
	for k, v := range r.header {
		header[k] = v
		if v == "" {
			delete(header, k)
		}
	}
	raw := testkit.Do(t, srv.Client(), cmp.Or(r.method, http.MethodPost), target, r.body, header)
	out := reply{status: raw.Status, header: raw.Header, raw: raw.Body}
	if json.Unmarshal(raw.Body, &out.env) != nil && raw.Header.Get("Content-Type") == "text/plain; charset=utf-8" {
		if plain, ok := tryGunzipBase64(raw.Body); ok {
			out.encoded = true
			require.NoError(t, json.Unmarshal(plain, &out.env), string(plain))
		}
	}
	return out
}

// post sends body to an endpoint with the site code in the query, as the real service reads it.
func post(t *testing.T, srv *productdatatest.Server, endpoint string, domain int, body string) reply {
	t.Helper()
	return send(t, srv, req{endpoint: endpoint, query: "domain=" + strconv.Itoa(domain), body: body})
}

// member decodes one envelope member, failing the test when it is absent.
func (r reply) member(t *testing.T, name string, v any) {
	t.Helper()
	raw, ok := r.env[name]
	require.True(t, ok, "member %s missing from %s", name, r.raw)
	require.NoError(t, json.Unmarshal(raw, v), string(raw))
}

// code returns the envelope's Code (or the lowercase envelope's code).
func (r reply) code(t *testing.T) int {
	t.Helper()
	var c int
	if _, ok := r.env["Code"]; ok {
		r.member(t, "Code", &c)
	} else {
		r.member(t, "code", &c)
	}
	return c
}

// message returns the envelope's Message (or message); "" for null.
func (r reply) message(t *testing.T) string {
	t.Helper()
	var m *string
	if _, ok := r.env["Message"]; ok {
		r.member(t, "Message", &m)
	} else {
		r.member(t, "message", &m)
	}
	if m == nil {
		return ""
	}
	return *m
}

// units returns RequestLeft and RequestConsumed.
func (r reply) units(t *testing.T) (left, consumed int) {
	t.Helper()
	r.member(t, "RequestLeft", &left)
	r.member(t, "RequestConsumed", &consumed)
	return left, consumed
}

// ok checks for code 0 in HTTP 200 and decodes Data into v.
func (r reply) ok(t *testing.T, v any) {
	t.Helper()
	require.Equal(t, http.StatusOK, r.status, string(r.raw))
	require.Equal(t, 0, r.code(t), string(r.raw))
	require.JSONEq(t, "null", string(r.env["Message"]), "Message is null on success")
	r.member(t, "Data", v)
}

// failed checks for a non-zero code in HTTP 200 and returns the message.
func (r reply) failed(t *testing.T, code int) string {
	t.Helper()
	require.Equal(t, http.StatusOK, r.status, string(r.raw))
	require.Equal(t, code, r.code(t), string(r.raw))
	msg := r.message(t)
	require.NotEmpty(t, msg, "a failure carries a message")
	return msg
}

// objects decodes Data as a list of JSON objects.
func (r reply) objects(t *testing.T) []map[string]any {
	t.Helper()
	var list []map[string]any
	r.ok(t, &list)
	return list
}

// gunzipBase64 reverses the service's base64-of-gzip encoding.
func gunzipBase64(t *testing.T, s string) []byte {
	t.Helper()
	plain, ok := tryGunzipBase64([]byte(s))
	require.True(t, ok, "not base64 of gzip: %.80s", s)
	return plain
}

// tryGunzipBase64 reverses the base64-of-gzip encoding, reporting whether b was so encoded.
func tryGunzipBase64(b []byte) ([]byte, bool) {
	zipped, err := base64.StdEncoding.DecodeString(string(b))
	if err != nil {
		return nil, false
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		return nil, false
	}
	plain, err := io.ReadAll(zr)
	return plain, err == nil
}
