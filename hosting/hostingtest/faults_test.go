package hostingtest_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting/hostingtest"
)

func TestGatewayStripsAuthorization(t *testing.T) {
	t.Parallel()
	srv := start(t, hostingtest.WithGatewayStripsAuthorization())

	a := call(t, srv, hostingtest.DefaultToken, "GET", "/api/v1/repos", "")
	assert.Equal(t, 401, a.status)
	assert.NotContains(t, a.errorText(t), hostingtest.DefaultToken)

	a = send(t, srv, "GET", "/api/v1/repos", "", map[string]string{"X-API-Token": hostingtest.DefaultToken})
	assert.Equal(t, 200, a.status)
	a = send(t, srv, "GET", "/api/v1/repos", "", map[string]string{"Authorization": "Bearer " + hostingtest.DefaultToken, "X-API-Token": hostingtest.DefaultToken})
	assert.Equal(t, 200, a.status, "with both headers the X-API-Token gets through")

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, []string{hostingtest.AuthAuthorization}, reqs[0].AuthHeaders)
	assert.Equal(t, hostingtest.AuthNone, reqs[0].Auth, "the Authorization header never reached the service")
	assert.Equal(t, 401, reqs[0].Status)
	assert.Equal(t, []string{hostingtest.AuthAPIToken}, reqs[1].AuthHeaders)
	assert.Equal(t, hostingtest.AuthAPIToken, reqs[1].Auth)
	assert.Equal(t, []string{hostingtest.AuthAuthorization, hostingtest.AuthAPIToken}, reqs[2].AuthHeaders)
	assert.Equal(t, hostingtest.AuthAPIToken, reqs[2].Auth)
	assert.Equal(t, 1, srv.Stats().Unauthorized)
}

// requireBlockPage checks that a is the CDN's HTML block page, not the JSON envelope.
func requireBlockPage(t *testing.T, a answer, label string) {
	t.Helper()
	assert.Equal(t, 403, a.status, label)
	assert.Equal(t, "text/html; charset=utf-8", a.header.Get("Content-Type"), label)
	assert.Nil(t, a.body, label)
	assert.Contains(t, string(a.raw), "you have been blocked", label)
	assert.NotContains(t, string(a.raw), `"ok"`, label)
}

func TestCDNBlocksRawMarkupInContent(t *testing.T) {
	t.Parallel()
	srv := start(t, hostingtest.WithCDNBlockRawHTML())
	createRepo(t, srv, "r")

	blocked := []string{
		"<html><body>x</body></html>", "<!DOCTYPE html>", "<!doctype HTML>", "text <SCRIPT>alert(1)</script>",
		`<svg xmlns="http://www.w3.org/2000/svg"/>`, `<?xml version="1.0"?><a/>`, "<iframe src=x>", "<Head>", "<style>a{}</style>",
	}
	for _, markup := range blocked {
		for _, method := range []string{"PUT", "POST"} {
			a := call(t, srv, hostingtest.DefaultToken, method, "/api/v1/repos/r/files/page.html", `{"content":`+jsonString(markup)+`}`)
			requireBlockPage(t, a, method+" "+markup)
		}
	}
	// The firewall reads the JSON: markup escaped as \u003c is still markup.
	a := call(t, srv, hostingtest.DefaultToken, "PUT", "/api/v1/repos/r/files/page.html", `{"content":"\u003chtml\u003e"}`)
	requireBlockPage(t, a, "escaped markup")
	// It acts before authentication.
	a = send(t, srv, "PUT", "/api/v1/repos/r/files/page.html", `{"content":"<html>"}`, map[string]string{"Content-Type": "application/json"})
	requireBlockPage(t, a, "without a token")
	assert.Empty(t, srv.Files("r"), "nothing blocked was stored")

	for _, markup := range blocked {
		mustOK(t, srv, "PUT", "/api/v1/repos/r/files/page.html", `{"content_base64":"`+base64.StdEncoding.EncodeToString([]byte(markup))+`"}`)
		got, _ := srv.File("r", "page.html")
		assert.Equal(t, markup, string(got))
	}
	for _, text := range []string{"a < b and c > d", "<p>plain paragraphs pass</p>", "html: yes"} {
		mustOK(t, srv, "PUT", "/api/v1/repos/r/files/notes.md", `{"content":`+jsonString(text)+`}`)
	}

	st := srv.Stats()
	assert.Equal(t, 2*len(blocked)+2, st.Forbidden)
	assert.Equal(t, len(blocked)+3, st.PutWrites)
	nBlocked := 0
	for _, r := range srv.Requests() {
		if r.Blocked {
			nBlocked++
			assert.Equal(t, 403, r.Status)
			assert.Equal(t, "content", r.Encoding)
		}
	}
	assert.Equal(t, st.Forbidden, nBlocked)
}

func TestCDNBlocksPUTButNotPOST(t *testing.T) {
	t.Parallel()
	srv := start(t, hostingtest.WithCDNBlockPUT())
	createRepo(t, srv, "r")
	html := base64.StdEncoding.EncodeToString([]byte("<!DOCTYPE html><p>hi"))

	a := call(t, srv, hostingtest.DefaultToken, "PUT", "/api/v1/repos/r/files/index.html", `{"content_base64":"`+html+`"}`)
	requireBlockPage(t, a, "PUT of base64")
	a = call(t, srv, hostingtest.DefaultToken, "PUT", "/api/v1/repos/r/files/a.txt", `{"content":"plain"}`)
	requireBlockPage(t, a, "PUT of text")
	assert.Empty(t, srv.Files("r"))

	mustOK(t, srv, "POST", "/api/v1/repos/r/files/index.html", `{"content_base64":"`+html+`"}`)
	got, _ := srv.File("r", "index.html")
	assert.Equal(t, "<!DOCTYPE html><p>hi", string(got))
	a = call(t, srv, hostingtest.DefaultToken, "PUT", "/api/v1/repos/r", `{}`)
	assert.Equal(t, 405, a.status, "only file addresses are blocked")

	st := srv.Stats()
	assert.Equal(t, 2, st.Forbidden)
	assert.Equal(t, 0, st.PutWrites)
	assert.Equal(t, 1, st.PostWrites)
}

// writeMany writes n files named f<i>.txt, concurrently when parallel, and returns the
// status of each write.
func writeMany(t *testing.T, srv *hostingtest.Server, repo string, n int, parallel bool) []int {
	t.Helper()
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		write := func() {
			a := call(t, srv, hostingtest.DefaultToken, "PUT", fmt.Sprintf("/api/v1/repos/%s/files/f%d.txt", repo, i), fmt.Sprintf(`{"content":"%d"}`, i))
			statuses[i] = a.status
			if a.status >= 500 {
				assert.NotEmpty(t, a.errorText(t))
			}
		}
		if parallel {
			wg.Add(1)
			go func() { defer wg.Done(); write() }()
		} else {
			write()
		}
	}
	wg.Wait()
	return statuses
}

func TestWriteFailuresAreDeterministic(t *testing.T) {
	t.Parallel()
	const n = 400
	srv := start(t, hostingtest.WithWriteFailures(0.25, 7))
	createRepo(t, srv, "r")
	first := writeMany(t, srv, "r", n, false)

	failed := 0
	seen := map[int]int{}
	for i, status := range first {
		seen[status]++
		stored, ok := srv.File("r", fmt.Sprintf("f%d.txt", i))
		if status == 200 {
			assert.True(t, ok)
			assert.Equal(t, fmt.Sprint(i), string(stored))
			continue
		}
		failed++
		assert.Contains(t, []int{500, 503}, status)
		assert.False(t, ok, "a failed write stores nothing")
	}
	assert.InDelta(t, 0.25, float64(failed)/n, 0.06, "about a quarter of the writes fail")
	assert.Positive(t, seen[500])
	assert.Positive(t, seen[503])
	assert.Equal(t, failed, srv.Stats().FailedWrites)
	assert.Equal(t, n-failed, srv.Stats().PutWrites)

	// The same seed fails the same writes, whatever order they arrive in.
	again := start(t, hostingtest.WithWriteFailures(0.25, 7))
	createRepo(t, again, "r")
	assert.Equal(t, first, writeMany(t, again, "r", n, true))

	other := start(t, hostingtest.WithWriteFailures(0.25, 8))
	createRepo(t, other, "r")
	assert.NotEqual(t, first, writeMany(t, other, "r", n, false), "another seed fails other writes")

	// A write sent again draws afresh, so retries get through.
	for i, status := range first {
		for attempt := 0; status != 200; attempt++ {
			require.Less(t, attempt, 20, "a write kept failing")
			status = call(t, srv, hostingtest.DefaultToken, "PUT", fmt.Sprintf("/api/v1/repos/r/files/f%d.txt", i), fmt.Sprintf(`{"content":"%d"}`, i)).status
		}
	}
	assert.Len(t, srv.Files("r"), n)
}

func TestWriteFailureShareBounds(t *testing.T) {
	t.Parallel()
	srv := start(t, hostingtest.WithWriteFailures(1, 1))
	createRepo(t, srv, "r")
	for _, status := range writeMany(t, srv, "r", 20, false) {
		assert.Contains(t, []int{500, 503}, status)
	}
	assert.Empty(t, srv.Files("r"))
	mustOK(t, srv, "POST", "/api/v1/repos/r/commit", `{"message":"commits are not file writes"}`)

	srv.SetWriteFailures(0, 1)
	for _, status := range writeMany(t, srv, "r", 20, false) {
		assert.Equal(t, 200, status)
	}
	srv.SetWriteFailures(5, 1) // clamped to 1
	for _, status := range writeMany(t, srv, "r", 20, false) {
		assert.Contains(t, []int{500, 503}, status)
	}
}

func TestLatencyDelaysEveryRequestAndEndsWithTheClient(t *testing.T) {
	t.Parallel()
	const d = 50 * time.Millisecond
	srv := start(t, hostingtest.WithLatency(d))
	began := time.Now()
	mustOK(t, srv, "GET", "/api/v1/repos", "")
	assert.GreaterOrEqual(t, time.Since(began), d, "the answer came before the latency")

	ctx, cancel := context.WithTimeout(t.Context(), d/5)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/v1/repos", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+hostingtest.DefaultToken)
	_, err = srv.Client().Do(req)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Eventually(t, func() bool { return len(srv.Requests()) == 2 }, 5*time.Second, 5*time.Millisecond)
	assert.Equal(t, 0, srv.Requests()[1].Status, "a request whose client left gets no answer")
}

func TestConcurrentWritesAreAllStored(t *testing.T) {
	t.Parallel()
	srv := start(t, hostingtest.WithLatency(5*time.Millisecond))
	createRepo(t, srv, "r")
	statuses := writeMany(t, srv, "r", 300, true)
	for i, s := range statuses {
		assert.Equal(t, 200, s, i)
	}
	assert.Len(t, srv.Files("r"), 300)
	assert.Equal(t, 300, srv.Stats().PutWrites)
}

func TestRequestLogNeverHoldsAToken(t *testing.T) {
	t.Parallel()
	srv := start(t, hostingtest.WithAccount(otherToken, "other"), hostingtest.WithGatewayStripsAuthorization())
	createRepoVia := func(h map[string]string, name string) {
		h["Content-Type"] = "application/json"
		send(t, srv, "POST", "/api/v1/repos", `{"name":"`+name+`"}`, h)
	}
	createRepoVia(map[string]string{"X-API-Token": hostingtest.DefaultToken}, "a")
	createRepoVia(map[string]string{"Authorization": "Bearer " + otherToken}, "b")
	send(t, srv, "GET", "/api/v1/repos?token="+hostingtest.DefaultToken, "", map[string]string{"X-API-Token": hostingtest.DefaultToken})
	send(t, srv, "GET", "/api/v1/repos/"+otherToken, "", map[string]string{"X-API-Token": otherToken})
	send(t, srv, "GET", "/site/a/?api_token="+otherToken, "", nil)

	reqs := srv.Requests()
	require.Len(t, reqs, 5)
	for _, r := range reqs {
		dump := fmt.Sprintf("%#v", r)
		assert.NotContains(t, dump, hostingtest.DefaultToken)
		assert.NotContains(t, dump, otherToken)
	}
	assert.Equal(t, []bool{false, false, true, true, true}, []bool{reqs[0].TokenInURL, reqs[1].TokenInURL, reqs[2].TokenInURL, reqs[3].TokenInURL, reqs[4].TokenInURL})
	assert.Equal(t, "/api/v1/repos/[token]", reqs[3].Path)
	assert.Equal(t, "/api/v1/repos", reqs[2].Path, "the query is not recorded")
	assert.True(t, strings.HasPrefix(reqs[4].Path, "/site/a/"))
}
