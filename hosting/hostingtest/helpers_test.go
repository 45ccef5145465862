package hostingtest_test

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting/hostingtest"
	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/internal/testkit"
)

// scan checks that no credential a client of this suite sends ever reaches a log line or an
// error string.
var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }

// otherToken is a second account's token in tests.
const otherToken = "other-account-token-5b1e0c9d7a3f48e2b6d4"

// errorText returns the error member of an ok:false envelope, failing when the answer is
// not one.
func errorText(t *testing.T, a testkit.Raw) string {
	t.Helper()
	require.NotNil(t, a.JSON, "not a JSON answer: %s", a.Body)
	require.Equal(t, false, a.JSON["ok"], string(a.Body))
	text, ok := a.JSON["error"].(string)
	require.True(t, ok, "error is not a string: %s", a.Body)
	require.NotEmpty(t, text)
	return text
}

// send sends a request to srv with the given headers and a body ("" for none), without
// following redirects, and reads the answer.
func send(t testing.TB, srv *hostingtest.Server, method, path, body string, header map[string]string) testkit.Raw {
	t.Helper()
	return testkit.Do(t, srv.Client(), method, srv.URL+path, body, header)
}

// call sends an API request authenticated with token as Bearer, with a JSON body when body
// is not "".
func call(t testing.TB, srv *hostingtest.Server, token, method, path, body string) testkit.Raw {
	t.Helper()
	h := map[string]string{"Authorization": "Bearer " + token}
	if body != "" {
		h["Content-Type"] = "application/json"
	}
	return send(t, srv, method, path, body, h)
}

// mustOK sends an API request as the default account and requires a 2xx ok:true answer.
func mustOK(t testing.TB, srv *hostingtest.Server, method, path, body string) testkit.Raw {
	t.Helper()
	a := call(t, srv, hostingtest.DefaultToken, method, path, body)
	require.True(t, a.Status >= 200 && a.Status < 300, "%s %s: %d %s", method, path, a.Status, a.Body)
	require.Equal(t, true, a.JSON["ok"], string(a.Body))
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

// gitBlobSHA is git's object hash of a blob, computed here independently of the fake.
func gitBlobSHA(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}
