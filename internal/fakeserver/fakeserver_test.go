package fakeserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/sdktest"
)

func TestRecordsRequestsWithCredentialsRedacted(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(b)
	}), Config{Credentials: []string{"x-api-key"}, Now: func() time.Time { return at }})
	defer s.Close()
	req, err := http.NewRequest(http.MethodPost, s.URL+"/v1/a%20b?x=1&x=2", strings.NewReader("hello"))
	require.NoError(t, err)
	req.Header.Set("X-API-Key", "secret-value-123")
	req.Header.Set("Accept", "application/json")
	resp, err := s.Client().Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	got := s.Requests()
	require.Len(t, got, 1)
	r := got[0]
	assert.Equal(t, at, r.Time)
	assert.Equal(t, http.MethodPost, r.Method)
	assert.Equal(t, "/v1/a%20b", r.Path)
	assert.Equal(t, []string{"1", "2"}, r.Query["x"])
	assert.Equal(t, []string{sdktest.Redacted}, r.Header["X-Api-Key"])
	assert.Equal(t, "application/json", r.Header.Get("Accept"))
	assert.Equal(t, "hello", string(r.Body))
	assert.Equal(t, http.StatusCreated, r.Status)
	assert.Equal(t, 1, s.RequestCount(http.MethodPost, "/v1/a%20b"))
	assert.Equal(t, 0, s.RequestCount(http.MethodGet, ""))
	got[0].Header.Set("Accept", "changed")
	assert.Equal(t, "application/json", s.Requests()[0].Header.Get("Accept"), "a copy is returned")
}

func TestFaultsAreTakenInOrderAndUsedUp(t *testing.T) {
	t.Parallel()
	s := Start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }), Config{})
	defer s.Close()
	s.InjectFaults(
		sdktest.Fault{Path: "/other", Status: 418},
		sdktest.Fault{Method: http.MethodGet, Status: http.StatusTooManyRequests, Code: "slow_down", Message: "wait", RetryAfter: 1500 * time.Millisecond, Times: 2, Header: http.Header{"X-Test": {"1"}}},
	)
	get := func(path string) (*http.Response, string) {
		resp, err := s.Client().Get(s.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	for range 2 {
		resp, body := get("/x")
		assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
		assert.Equal(t, "2", resp.Header.Get("Retry-After"), "rounded up to whole seconds")
		assert.Equal(t, "1", resp.Header.Get("X-Test"))
		assert.JSONEq(t, `{"error":{"code":"slow_down","message":"wait"}}`, body)
	}
	resp, body := get("/x")
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the fault was used up after Times requests")
	assert.Equal(t, "ok", body)
	resp, _ = get("/other")
	assert.Equal(t, 418, resp.StatusCode)
	statuses := []int{}
	for _, r := range s.Requests() {
		statuses = append(statuses, r.Status)
	}
	assert.Equal(t, []int{429, 429, 200, 418}, statuses)
}

func TestDropClosesTheConnectionWithoutAnAnswer(t *testing.T) {
	t.Parallel()
	s := Start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}), Config{})
	defer s.Close()
	s.InjectFaults(sdktest.Fault{Drop: true})
	_, err := s.Client().Get(s.URL + "/x")
	require.Error(t, err)
	require.Len(t, s.Requests(), 1)
	assert.Equal(t, 0, s.Requests()[0].Status)
}

func TestCloseEndsEveryWaitOfAHandler(t *testing.T) {
	t.Parallel()
	entered := make(chan struct{}, 2)
	s := Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-r.Context().Done() // a stall that only the client or Close ends
	}), Config{})
	s.InjectFaults(sdktest.Fault{Path: "/delayed", Delay: time.Hour})
	for _, p := range []string{"/stall", "/delayed"} {
		go func() {
			resp, err := s.Client().Get(s.URL + p)
			if err == nil {
				resp.Body.Close()
			}
		}()
	}
	<-entered
	require.Eventually(t, func() bool { return len(s.Requests()) == 2 }, 5*time.Second, time.Millisecond)
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited on a stalled handler")
	}
}

func TestAttachedExtrasComeBackWithTheRecord(t *testing.T) {
	t.Parallel()
	var s *Server
	s = Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.Attach(r, "accepted") }), Config{})
	defer s.Close()
	resp, err := s.Client().Get(s.URL + "/x")
	require.NoError(t, err)
	resp.Body.Close()
	recs := s.Records()
	require.Len(t, recs, 1)
	assert.Equal(t, "accepted", recs[0].Extra)
	assert.Equal(t, http.StatusOK, recs[0].Status)
}

func TestWaitEndsWithTheContext(t *testing.T) {
	t.Parallel()
	assert.True(t, Wait(t.Context(), time.Millisecond))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.False(t, Wait(ctx, time.Hour))
}

// A client that has read the whole answer finds its status recorded, even while the handler
// is still running after it answered.
func TestTheStatusIsRecordedAsTheAnswerStarts(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	s := Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		http.NewResponseController(w).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}), Config{})
	defer s.Close()
	defer close(release)
	resp, err := s.Client().Get(s.URL + "/x")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	assert.Equal(t, http.StatusAccepted, s.Requests()[0].Status)
}

func TestSecretsAreScrubbedFromEveryPartOfARecord(t *testing.T) {
	t.Parallel()
	const token = "tok/4b1d 9e2a"
	issued := []string{}
	s := Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}), Config{
		Secrets:     func() []string { return append([]string{""}, issued...) },
		SecretQuery: func(name string) bool { return strings.EqualFold(name, "api_key") },
	})
	defer s.Close()
	target := s.URL + "/files/" + url.PathEscape(token) + "?api_key=k-123&q=" + url.QueryEscape(token) + "&" + url.QueryEscape(token) + "=1"
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(`{"note":"`+token+`"}`))
	require.NoError(t, err)
	req.Header.Set("X-Echo", token)
	resp, err := s.Client().Do(req)
	require.NoError(t, err)
	resp.Body.Close()

	r := s.Requests()[0]
	assert.Equal(t, []string{sdktest.Redacted}, r.Query["api_key"], "a secret parameter, whatever the issued tokens")
	assert.Equal(t, []string{token}, r.Query["q"], "a token is scrubbed only once it is known")

	issued = append(issued, token) // issued after the request: scrubbed when read
	r = s.Records()[0].Request
	assert.Equal(t, "/files/"+sdktest.Redacted, r.Path)
	assert.Equal(t, url.Values{"api_key": {sdktest.Redacted}, "q": {sdktest.Redacted}, sdktest.Redacted: {"1"}}, r.Query)
	assert.Equal(t, sdktest.Redacted, r.Header.Get("X-Echo"))
	assert.Equal(t, `{"note":"`+sdktest.Redacted+`"}`, string(r.Body))
	assert.Equal(t, 1, s.RequestCount(http.MethodPost, "/files/"+url.PathEscape(token)), "the count reads the path as sent")
}

func TestWriteJSONAndPeerHost(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	WriteJSON(w, http.StatusTeapot, map[string]int{"n": 1})
	assert.Equal(t, http.StatusTeapot, w.Code)
	assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
	assert.JSONEq(t, `{"n":1}`, w.Body.String())

	for addr, want := range map[string]string{"192.0.2.1:5678": "192.0.2.1", "[2001:db8::1]:443": "2001:db8::1", "pipe": "pipe"} {
		assert.Equal(t, want, PeerHost(&http.Request{RemoteAddr: addr}), addr)
	}
}
