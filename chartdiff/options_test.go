package chartdiff_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
)

func TestWithAPIKeyValidatesTheForm(t *testing.T) {
	t.Parallel()
	good := "sk-0123456789abcdef0123456789ABCDEF"
	_, err := chartdiff.New(chartdiff.WithBaseURL("http://127.0.0.1:1"), chartdiff.WithAPIKey(good))
	require.NoError(t, err, "hexadecimal in either case")

	for _, bad := range []string{
		"",
		"sk-0123456789abcdef0123456789abcde",   // 31 hex
		"sk-0123456789abcdef0123456789abcdef0", // 33 hex
		"pk-0123456789abcdef0123456789abcdef",
		"sk-0123456789abcdef0123456789abcdeg",
		"Bearer sk-0123456789abcdef0123456789abcdef",
		"sk-0123456789abcdef0123456789abcd\r\n",
	} {
		_, err := chartdiff.New(chartdiff.WithBaseURL("http://127.0.0.1:1"), chartdiff.WithAPIKey(bad))
		ve := testkit.ValidationError(t, err)
		assert.Equal(t, "API key", ve.Field)
		assert.Equal(t, "chartdiff", ve.Service)
		if bad != "" {
			assert.NotContains(t, err.Error(), bad[3:], "the value is never quoted")
		}
	}
}

func TestWithAccountTokenRejectsEmptyAndKeys(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "   ", "sk-0123456789abcdef0123456789abcdef", "SK-0123456789abcdef0123456789abcdef", "tok\nen", "tok en"} {
		_, err := chartdiff.New(chartdiff.WithBaseURL("http://127.0.0.1:1"), chartdiff.WithAccountToken(bad))
		ve := testkit.ValidationError(t, err)
		assert.Equal(t, "account token", ve.Field)
		if strings.TrimSpace(bad) != "" {
			assert.NotContains(t, err.Error(), bad)
		}
	}
	_, err := chartdiff.New(chartdiff.WithBaseURL("http://127.0.0.1:1"), chartdiff.WithWait(sdk.WaitPolicy{Timeout: -1}))
	assert.Equal(t, "wait policy", testkit.ValidationError(t, err).Field)
}

// TestWithRequestsPerMinutePacesOnTheClock: the client is unpaced by default; with
// WithRequestsPerMinute its requests wait their turn on the WithClock clock, here a fake one
// the fake server shares.
func TestWithRequestsPerMinutePacesOnTheClock(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithClock(clock)))
	unpaced := newClient(t, srv.URL, chartdiff.WithClock(clock))
	paced := newClient(t, srv.URL, chartdiff.WithClock(clock), chartdiff.WithRequestsPerMinute(2))
	for _, c := range []*chartdiff.Client{unpaced, paced} {
		for range 3 {
			_, err := c.Chart(t.Context(), 1)
			require.NoError(t, err)
		}
	}
	reqs := srv.Requests()
	require.Len(t, reqs, 6)
	assert.Equal(t, reqs[0].Time, reqs[2].Time, "no wait without pacing")
	assert.GreaterOrEqual(t, reqs[4].Time.Sub(reqs[3].Time), 30*time.Second, "2 a minute: one every 30 s")
	assert.GreaterOrEqual(t, reqs[5].Time.Sub(reqs[4].Time), 30*time.Second)

	_, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL), chartdiff.WithClock(nil))
	assert.NotNil(t, testkit.ValidationError(t, err))
}

func TestBaseURLKeepsItsPathAndAddsThePrefix(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL+"/api/v1"), chartdiff.WithRetry(sdk.RetryPolicy{MaxAttempts: 1}))
	require.NoError(t, err)
	_, err = c.Chart(t.Context(), 1)
	require.NoError(t, err)
	assert.Equal(t, "/api/v1/charts/1", srv.Requests()[0].Path, "a base URL that already ends in /api/v1 is not doubled")

	c, err = chartdiff.New(chartdiff.WithBaseURL(srv.URL+"/proxy"), chartdiff.WithRetry(sdk.RetryPolicy{MaxAttempts: 1}))
	require.NoError(t, err)
	_, err = c.Chart(t.Context(), 1)
	require.ErrorIs(t, err, chartdiff.ErrNotFound, "the fake has no /proxy, which proves the path was kept")
	assert.Equal(t, "/proxy/api/v1/charts/1", srv.Requests()[1].Path)
}

// The tests below change the process environment, so they cannot run in parallel.

func TestEnvironmentSuppliesURLAndCredentials(t *testing.T) {
	srv := chartdifftest.NewServer()
	defer srv.Close()
	token := srv.AccountToken()
	key := srv.IssueKey(token)
	t.Setenv(chartdiff.EnvURL, srv.URL)
	t.Setenv(chartdiff.EnvAPIKey, key)
	t.Setenv(chartdiff.EnvAccountToken, token)

	log := &testkit.HeaderLog{}
	c, err := chartdiff.New(chartdiff.WithRetry(sdk.RetryPolicy{MaxAttempts: 1}), chartdiff.WithHTTPClient(log.Client()))
	require.NoError(t, err)
	_, err = c.Chart(t.Context(), 1)
	require.NoError(t, err)
	_, err = c.Keys(t.Context())
	require.NoError(t, err)
	sent := log.Sent()
	require.Len(t, sent, 2)
	assert.Equal(t, key, sent[0].Get("x-phm-key"))
	assert.Equal(t, token, sent[1].Get("x-hm-token"))
	assert.Empty(t, sent[1].Get("x-phm-key"))
	assert.Equal(t, "/api/v1/keys", srv.Requests()[1].Path)

	other := chartdiff.WithAPIKey("sk-ffffffffffffffffffffffffffffffff")
	c, err = chartdiff.New(other)
	require.NoError(t, err)
	_, err = c.Chart(t.Context(), 1)
	require.ErrorIs(t, err, chartdiff.ErrInvalidAPIKey, "an option wins over the environment")
}

func TestEnvironmentCredentialsIgnoredWithExplicitURL(t *testing.T) {
	srv := chartdifftest.NewServer()
	defer srv.Close()
	t.Setenv(chartdiff.EnvAPIKey, srv.IssueKey(srv.AccountToken()))
	t.Setenv(chartdiff.EnvAccountToken, srv.AccountToken())

	c, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL))
	require.NoError(t, err)
	_, err = c.Chart(t.Context(), 1)
	require.NoError(t, err)
	assert.Empty(t, srv.Requests()[0].Header.Values("x-phm-key"), "an explicit base URL gets no ambient key")
	_, err = c.Keys(t.Context())
	require.ErrorIs(t, err, chartdiff.ErrAccountTokenRequired)
	assert.Len(t, srv.Requests(), 1)
}

// TestEnvironmentCredentialsNotUsedAreNamed: with the address given in code, the credentials
// of the environment are not sent, and every call that needs one, or would have used one,
// says which variable was set, why it was not used and how to send it.
func TestEnvironmentCredentialsNotUsedAreNamed(t *testing.T) {
	srv := chartdifftest.NewServer()
	defer srv.Close()
	token := srv.AccountToken()
	key := srv.IssueKey(token)
	t.Setenv(chartdiff.EnvURL, "")
	t.Setenv(chartdiff.EnvAPIKey, key)
	t.Setenv(chartdiff.EnvAccountToken, token)
	notUsed := func(envVar, option string) []string {
		return []string{envVar + " is set but was not used", chartdiff.EnvURL, "WithBaseURL", option + `(os.Getenv("` + envVar + `"))`}
	}
	log := &testkit.HeaderLog{}
	c, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL), chartdiff.WithRetry(testkit.NoRetry), chartdiff.WithHTTPClient(log.Client()))
	require.NoError(t, err, "the API key is optional: anonymous use is allowed")

	// Key management needs the account token.
	_, err = c.Keys(t.Context())
	require.ErrorIs(t, err, chartdiff.ErrAccountTokenRequired)
	var mc *sdk.MissingCredentialError
	require.ErrorAs(t, err, &mc)
	assert.Equal(t, "Keys", mc.Operation)
	for _, part := range append(notUsed(chartdiff.EnvAccountToken, "WithAccountToken"), "x-hm-token") {
		assert.Contains(t, err.Error(), part)
	}

	// Usage needs one of the two.
	_, err = c.Usage(t.Context())
	require.ErrorAs(t, err, &mc)
	assert.Equal(t, "Usage", mc.Operation)
	for _, part := range append(notUsed(chartdiff.EnvAPIKey, "WithAPIKey"), notUsed(chartdiff.EnvAccountToken, "WithAccountToken")...) {
		assert.Contains(t, err.Error(), part)
	}

	// SelfCheck needs no key, but says that the client has none.
	report, err := c.SelfCheck(t.Context())
	require.NoError(t, err)
	for _, part := range notUsed(chartdiff.EnvAPIKey, "WithAPIKey") {
		assert.Contains(t, report.KeyNotUsed, part)
		assert.Contains(t, report.String(), part)
	}

	// Usage by the account token says that the key was not used.
	admin, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL), chartdiff.WithAccountToken(os.Getenv(chartdiff.EnvAccountToken)))
	require.NoError(t, err)
	u, err := admin.Usage(t.Context())
	require.NoError(t, err)
	for _, part := range notUsed(chartdiff.EnvAPIKey, "WithAPIKey") {
		assert.Contains(t, u.KeyNotUsed, part)
	}

	// The opt-in the errors name sends the key, and then nothing is said.
	keyed, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL), chartdiff.WithAPIKey(os.Getenv(chartdiff.EnvAPIKey)))
	require.NoError(t, err)
	u, err = keyed.Usage(t.Context())
	require.NoError(t, err)
	assert.Empty(t, u.KeyNotUsed)
	report, err = keyed.SelfCheck(t.Context())
	require.NoError(t, err)
	assert.Empty(t, report.KeyNotUsed)
	assert.NotContains(t, report.String(), chartdiff.EnvAPIKey)
	sent := log.Sent()
	require.Len(t, sent, 2, "Keys and Usage sent nothing; SelfCheck sent its probe and /meta")
	for _, h := range sent {
		assert.NotEqual(t, key, h.Get("x-phm-key"), "the ambient key reached the explicit address")
		assert.Empty(t, h.Values("x-hm-token"), "the ambient token reached the explicit address")
	}

	// Without the variables, the errors say how to give each credential.
	t.Setenv(chartdiff.EnvAPIKey, "")
	t.Setenv(chartdiff.EnvAccountToken, "")
	_, err = c.Usage(t.Context())
	for _, part := range []string{"WithAPIKey", "WithAccountToken", chartdiff.EnvAPIKey, chartdiff.EnvAccountToken} {
		assert.Contains(t, err.Error(), part)
	}
	assert.NotContains(t, err.Error(), "was not used")
	report, err = c.SelfCheck(t.Context())
	require.NoError(t, err)
	assert.Empty(t, report.KeyNotUsed)
}

func TestEnvironmentKeyIsValidated(t *testing.T) {
	t.Setenv(chartdiff.EnvURL, "http://127.0.0.1:1")
	t.Setenv(chartdiff.EnvAPIKey, "sk-secretbutmalformed")
	_, err := chartdiff.New()
	ve := testkit.ValidationError(t, err)
	assert.Equal(t, chartdiff.EnvAPIKey, ve.Field)
	assert.Equal(t, "chartdiff", ve.Service)
	assert.NotContains(t, err.Error(), "secretbutmalformed")

	t.Setenv(chartdiff.EnvAPIKey, "")
	t.Setenv(chartdiff.EnvAccountToken, "sk-0123456789abcdef0123456789abcdef")
	_, err = chartdiff.New()
	assert.Equal(t, chartdiff.EnvAccountToken, testkit.ValidationError(t, err).Field)
}
