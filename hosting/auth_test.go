package hosting_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/internal/logbuf"
	"github.com/agentapis/sdk/internal/testkit"
)

// strippingGateway answers like a service behind a gateway that strips Authorization: only
// X-API-Token authenticates; otherwise 401 with the envelope.
func strippingGateway(ok string) func(http.ResponseWriter, *http.Request, []byte) {
	return func(w http.ResponseWriter, r *http.Request, _ []byte) {
		if r.Header.Get("X-API-Token") != testToken {
			testkit.Reply(w, http.StatusUnauthorized, `{"ok":false,"error":"authentication required"}`)
			return
		}
		testkit.Reply(w, http.StatusOK, ok)
	}
}

func TestUnauthorizedBearerIsRetriedWithXAPITokenAndTheHeaderIsKept(t *testing.T) {
	t.Parallel()
	var logs logbuf.Buffer
	srv := testkit.Record(t, strippingGateway(`{"ok":true,"repos":[{"name":"blog"}]}`))
	c := newClient(t, srv.URL, hosting.WithLogger(jsonLogger(&logs)))

	list, err := c.Repos(t.Context())
	require.NoError(t, err)
	require.Len(t, list.Repos, 1)
	assert.Equal(t, "blog", list.Repos[0].Name)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "Bearer "+testToken, reqs[0].Header.Get("Authorization"))
	assert.Empty(t, reqs[0].Header.Get("X-API-Token"))
	assert.Equal(t, testToken, reqs[1].Header.Get("X-API-Token"))
	assert.Empty(t, reqs[1].Header.Get("Authorization"), "the retry carries the token once, in X-API-Token")
	assert.Equal(t, reqs[0].Path, reqs[1].Path)

	_, err = c.Repos(t.Context())
	require.NoError(t, err)
	reqs = srv.Requests()
	require.Len(t, reqs, 3, "the header that worked is used from then on: no second 401")
	assert.Equal(t, testToken, reqs[2].Header.Get("X-API-Token"))
	assert.Empty(t, reqs[2].Header.Get("Authorization"))

	assert.Equal(t, hosting.GatewayRemedies{TokenHeaderRetries: 1, TokenHeader: hosting.TokenHeader}, c.GatewayRemedies())
	out := logs.String()
	assert.Contains(t, out, `"msg":"gateway remedy"`)
	assert.Contains(t, out, `"remedy":"token in X-API-Token after a 401 to Authorization: Bearer"`)
	assert.Contains(t, out, `"path":"/api/v1/repos"`)
	assert.Contains(t, out, `"status":401`)
	assert.NotContains(t, out, testToken, "the log holds metadata only")
}

func TestUnauthorizedPostIsResentWithTheSameBody(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, strippingGateway(`{"ok":true,"commit":{"id":"c1"}}`))
	c := newClient(t, srv.URL)
	cm, err := c.Commit(t.Context(), "blog", &hosting.CommitParams{Message: "first"})
	require.NoError(t, err)
	assert.Equal(t, "c1", cm.ID)
	reqs := srv.Requests()
	require.Len(t, reqs, 2, "a 401 means the service did not act: resending the commit is safe")
	assert.Equal(t, http.MethodPost, reqs[1].Method)
	assert.JSONEq(t, `{"message":"first"}`, string(reqs[0].Body))
	assert.JSONEq(t, string(reqs[0].Body), string(reqs[1].Body))
}

func TestUnauthorizedInBothHeadersKeepsBearer(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusUnauthorized, `{"ok":false,"error":"invalid token"}`))
	c := newClient(t, srv.URL)
	_, err := c.Repo(t.Context(), "blog")
	ae := testkit.APIError(t, err)
	assert.Equal(t, http.StatusUnauthorized, ae.StatusCode)
	assert.Equal(t, "invalid token", ae.Message)
	assert.ErrorIs(t, err, hosting.ErrUnauthorized)
	require.Len(t, srv.Requests(), 2, "one retry with X-API-Token, no more")
	assert.Equal(t, hosting.GatewayRemedies{TokenHeaderRetries: 1, TokenHeader: hosting.AuthorizationHeader}, c.GatewayRemedies(),
		"X-API-Token did not work either, so the client does not switch")

	_, err = c.Repo(t.Context(), "blog")
	require.Error(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 4)
	assert.Equal(t, "Bearer "+testToken, reqs[2].Header.Get("Authorization"))
}

func TestOtherStatusesAreNotRetriedWithXAPIToken(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusForbidden, `{"ok":false,"error":"not your repository"}`))
	c := newClient(t, srv.URL)
	_, err := c.Repo(t.Context(), "blog")
	ae := testkit.APIError(t, err)
	assert.Equal(t, http.StatusForbidden, ae.StatusCode)
	assert.Len(t, srv.Requests(), 1)
	assert.Zero(t, c.GatewayRemedies().TokenHeaderRetries)
}

func TestConcurrentUnauthorizedRequestsAllRecover(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, strippingGateway(`{"ok":true,"deployments":[]}`))
	c := newClient(t, srv.URL)
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Deployments(t.Context(), "blog")
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	st := c.GatewayRemedies()
	assert.Equal(t, hosting.TokenHeader, st.TokenHeader)
	assert.GreaterOrEqual(t, st.TokenHeaderRetries, int64(1))
	assert.LessOrEqual(t, st.TokenHeaderRetries, int64(16))
	assert.Len(t, srv.Requests(), 16+int(st.TokenHeaderRetries))
}

func TestTokenNeverAppearsInErrors(t *testing.T) {
	t.Parallel()
	// A service that quotes the credentials it got in its error text and body.
	srv := testkit.Record(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		echo := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + r.Header.Get("X-API-Token")
		testkit.Reply(w, http.StatusUnauthorized, `{"ok":false,"error":"token `+echo+` is not valid"}`)
	})
	c := newClient(t, srv.URL)
	_, err := c.Repo(t.Context(), "blog")
	ae := testkit.APIError(t, err)
	assert.NotContains(t, err.Error(), testToken)
	assert.NotContains(t, ae.Message, testToken)
	assert.NotContains(t, string(ae.Body), testToken)
	for _, r := range srv.Requests() {
		assert.NotContains(t, r.Path+r.Query.Encode(), testToken, "never in the URL")
	}
}

func TestSetTokenReplacesTheTokenOfLaterRequests(t *testing.T) {
	t.Parallel()
	const newToken = "tok-9c3e5a1b7d2f4e60"
	scan.Add(newToken)
	// A service that quotes the credentials it got in its errors.
	srv := testkit.Record(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + r.Header.Get("X-API-Token")
		testkit.Reply(w, http.StatusNotFound, `{"ok":false,"error":"nothing for `+got+` (was `+testToken+`)"}`)
	})
	c := newClient(t, srv.URL)
	require.NoError(t, c.SetToken(newToken))
	_, err := c.Repo(t.Context(), "blog")
	ae := testkit.APIError(t, err)
	scan.Record(err)
	assert.ErrorIs(t, err, hosting.ErrNotFound)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "Bearer "+newToken, reqs[0].Header.Get("Authorization"))
	for _, text := range []string{err.Error(), ae.Message, string(ae.Body)} {
		assert.NotContains(t, text, newToken, "the new token is scrubbed")
		assert.NotContains(t, text, testToken, "the old token is still scrubbed")
	}
	assert.Equal(t, hosting.GatewayRemedies{TokenHeader: hosting.AuthorizationHeader}, c.GatewayRemedies())

	for _, bad := range []string{"", "Bearer " + newToken, "tok 9c3e", "tok\n9c3e"} {
		ve := testkit.ValidationError(t, c.SetToken(bad))
		assert.Equal(t, "token", ve.Field, "%q", bad)
		assert.Equal(t, "hosting", ve.Service)
	}
	_, err = c.Repo(t.Context(), "blog")
	require.Error(t, err)
	assert.Equal(t, "Bearer "+newToken, srv.Requests()[1].Header.Get("Authorization"), "a refused token changes nothing")
}

func TestSetTokenKeepsTheHeaderThatWorks(t *testing.T) {
	t.Parallel()
	const newToken = "tok-2d8f6b4a0c1e3957"
	scan.Add(newToken)
	// A gateway that strips Authorization, in front of a service that knows both tokens.
	srv := testkit.Record(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		if tok := r.Header.Get("X-API-Token"); tok != testToken && tok != newToken {
			testkit.Reply(w, http.StatusUnauthorized, `{"ok":false,"error":"authentication required"}`)
			return
		}
		testkit.Reply(w, http.StatusOK, `{"ok":true,"repos":[]}`)
	})
	c := newClient(t, srv.URL)
	_, err := c.Repos(t.Context())
	require.NoError(t, err)
	require.Equal(t, hosting.TokenHeader, c.GatewayRemedies().TokenHeader)

	require.NoError(t, c.SetToken(newToken))
	_, err = c.Repos(t.Context())
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 3, "no second 401: the new token goes in X-API-Token at once")
	assert.Equal(t, newToken, reqs[2].Header.Get("X-API-Token"))
	assert.Empty(t, reqs[2].Header.Get("Authorization"))
	assert.Equal(t, hosting.GatewayRemedies{TokenHeaderRetries: 1, TokenHeader: hosting.TokenHeader}, c.GatewayRemedies())
}
