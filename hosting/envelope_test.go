package hosting_test

import (
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/internal/testkit"
)

func TestOKFalseInA200IsAnAPIErrorAndNotRetried(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":false,"error":"repository is archived"}`))
	c := newClient(t, srv.URL, withFastRetry)
	_, err := c.Repo(t.Context(), "blog")
	ae := testkit.APIError(t, err)
	assert.Equal(t, http.StatusOK, ae.StatusCode)
	assert.Equal(t, "repository is archived", ae.Message)
	assert.Empty(t, ae.Code)
	assert.Equal(t, "/api/v1/repos/blog", ae.Path)
	assert.JSONEq(t, `{"ok":false,"error":"repository is archived"}`, string(ae.Body))
	assert.Contains(t, err.Error(), "repository is archived")
	assert.Len(t, srv.Requests(), 1, "a failure the service acted on is not repeated")
}

func TestOKFalseWinsOverAMalformedPayload(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":false,"error":"quota exceeded","files":"not a list"}`))
	_, err := newClient(t, srv.URL).Repo(t.Context(), "blog")
	assert.Equal(t, "quota exceeded", testkit.APIError(t, err).Message)
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
		srv := testkit.Record(t, testkit.Answer(tc.status, tc.body))
		_, err := newClient(t, srv.URL).Repos(t.Context())
		ae := testkit.APIError(t, err)
		assert.Equal(t, tc.status, ae.StatusCode, tc.body)
		assert.Equal(t, tc.code, ae.Code, tc.body)
		assert.Equal(t, tc.message, ae.Message, tc.body)
		assert.Equal(t, tc.body, string(ae.Body))
	}
}

func TestA2xxWithoutOKIsADecodeError(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"repos":[]}`, `{"ok":null,"repos":[]}`, `<html>login</html>`, `[]`, `{"ok":"true","repos":[]}`} {
		srv := testkit.Record(t, testkit.Answer(http.StatusOK, body))
		_, err := newClient(t, srv.URL).Repos(t.Context())
		de := testkit.DecodeError(t, err)
		assert.Equal(t, http.StatusOK, de.StatusCode, body)
		assert.Equal(t, "/api/v1/repos", de.Path)
	}
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"path":"a.txt"}`))
	_, err := newClient(t, srv.URL).DeleteFile(t.Context(), "blog", "a.txt")
	assert.ErrorContains(t, testkit.DecodeError(t, err), `"ok" is missing`, "even a call whose payload is not read checks the envelope")
}

func TestRateLimitIsTyped(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.Header().Set("Retry-After", "7")
		w.Header().Set("X-RateLimit-Remaining", "0")
		testkit.Reply(w, http.StatusTooManyRequests, `{"ok":false,"error":"slow down"}`)
	})
	_, err := newClient(t, srv.URL).Repos(t.Context())
	var rl *sdk.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, "slow down", rl.Message)
	assert.Equal(t, 7*time.Second, rl.RetryAfter)
	require.NotNil(t, rl.RateLimit)
	assert.Equal(t, 0, *rl.RateLimit.Remaining)
}

func TestStatusesMatchTheSentinels(t *testing.T) {
	t.Parallel()
	sentinels := []error{hosting.ErrUnauthorized, hosting.ErrForbidden, hosting.ErrNotFound, hosting.ErrConflict, hosting.ErrBlocked}
	for _, tc := range []struct {
		status      int
		contentType string
		body        string
		want        []error
	}{
		{http.StatusUnauthorized, "application/json", `{"ok":false,"error":"invalid token"}`, []error{hosting.ErrUnauthorized}},
		{http.StatusForbidden, "application/json", `{"ok":false,"error":"not yours"}`, []error{hosting.ErrForbidden}},
		{http.StatusForbidden, "text/html", `<html><body>Access denied</body></html>`, []error{hosting.ErrForbidden, hosting.ErrBlocked}},
		{http.StatusForbidden, "", `  <!DOCTYPE html><p>blocked`, []error{hosting.ErrForbidden, hosting.ErrBlocked}},
		{http.StatusNotFound, "application/json", `{"ok":false,"error":"repository not found"}`, []error{hosting.ErrNotFound}},
		{http.StatusConflict, "application/json", `{"ok":false,"error":"repository name already taken"}`, []error{hosting.ErrConflict}},
		{http.StatusOK, "application/json", `{"ok":false,"error":"repository is archived"}`, nil},
	} {
		srv := testkit.Record(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
			if tc.contentType != "" {
				w.Header().Set("Content-Type", tc.contentType)
			}
			w.WriteHeader(tc.status)
			_, _ = w.Write([]byte(tc.body))
		})
		_, err := newClient(t, srv.URL).Repo(t.Context(), "blog")
		ae := testkit.APIError(t, err)
		assert.Equal(t, tc.status, ae.StatusCode, tc.body)
		for _, s := range sentinels {
			assert.Equal(t, slices.Contains(tc.want, s), errors.Is(err, s), "%d %s: %v", tc.status, tc.body, s)
		}
	}
}
