package hostingtest_test

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting/hostingtest"
)

// otherToken is a second account's token in tests.
const otherToken = "other-account-token-5b1e0c9d7a3f48e2b6d4"

// answer is a raw answer of the fake.
type answer struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any // the decoded JSON object, nil when the body is not JSON
}

// errorText returns the error member of an ok:false envelope, failing when the answer is
// not one.
func (a answer) errorText(t *testing.T) string {
	t.Helper()
	require.NotNil(t, a.body, "not a JSON answer: %s", a.raw)
	require.Equal(t, false, a.body["ok"], string(a.raw))
	text, ok := a.body["error"].(string)
	require.True(t, ok, "error is not a string: %s", a.raw)
	require.NotEmpty(t, text)
	return text
}

// object returns a member of the answer that is a JSON object.
func (a answer) object(t *testing.T, name string) map[string]any {
	t.Helper()
	m, ok := a.body[name].(map[string]any)
	require.True(t, ok, "%s is not an object in %s", name, a.raw)
	return m
}

// list returns a member of the answer that is a JSON array of objects.
func (a answer) list(t *testing.T, name string) []map[string]any {
	t.Helper()
	items, ok := a.body[name].([]any)
	require.True(t, ok, "%s is not an array in %s", name, a.raw)
	out := make([]map[string]any, len(items))
	for i, it := range items {
		out[i], ok = it.(map[string]any)
		require.True(t, ok, "%s[%d] is not an object", name, i)
	}
	return out
}

// start starts a fake that closes when the test ends.
func start(t testing.TB, opts ...hostingtest.Option) *hostingtest.Server {
	t.Helper()
	srv := hostingtest.NewServer(opts...)
	t.Cleanup(srv.Close)
	return srv
}

// send sends a request with the given headers and a body ("" for none) and reads the answer.
func send(t testing.TB, srv *hostingtest.Server, method, path, body string, header map[string]string) answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, rd)
	require.NoError(t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	client := *srv.Client() // a copy: the server's client is shared
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	a := answer{status: resp.StatusCode, header: resp.Header, raw: raw}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		require.NoError(t, json.Unmarshal(raw, &a.body), string(raw))
	}
	return a
}

// call sends an API request authenticated with token as Bearer, with a JSON body when body
// is not "".
func call(t testing.TB, srv *hostingtest.Server, token, method, path, body string) answer {
	t.Helper()
	h := map[string]string{"Authorization": "Bearer " + token}
	if body != "" {
		h["Content-Type"] = "application/json"
	}
	return send(t, srv, method, path, body, h)
}

// mustOK sends an API request as the default account and requires a 2xx ok:true answer.
func mustOK(t testing.TB, srv *hostingtest.Server, method, path, body string) answer {
	t.Helper()
	a := call(t, srv, hostingtest.DefaultToken, method, path, body)
	require.True(t, a.status >= 200 && a.status < 300, "%s %s: %d %s", method, path, a.status, a.raw)
	require.Equal(t, true, a.body["ok"], string(a.raw))
	return a
}

// jsonString encodes s as a JSON string.
func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// createRepo creates a repository of the default account.
func createRepo(t testing.TB, srv *hostingtest.Server, name string) {
	t.Helper()
	mustOK(t, srv, "POST", "/api/v1/repos", fmt.Sprintf(`{"name":%s}`, jsonString(name)))
}

// answered counts the requests srv answered with status.
func answered(srv *hostingtest.Server, status int) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Status == status {
			n++
		}
	}
	return n
}

// gitBlobSHA is git's object hash of a blob, computed here independently of the fake.
func gitBlobSHA(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}
