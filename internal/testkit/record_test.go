package testkit

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/sdktest"
)

func TestRecordAnswersAndRecordsAsTheFakesDo(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	clock := sdktest.NewClock(at)
	var bodies []string
	rec := RecordOn(t, clock, func(w http.ResponseWriter, r *http.Request, body []byte) {
		bodies = append(bodies, string(body))
		if r.URL.Path == "/missing" {
			Reply(w, http.StatusNotFound, `{"error":"gone"}`)
			return
		}
		Reply(w, http.StatusOK, `{"ok":true}`)
	})
	resp, err := rec.Client().Post(rec.URL+"/items?x=1", "text/plain", strings.NewReader("hello"))
	require.NoError(t, err)
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.JSONEq(t, `{"ok":true}`, string(got))
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	resp, err = rec.Client().Get(rec.URL + "/missing")
	require.NoError(t, err)
	resp.Body.Close()

	assert.Equal(t, []string{"hello", ""}, bodies, "the handler gets the whole body")
	reqs := rec.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, sdktest.Request{Time: at, Method: http.MethodPost, Path: "/items", Query: map[string][]string{"x": {"1"}},
		Header: reqs[0].Header, Body: []byte("hello"), Status: http.StatusOK}, reqs[0])
	assert.Equal(t, "text/plain", reqs[0].Header.Get("Content-Type"))
	assert.Equal(t, 1, CountStatus(reqs, http.StatusNotFound))
	assert.Equal(t, 1, rec.RequestCount(http.MethodGet, "/missing"))
}

func TestAnswerGivesEveryRequestTheSameAnswer(t *testing.T) {
	t.Parallel()
	rec := Record(t, Answer(http.StatusServiceUnavailable, `{"error":"busy"}`))
	rec.InjectFaults(sdktest.Fault{Status: http.StatusTeapot})
	for _, want := range []int{http.StatusTeapot, http.StatusServiceUnavailable, http.StatusServiceUnavailable} {
		resp, err := rec.Client().Get(rec.URL + "/x")
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, want, resp.StatusCode, "an injected fault first, then the answer")
	}
	assert.Equal(t, 2, CountStatus(rec.Requests(), http.StatusServiceUnavailable))
	assert.WithinDuration(t, time.Now(), rec.Requests()[0].Time, time.Minute, "Record reads the wall clock")
}

func TestHeaderLogSeesTheHeadersAsSent(t *testing.T) {
	t.Parallel()
	rec := Record(t, Answer(http.StatusOK, `{}`))
	log := &HeaderLog{}
	for _, key := range []string{"first-key", "second-key"} {
		req, err := http.NewRequest(http.MethodGet, rec.URL, nil)
		require.NoError(t, err)
		req.Header.Set("X-API-Key", key)
		resp, err := log.Client().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
	}
	sent := log.Sent()
	require.Len(t, sent, 2)
	assert.Equal(t, "first-key", sent[0].Get("X-API-Key"))
	assert.Equal(t, "second-key", sent[1].Get("X-API-Key"))
}
