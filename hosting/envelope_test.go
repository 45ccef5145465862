package hosting_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting"
)

func TestOKFalseInA200IsAnAPIErrorAndNotRetried(t *testing.T) {
	t.Parallel()
	srv := serve(t, answer(http.StatusOK, `{"ok":false,"error":"repository is archived"}`))
	c := newClient(t, srv.URL, withFastRetry)
	_, err := c.GetRepo(t.Context(), "blog")
	ae := apiError(t, err)
	assert.Equal(t, http.StatusOK, ae.StatusCode)
	assert.Equal(t, "repository is archived", ae.Message)
	assert.Empty(t, ae.Code)
	assert.Equal(t, "/api/v1/repos/blog", ae.Path)
	assert.JSONEq(t, `{"ok":false,"error":"repository is archived"}`, string(ae.Body))
	assert.Contains(t, err.Error(), "repository is archived")
	assert.Len(t, srv.requests(), 1, "a failure the service acted on is not repeated")
}

func TestOKFalseWinsOverAMalformedPayload(t *testing.T) {
	t.Parallel()
	srv := serve(t, answer(http.StatusOK, `{"ok":false,"error":"quota exceeded","files":"not a list"}`))
	_, err := newClient(t, srv.URL).GetRepo(t.Context(), "blog")
	assert.Equal(t, "quota exceeded", apiError(t, err).Message)
}

func TestErrorStatusesCarryTheEnvelopeText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status        int
		body          string
		code, message string
	}{
		{http.StatusNotFound, `{"ok":false,"error":"repository not found"}`, "", "repository not found"},
		{http.StatusConflict, `{"ok":false,"error":{"code":"name_taken","message":"name already taken"}}`, "name_taken", "name already taken"},
		{http.StatusBadRequest, `{"ok":false,"error":"bad name","code":"E_NAME"}`, "E_NAME", "bad name"},
		{http.StatusBadRequest, `{"message":"Bad Request"}`, "", "Bad Request"},
		{http.StatusInternalServerError, `<html>oops</html>`, "", ""},
	} {
		srv := serve(t, answer(tc.status, tc.body))
		_, err := newClient(t, srv.URL).ListRepos(t.Context())
		ae := apiError(t, err)
		assert.Equal(t, tc.status, ae.StatusCode, tc.body)
		assert.Equal(t, tc.code, ae.Code, tc.body)
		assert.Equal(t, tc.message, ae.Message, tc.body)
		assert.Equal(t, tc.body, string(ae.Body))
	}
}

func TestA2xxWithoutOKIsADecodeError(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"repos":[]}`, `{"ok":null,"repos":[]}`, `<html>login</html>`, `[]`, `{"ok":"true","repos":[]}`} {
		srv := serve(t, answer(http.StatusOK, body))
		_, err := newClient(t, srv.URL).ListRepos(t.Context())
		de := decodeError(t, err)
		assert.Equal(t, http.StatusOK, de.StatusCode, body)
		assert.Equal(t, "/api/v1/repos", de.Path)
	}
	srv := serve(t, answer(http.StatusOK, `{"path":"a.txt"}`))
	_, err := newClient(t, srv.URL).DeleteFile(t.Context(), "blog", "a.txt")
	assert.ErrorContains(t, decodeError(t, err), `"ok" is missing`, "even a call whose payload is not read checks the envelope")
}

func TestRateLimitIsTyped(t *testing.T) {
	t.Parallel()
	srv := serve(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set("Retry-After", "7")
		w.Header().Set("X-RateLimit-Remaining", "0")
		reply(w, http.StatusTooManyRequests, `{"ok":false,"error":"slow down"}`)
	})
	_, err := newClient(t, srv.URL).ListRepos(t.Context())
	var rl *hosting.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, "slow down", rl.Message)
	assert.Equal(t, 7*time.Second, rl.RetryAfter)
	require.NotNil(t, rl.RateLimit)
	assert.Equal(t, 0, *rl.RateLimit.Remaining)
}
