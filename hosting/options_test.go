package hosting_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/internal/testkit"
)

func TestWithTokenRefusesMalformedTokens(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "Bearer tok-4b1d9e2a77c04f15", "bearer tok-4b1d9e2a77c04f15", "tok 4b1d9e2a", "tok-4b1d\n9e2a", "tok-4b1d\x00"} {
		_, err := hosting.New(hosting.WithBaseURL("http://127.0.0.1:1"), hosting.WithToken(bad))
		ve := testkit.ValidationError(t, err)
		assert.Equal(t, "token", ve.Field, "%q", bad)
		assert.Equal(t, "hosting", ve.Service)
		if bad != "" {
			assert.NotContains(t, err.Error(), "4b1d", "the value is never quoted")
		}
	}
	_, err := hosting.New(hosting.WithBaseURL("http://127.0.0.1:1"), hosting.WithRequestsPerMinute(-1))
	assert.Equal(t, "requests per minute", testkit.ValidationError(t, err).Field)
	_, err = hosting.New(hosting.WithToken(testToken))
	assert.Equal(t, "base URL", testkit.ValidationError(t, err).Field)
}

func TestTokenTravelsAsBearerOnlyInHeaders(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":true,"repos":[]}`))
	c := newClient(t, srv.URL, hosting.WithUserAgent("deploy-bot/2"))
	list, err := c.Repos(t.Context())
	require.NoError(t, err)
	assert.Empty(t, list.Repos)

	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, http.MethodGet, r.Method)
	assert.Equal(t, "/api/v1/repos", r.Path)
	assert.Empty(t, r.Query.Encode())
	assert.Equal(t, "Bearer "+testToken, r.Header.Get("Authorization"))
	assert.Empty(t, r.Header.Get("X-API-Token"), "the token goes in one header")
	assert.Equal(t, "application/json", r.Header.Get("Accept"))
	assert.True(t, strings.HasPrefix(r.Header.Get("User-Agent"), "deploy-bot/2 agentapis-sdk-go/"), r.Header.Get("User-Agent"))
	assert.Equal(t, hosting.GatewayRemedies{TokenHeader: hosting.AuthorizationHeader}, c.GatewayRemedies())
}

func TestClientWithoutTokenIsRefused(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusUnauthorized, `{"ok":false,"error":"missing token"}`))
	c, err := hosting.New(hosting.WithBaseURL(srv.URL), hosting.WithRetry(testkit.NoRetry))
	assert.Nil(t, c)
	mc := testkit.MissingCredential(t, err)
	assert.Equal(t, "hosting", mc.Service)
	assert.Equal(t, "New", mc.Operation)
	assert.Equal(t, "API token", mc.Credential)
	assert.Contains(t, mc.Reason, "WithToken")
	assert.Contains(t, mc.Reason, hosting.EnvToken)
	assert.ErrorIs(t, err, sdk.ErrMissingCredential)
	assert.Empty(t, srv.Requests(), "every /api/v1 call needs the token: none is sent without it")
}

func TestBaseURLKeepsItsPathAndSiteURLDropsThePrefix(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":true,"repos":[]}`))
	c := newClient(t, srv.URL+"/proxy")
	_, err := c.Repos(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "/proxy/api/v1/repos", srv.Requests()[0].Path)
	site, err := c.SiteURL("my-site")
	require.NoError(t, err)
	assert.Equal(t, srv.URL+"/proxy/site/my-site/", site)

	c = newClient(t, srv.URL+"/api/v1/")
	_, err = c.Repos(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "/api/v1/repos", srv.Requests()[1].Path, "a base URL that already ends in /api/v1 is not doubled")
	site, err = c.SiteURL("a b")
	require.NoError(t, err)
	assert.Equal(t, srv.URL+"/site/a%20b/", site, "the name is escaped")

	_, err = c.SiteURL("../admin")
	assert.Equal(t, "name", testkit.ValidationError(t, err).Field)
}

// The tests below change the process environment, so they cannot run in parallel.

func TestEnvironmentSuppliesURLAndToken(t *testing.T) {
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":true,"repos":[]}`))
	t.Setenv(hosting.EnvURL, srv.URL)
	t.Setenv(hosting.EnvToken, testToken)
	c, err := hosting.New(hosting.WithRetry(testkit.NoRetry))
	require.NoError(t, err)
	_, err = c.Repos(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "Bearer "+testToken, srv.Requests()[0].Header.Get("Authorization"))

	c, err = hosting.New(hosting.WithToken("tok-explicit-0001"))
	require.NoError(t, err)
	_, err = c.Repos(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "Bearer tok-explicit-0001", srv.Requests()[1].Header.Get("Authorization"), "WithToken wins over the environment")
}

func TestEnvironmentTokenNotSentToAnExplicitURLIsNamed(t *testing.T) {
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":true,"repos":[]}`))
	t.Setenv(hosting.EnvURL, "http://127.0.0.1:1")
	t.Setenv(hosting.EnvToken, testToken)
	c, err := hosting.New(hosting.WithBaseURL(srv.URL))
	assert.Nil(t, c, "a token meant for HOSTING_URL never reaches another server")
	mc := testkit.MissingCredential(t, err)
	for _, part := range []string{hosting.EnvToken + " is set but was not used", hosting.EnvURL, "WithBaseURL", `WithToken(os.Getenv("HOSTING_TOKEN"))`} {
		assert.Contains(t, mc.Error(), part)
	}
	assert.NotContains(t, mc.Error(), testToken)

	// The opt-in the error names sends it.
	c, err = hosting.New(hosting.WithBaseURL(srv.URL), hosting.WithToken(os.Getenv(hosting.EnvToken)))
	require.NoError(t, err)
	_, err = c.Repos(t.Context())
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "Bearer "+testToken, reqs[0].Header.Get("Authorization"))
}

func TestEnvironmentTokenIsValidated(t *testing.T) {
	t.Setenv(hosting.EnvURL, "http://127.0.0.1:1")
	t.Setenv(hosting.EnvToken, "Bearer tok-4b1d9e2a77c04f15")
	_, err := hosting.New()
	ve := testkit.ValidationError(t, err)
	assert.Equal(t, hosting.EnvToken, ve.Field)
	assert.Equal(t, "hosting", ve.Service)
	assert.NotContains(t, err.Error(), "4b1d")
}
