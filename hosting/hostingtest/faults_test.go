package hostingtest_test

import (
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting/hostingtest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
)

func TestGatewayStripsAuthorization(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithGatewayStripsAuthorization()))

	a := call(t, srv, hostingtest.DefaultToken, "GET", "/api/v1/repos", "")
	assert.Equal(t, 401, a.Status)
	assert.NotContains(t, errorText(t, a), hostingtest.DefaultToken)

	a = send(t, srv, "GET", "/api/v1/repos", "", map[string]string{"X-API-Token": hostingtest.DefaultToken})
	assert.Equal(t, 200, a.Status)
	a = send(t, srv, "GET", "/api/v1/repos", "", map[string]string{"Authorization": "Bearer " + hostingtest.DefaultToken, "X-API-Token": hostingtest.DefaultToken})
	assert.Equal(t, 200, a.Status, "with both headers the X-API-Token gets through")

	reqs := srv.Exchanges()
	require.Len(t, reqs, 3)
	assert.Equal(t, []string{hostingtest.AuthAuthorization}, reqs[0].AuthHeaders)
	assert.Equal(t, hostingtest.AuthNone, reqs[0].Auth, "the Authorization header never reached the service")
	assert.Equal(t, 401, reqs[0].Status)
	assert.Equal(t, []string{hostingtest.AuthAPIToken}, reqs[1].AuthHeaders)
	assert.Equal(t, hostingtest.AuthAPIToken, reqs[1].Auth)
	assert.Equal(t, []string{hostingtest.AuthAuthorization, hostingtest.AuthAPIToken}, reqs[2].AuthHeaders)
	assert.Equal(t, hostingtest.AuthAPIToken, reqs[2].Auth)
	assert.Equal(t, 1, testkit.CountStatus(srv.Requests(), 401))
}

// requireBlockPage checks that a is the CDN's HTML block page, not the JSON envelope.
func requireBlockPage(t *testing.T, a testkit.Raw, label string) {
	t.Helper()
	assert.Equal(t, 403, a.Status, label)
	assert.Equal(t, "text/html; charset=utf-8", a.Header.Get("Content-Type"), label)
	assert.Nil(t, a.JSON, label)
	assert.Contains(t, string(a.Body), "you have been blocked", label)
	assert.NotContains(t, string(a.Body), `"ok"`, label)
}

func TestCDNBlocksRawMarkupInContent(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithCDNBlockRawHTML()))
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

	forbidden := testkit.CountStatus(srv.Requests(), 403)
	assert.Equal(t, 2*len(blocked)+2, forbidden)
	assert.Equal(t, len(blocked)+3, srv.Stats().PutWrites)
	nBlocked := 0
	for _, r := range srv.Exchanges() {
		if r.Blocked {
			nBlocked++
			assert.Equal(t, 403, r.Status)
			assert.Equal(t, "content", r.Encoding)
		}
	}
	assert.Equal(t, forbidden, nBlocked)
}

func TestCDNBlocksPUTButNotPOST(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithCDNBlockPUT()))
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
	assert.Equal(t, 405, a.Status, "only file addresses are blocked")

	st := srv.Stats()
	assert.Equal(t, 2, testkit.CountStatus(srv.Requests(), 403))
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
			statuses[i] = a.Status
			if a.Status >= 500 {
				assert.NotEmpty(t, errorText(t, a))
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
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithWriteFailures(0.25, 7)))
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
	again := testkit.Start(t, hostingtest.NewServer(hostingtest.WithWriteFailures(0.25, 7)))
	createRepo(t, again, "r")
	assert.Equal(t, first, writeMany(t, again, "r", n, true))

	other := testkit.Start(t, hostingtest.NewServer(hostingtest.WithWriteFailures(0.25, 8)))
	createRepo(t, other, "r")
	assert.NotEqual(t, first, writeMany(t, other, "r", n, false), "another seed fails other writes")

	// A write sent again draws afresh, so retries get through.
	for i, status := range first {
		for attempt := 0; status != 200; attempt++ {
			require.Less(t, attempt, 20, "a write kept failing")
			status = call(t, srv, hostingtest.DefaultToken, "PUT", fmt.Sprintf("/api/v1/repos/r/files/f%d.txt", i), fmt.Sprintf(`{"content":"%d"}`, i)).Status
		}
	}
	assert.Len(t, srv.Files("r"), n)
}

func TestWriteFailureShareBounds(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithWriteFailures(1, 1)))
	createRepo(t, srv, "r")
	for _, status := range writeMany(t, srv, "r", 20, false) {
		assert.Contains(t, []int{500, 503}, status)
	}
	assert.Empty(t, srv.Files("r"))
	mustOK(t, srv, "POST", "/api/v1/repos/r/commit", `{"message":"commits are not file writes"}`)

	none := testkit.Start(t, hostingtest.NewServer(hostingtest.WithWriteFailures(0, 1)))
	createRepo(t, none, "r")
	for _, status := range writeMany(t, none, "r", 20, false) {
		assert.Equal(t, 200, status)
	}
	all := testkit.Start(t, hostingtest.NewServer(hostingtest.WithWriteFailures(5, 1))) // clamped to 1
	createRepo(t, all, "r")
	for _, status := range writeMany(t, all, "r", 20, false) {
		assert.Contains(t, []int{500, 503}, status)
	}
}

func TestLatencyDelaysEveryRequest(t *testing.T) {
	t.Parallel()
	const d = 50 * time.Millisecond
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithLatency(d)))
	began := time.Now()
	mustOK(t, srv, "GET", "/api/v1/repos", "")
	assert.GreaterOrEqual(t, time.Since(began), d, "the answer came before the latency")
}

func TestLatencyEndsUnansweredWhenTheClientLeaves(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithLatency(time.Hour)))
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "GET /api/v1/repos HTTP/1.1\r\nHost: fake\r\nAuthorization: Bearer %s\r\n\r\n", hostingtest.DefaultToken)
	require.NoError(t, err)
	require.NoError(t, conn.(*net.TCPConn).CloseWrite(), "the client leaves")
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	got, err := io.ReadAll(conn)
	require.NoError(t, err, "the server hung up long before the hour of latency")
	assert.Empty(t, got, "a request whose client left gets no answer")
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Zero(t, reqs[0].Status)
}

func TestCloseEndsTheLatency(t *testing.T) {
	t.Parallel()
	srv := hostingtest.NewServer(hostingtest.WithLatency(time.Hour))
	sent := make(chan error, 1)
	go func() {
		resp, err := srv.Client().Get(srv.URL + "/api/v1/repos")
		if err == nil {
			resp.Body.Close()
		}
		sent <- err
	}()
	require.Eventually(t, func() bool { return srv.RequestCount("GET", "/api/v1/repos") == 1 }, 5*time.Second, time.Millisecond)
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the latency")
	}
	assert.Error(t, <-sent, "the waiting request is left unanswered")
	assert.Zero(t, srv.Requests()[0].Status)
}

func TestConcurrentWritesAreAllStored(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithLatency(5*time.Millisecond)))
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
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithAccount(otherToken, "other"), hostingtest.WithGatewayStripsAuthorization()))
	createRepoVia := func(h map[string]string, name string) {
		h["Content-Type"] = "application/json"
		send(t, srv, "POST", "/api/v1/repos", `{"name":"`+name+`"}`, h)
	}
	createRepoVia(map[string]string{"X-API-Token": hostingtest.DefaultToken}, "a")
	createRepoVia(map[string]string{"Authorization": "Bearer " + otherToken}, "b")
	send(t, srv, "GET", "/api/v1/repos?token="+hostingtest.DefaultToken, "", map[string]string{"X-API-Token": hostingtest.DefaultToken})
	send(t, srv, "GET", "/api/v1/repos/"+otherToken, "", map[string]string{"X-API-Token": otherToken})
	send(t, srv, "GET", "/site/a/?api_token="+otherToken, "", nil)

	reqs := srv.Exchanges()
	require.Len(t, reqs, 5)
	for _, r := range reqs {
		dump := fmt.Sprintf("%#v", r)
		assert.NotContains(t, dump, hostingtest.DefaultToken)
		assert.NotContains(t, dump, otherToken)
	}
	assert.Equal(t, []bool{false, false, true, true, true}, []bool{reqs[0].TokenInURL, reqs[1].TokenInURL, reqs[2].TokenInURL, reqs[3].TokenInURL, reqs[4].TokenInURL})
	assert.Equal(t, "/api/v1/repos/"+sdktest.Redacted, reqs[3].Path)
	assert.Equal(t, "/api/v1/repos", reqs[2].Path, "the query is apart from the path")
	assert.Equal(t, sdktest.Redacted, reqs[2].Query.Get("token"), "and its token is hidden")
	assert.Equal(t, sdktest.Redacted, reqs[0].Header.Get("X-API-Token"))
	assert.Equal(t, sdktest.Redacted, reqs[1].Header.Get("Authorization"))
	assert.True(t, strings.HasPrefix(reqs[4].Path, "/site/a/"))
}

func TestInjectedFaultsAnswerInTheEnvelope(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	createRepo(t, srv, "r")
	srv.InjectFaults(
		sdktest.Fault{Method: "PUT", Path: "/api/v1/repos/r/files/a.txt", Status: 503, Message: "storage busy", RetryAfter: 2 * time.Second, Times: 2},
		sdktest.Fault{Path: "/api/v1/repos/r", Status: 200, Code: "archived", Message: "repository is archived"},
		sdktest.Fault{Path: "/api/v1/repos/r/deployments", Status: 502},
		sdktest.Fault{Path: "/api/v1/repos/r/commit", Drop: true},
	)
	for range 2 {
		a := call(t, srv, hostingtest.DefaultToken, "PUT", "/api/v1/repos/r/files/a.txt", `{"content":"x"}`)
		assert.Equal(t, 503, a.Status)
		assert.Equal(t, "storage busy", errorText(t, a))
		assert.Equal(t, "2", a.Header.Get("Retry-After"))
		assert.NotContains(t, a.JSON, "code")
	}
	assert.Empty(t, srv.Files("r"), "a fault stores nothing")
	mustOK(t, srv, "PUT", "/api/v1/repos/r/files/a.txt", `{"content":"x"}`)

	a := call(t, srv, hostingtest.DefaultToken, "GET", "/api/v1/repos/r", "")
	assert.Equal(t, 200, a.Status, "a failure inside a successful answer")
	assert.Equal(t, "repository is archived", errorText(t, a))
	assert.Equal(t, "archived", a.JSON["code"])
	a = call(t, srv, hostingtest.DefaultToken, "GET", "/api/v1/repos/r/deployments", "")
	assert.Equal(t, 502, a.Status)
	assert.Equal(t, "Bad Gateway", errorText(t, a))

	req, err := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"/api/v1/repos/r/commit", strings.NewReader(`{"message":"m"}`))
	require.NoError(t, err)
	_, err = srv.Client().Do(req)
	assert.Error(t, err, "the connection was dropped")
	assert.Zero(t, srv.Stats().Commits)

	assert.Equal(t, 3, srv.RequestCount("PUT", "/api/v1/repos/r/files/a.txt"))
	assert.Equal(t, 1, srv.RequestCount("POST", "/api/v1/repos/r/commit"))
	reqs := srv.Exchanges()
	require.Len(t, reqs, 7)
	assert.Equal(t, []int{201, 503, 503, 200, 200, 502, 0}, []int{reqs[0].Status, reqs[1].Status, reqs[2].Status,
		reqs[3].Status, reqs[4].Status, reqs[5].Status, reqs[6].Status})
	assert.JSONEq(t, `{"content":"x"}`, string(reqs[1].Body), "a faulted request is recorded whole")
	assert.Equal(t, []string{hostingtest.AuthAuthorization}, reqs[1].AuthHeaders)
	assert.Equal(t, hostingtest.AuthNone, reqs[1].Auth, "a fault never reaches the service")
}
