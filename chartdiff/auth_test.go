package chartdiff_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
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

func TestKeyTravelsOnlyInXPhmKey(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	key := srv.IssueKey(srv.AccountToken())
	log := &testkit.HeaderLog{}
	c := newClient(t, srv.URL, chartdiff.WithAPIKey(key), chartdiff.WithHTTPClient(log.Client()))

	_, err := c.Chart(t.Context(), 1)
	require.NoError(t, err)
	_, err = c.Charts(t.Context(), &chartdiff.ChartsParams{Query: "echo"})
	require.NoError(t, err)
	_, err = c.Analyze(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.NoError(t, err)
	_, err = c.Usage(t.Context())
	require.NoError(t, err)

	sent := log.Sent()
	require.Len(t, sent, 4)
	for i, r := range srv.Requests() {
		h := sent[i]
		assert.Equal(t, key, h.Get("x-phm-key"), r.Path)
		assert.Equal(t, sdktest.Redacted, r.Header.Get("x-phm-key"), "the fake's record redacts the key")
		assert.Empty(t, h.Values("x-api-key"), "the gateway consumes x-api-key")
		assert.Empty(t, h.Values("Authorization"), "the gateway overwrites Authorization")
		assert.Empty(t, h.Values("x-hm-token"))
		assert.NotContains(t, r.Path+"?"+r.Query.Encode(), key)
		assert.Contains(t, h.Get("User-Agent"), "chartdiff")
	}
	c2, err := c.Chart(t.Context(), 1)
	require.NoError(t, err)
	require.NotNil(t, c2.Response.RateLimit)
	assert.Equal(t, 1000, *c2.Response.RateLimit.Limit, "the key arrived: keyed quota")
}

func TestKeyArrivesThroughTheGateway(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithGatewayMangling()))
	c := newClient(t, srv.URL, chartdiff.WithAPIKey(srv.IssueKey(srv.AccountToken())))

	ch, err := c.Chart(t.Context(), 1)
	require.NoError(t, err)
	require.NotNil(t, ch.Response.RateLimit)
	assert.Equal(t, 1000, *ch.Response.RateLimit.Limit)
	assert.Equal(t, 999, *ch.Response.RateLimit.Remaining)
}

func TestUnknownKeyIsRefused(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL, chartdiff.WithAPIKey("sk-00000000000000000000000000000000"))

	_, err := c.Chart(t.Context(), 1)
	require.ErrorIs(t, err, chartdiff.ErrInvalidAPIKey)
	assert.Equal(t, http.StatusUnauthorized, testkit.APIError(t, err).StatusCode)
	assert.NotContains(t, err.Error(), "sk-00000000000000000000000000000000")
}

func TestAnonymousQuota(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithClock(clock)))
	c := newClient(t, srv.URL)

	for i := range 100 {
		ch, err := c.Chart(t.Context(), 1)
		require.NoError(t, err, "request %d", i+1)
		rl := ch.Response.RateLimit
		require.NotNil(t, rl)
		assert.Equal(t, 100, *rl.Limit)
		assert.Equal(t, 99-i, *rl.Remaining)
		assert.Equal(t, 30*time.Minute, *rl.Reset, "the fixed clock is half way through the hour")
	}
	_, err := c.Chart(t.Context(), 1)
	require.ErrorIs(t, err, chartdiff.ErrRateLimited)
	var rl *sdk.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, http.StatusTooManyRequests, rl.StatusCode)
	assert.Equal(t, "rate_limit_exceeded", rl.Code)
	assert.Equal(t, 30*time.Minute, rl.RetryAfter)
	require.NotNil(t, rl.RateLimit)
	assert.Equal(t, 0, *rl.RateLimit.Remaining)
	assert.Equal(t, 100, *rl.RateLimit.Limit)
	assert.Equal(t, rl.APIError, testkit.APIError(t, err), "errors.As reaches the *APIError")

	clock.Advance(30 * time.Minute)
	_, err = c.Chart(t.Context(), 1)
	require.NoError(t, err, "a new hour")
}

func TestKeyQuota(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithClock(clock)))
	c := newClient(t, srv.URL, chartdiff.WithAPIKey(srv.IssueKey(srv.AccountToken())))

	for i := range 1000 {
		_, err := c.Chart(t.Context(), 1)
		require.NoError(t, err, "request %d", i+1)
	}
	_, err := c.Chart(t.Context(), 1)
	require.ErrorIs(t, err, chartdiff.ErrRateLimited)
	var rl *sdk.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, 1000, *rl.RateLimit.Limit)
	assert.Equal(t, 30*time.Minute, rl.RetryAfter)

	anon := newClient(t, srv.URL)
	_, err = anon.Chart(t.Context(), 1)
	require.NoError(t, err, "the key's quota is its own")
}

func TestRateLimitRetriedWithinCapThenTyped(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithQuotas(chartdifftest.Quotas{AnonymousPerHour: 1})))
	c := newClient(t, srv.URL, chartdiff.WithRetry(sdk.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxRetryAfter: 5 * time.Millisecond}))

	_, err := c.Stats(t.Context())
	require.NoError(t, err)
	_, err = c.Stats(t.Context())
	var rl *sdk.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, 3, rl.Attempts, "the core retries a 429 after the capped wait")
	assert.Greater(t, rl.RetryAfter, 5*time.Millisecond, "the service's own retry-after is kept")
}

func TestRateLimitHeadersOnEveryResponse(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL, chartdiff.WithAPIKey(srv.IssueKey(srv.AccountToken())))
	ctx := t.Context()

	var got []sdk.Response
	chart, err := c.Chart(ctx, 1)
	require.NoError(t, err)
	got = append(got, chart.Response)
	page, err := c.Charts(ctx, nil)
	require.NoError(t, err)
	got = append(got, page.Response)
	stats, err := c.Stats(ctx)
	require.NoError(t, err)
	got = append(got, stats.Response)
	charter, err := c.Charter(ctx, 2, nil)
	require.NoError(t, err)
	got = append(got, charter.Response)
	player, err := c.Player(ctx, 2)
	require.NoError(t, err)
	got = append(got, player.Response)
	analysis, err := c.Analyze(ctx, 1)
	require.NoError(t, err)
	got = append(got, analysis.Response)
	usage, err := c.Usage(ctx)
	require.NoError(t, err)
	got = append(got, usage.Response)
	meta, err := c.BuildInfo(ctx, nil)
	require.NoError(t, err)
	got = append(got, meta.Response)
	doc, err := c.OpenAPI(ctx)
	require.NoError(t, err)
	got = append(got, doc.Response)

	for i, r := range got {
		assert.Equal(t, http.StatusOK, r.StatusCode, i)
		require.NotNil(t, r.RateLimit, i)
		assert.NotNil(t, r.RateLimit.Limit, i)
		assert.NotNil(t, r.RateLimit.Remaining, i)
		assert.NotNil(t, r.RateLimit.Reset, i)
		assert.Equal(t, 1, r.Attempts, i)
	}
	assert.Equal(t, 992, *doc.Response.RateLimit.Remaining, "the keyed calls count down the key's quota; /meta counts as anonymous")
}

func TestLimiterDown(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithLimiterDown(true)))
	c := newClient(t, srv.URL)

	_, err := c.Chart(t.Context(), 1)
	require.ErrorIs(t, err, chartdiff.ErrRateLimitUnavailable)
	assert.Equal(t, http.StatusServiceUnavailable, testkit.APIError(t, err).StatusCode)
	assert.NotErrorIs(t, err, chartdiff.ErrRateLimited)
	var rl *sdk.RateLimitError
	assert.NotErrorAs(t, err, &rl, "a limiter failure is not a quota answer")

	srv.SetLimiterDown(false)
	_, err = c.Chart(t.Context(), 1)
	require.NoError(t, err)
}

func TestSelfCheckKeyArrives(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithGatewayMangling()))
	key := srv.IssueKey(srv.AccountToken())
	log := &testkit.HeaderLog{}
	c := newClient(t, srv.URL, chartdiff.WithAPIKey(key), chartdiff.WithHTTPClient(log.Client()))

	report, err := c.SelfCheck(t.Context())
	require.NoError(t, err)
	assert.True(t, report.OK())
	assert.True(t, report.KeyArrives)
	assert.Equal(t, http.StatusUnauthorized, report.ProbeStatus)
	assert.Equal(t, "invalid_api_key", report.ProbeCode)
	h, ok := report.Header("x-phm-key")
	require.True(t, ok)
	assert.Equal(t, 35, h.Sent)
	assert.Equal(t, 35, h.Received)
	assert.True(t, h.Intact())
	auth, ok := report.Header("authorization")
	require.True(t, ok)
	assert.Zero(t, auth.Sent)
	assert.True(t, auth.Arrived(), "the gateway writes its own Authorization")
	apiKey, ok := report.Header("x-api-key")
	require.True(t, ok)
	assert.False(t, apiKey.Arrived())
	assert.Contains(t, report.String(), "x-phm-key arrives")
	assert.Contains(t, report.String(), "x-phm-key: arrives (35 bytes)")

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "/api/v1/charts/1", reqs[0].Path)
	assert.Equal(t, "/api/v1/meta", reqs[1].Path)
	assert.Equal(t, url.Values{"diag": {"1"}}, reqs[1].Query)
	sent := log.Sent()
	require.Len(t, sent, 2)
	probe := sent[0].Get("x-phm-key")
	assert.Regexp(t, keyForm, probe)
	assert.NotEqual(t, key, probe, "the client's own key is never the probe")
	assert.Equal(t, probe, sent[1].Get("x-phm-key"))
	assert.Empty(t, sent[0].Values("x-api-key"))
}

func TestSelfCheckDetectsADroppedKeyHeader(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithDroppedHeaders("x-phm-key")))
	c := newClient(t, srv.URL, chartdiff.WithAPIKey(srv.IssueKey(srv.AccountToken())), chartdiff.WithAccountToken(srv.AccountToken()))

	report, err := c.SelfCheck(t.Context())
	require.ErrorIs(t, err, chartdiff.ErrKeyHeaderDropped)
	require.NotNil(t, report)
	assert.False(t, report.OK())
	assert.False(t, report.KeyArrives)
	assert.Equal(t, http.StatusOK, report.ProbeStatus, "the probe was served as anonymous")
	h, ok := report.Header("x-phm-key")
	require.True(t, ok)
	assert.Equal(t, 35, h.Sent)
	assert.False(t, h.Arrived())
	tok, ok := report.Header("x-hm-token")
	require.True(t, ok)
	assert.True(t, tok.Intact(), "the account token header still arrives")
	assert.Contains(t, err.Error(), "x-phm-key does NOT arrive")
	assert.Contains(t, report.String(), "x-phm-key: does NOT arrive (sent 35 bytes)")
	assert.NotContains(t, err.Error(), srv.AccountToken())
}

func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	token := srv.AccountToken()
	key := srv.IssueKey(token)
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	sent := &testkit.HeaderLog{}
	c := newClient(t, srv.URL, chartdiff.WithAPIKey(key), chartdiff.WithAccountToken(token), chartdiff.WithLogger(logger), chartdiff.WithHTTPClient(sent.Client()))

	secrets := []string{key, token}
	var errs []error
	record := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	created, err := c.CreateKey(t.Context(), &chartdiff.CreateKeyParams{Name: "leak-test"})
	require.NoError(t, err)
	secrets = append(secrets, created.Secret.Reveal())
	logger.Info("created", "key", created.Secret, "answer", created)
	rotated, err := c.RotateKey(t.Context(), created.Key.ID)
	require.NoError(t, err)
	secrets = append(secrets, rotated.Secret.Reveal())
	logger.Info("rotated", "answer", rotated)

	_, err = c.Chart(t.Context(), 1)
	record(err)
	_, err = c.Player(t.Context(), 999)
	record(err)
	_, err = c.RotateKey(t.Context(), created.Key.ID)
	record(err)
	srv.InjectFaults(sdktest.Fault{Status: http.StatusBadRequest, Code: "invalid_request", Message: "echo " + key})
	_, err = c.Charts(t.Context(), nil)
	record(err)
	srv.InjectFaults(sdktest.Fault{Status: http.StatusConflict, Code: "key_limit_reached", Message: "echo " + token})
	_, err = c.CreateKey(t.Context(), nil)
	record(err)
	_, err = chartdiff.New(chartdiff.WithBaseURL(srv.URL), chartdiff.WithAPIKey(key+"0"))
	record(err)
	_, err = chartdiff.New(chartdiff.WithBaseURL(srv.URL), chartdiff.WithAccountToken(key))
	record(err)
	require.Len(t, errs, 6)

	printed := []string{logs.String(), fmt.Sprintf("%v %+v %#v", c, c, c), fmt.Sprintf("%v %+v %#v %s", created, rotated, *created, created.Secret)}
	for _, err := range errs {
		printed = append(printed, err.Error(), fmt.Sprintf("%+v", err))
	}
	assert.Contains(t, logs.String(), `"path":"/api/v1/keys"`, "the logger saw the requests")
	for _, s := range secrets {
		for _, p := range printed {
			assert.NotContains(t, p, s)
		}
		for _, r := range srv.Requests() {
			assert.NotContains(t, r.Path+"?"+r.Query.Encode(), s, "never in a URL")
		}
		for _, h := range sent.Sent() {
			assert.NotContains(t, strings.Join(h.Values("x-api-key"), ""), s, "never in x-api-key")
			assert.Empty(t, h.Values("Authorization"))
		}
	}
	assert.Contains(t, errs[2].Error(), "echo [REDACTED]", "a key the service echoes is scrubbed")
	assert.Contains(t, errs[3].Error(), "echo [REDACTED]", "a token the service echoes is scrubbed")
}

func TestSettersSwitchCredentialsAndScrubThem(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	token := srv.AccountToken()
	first, second := srv.IssueKey(token), srv.IssueKey(token)
	log := &testkit.HeaderLog{}
	c := newClient(t, srv.URL, chartdiff.WithAPIKey(first), chartdiff.WithHTTPClient(log.Client()))

	_, err := c.Keys(t.Context())
	require.ErrorIs(t, err, chartdiff.ErrAccountTokenRequired)
	require.NoError(t, c.SetAccountToken(token))
	list, err := c.Keys(t.Context())
	require.NoError(t, err)
	assert.Len(t, list.Keys, 2)
	require.NoError(t, c.SetAPIKey(second))
	_, err = c.Chart(t.Context(), 1)
	require.NoError(t, err)

	sent := log.Sent()
	require.Len(t, sent, 2, "the refused Keys call sent nothing")
	assert.Equal(t, token, sent[0].Get("x-hm-token"))
	assert.Empty(t, sent[0].Values("x-phm-key"), "key management sends the token alone")
	assert.Equal(t, second, sent[1].Get("x-phm-key"))
	assert.Empty(t, sent[1].Values("x-hm-token"), "the token goes with key management only")

	// Every credential the client was given, replaced ones included, is scrubbed from errors.
	for _, secret := range []string{first, second, token} {
		srv.InjectFaults(sdktest.Fault{Path: "/api/v1/stats", Status: http.StatusBadRequest, Code: "invalid_request", Message: "echo " + secret})
		_, err := c.Stats(t.Context())
		require.Error(t, err)
		assert.NotContains(t, err.Error(), secret)
		assert.Contains(t, err.Error(), "echo [REDACTED]")
	}

	// The setters check their values as the options do, never quote them, and change nothing
	// when they refuse.
	for _, bad := range []string{"", "   ", first, "tok\nen"} {
		err := c.SetAccountToken(bad)
		assert.Equal(t, "account token", testkit.ValidationError(t, err).Field)
		if strings.TrimSpace(bad) != "" {
			assert.NotContains(t, err.Error(), bad)
		}
	}
	err = c.SetAPIKey("sk-secretbutmalformed")
	assert.Equal(t, "API key", testkit.ValidationError(t, err).Field)
	assert.NotContains(t, err.Error(), "secretbutmalformed")
	_, err = c.Chart(t.Context(), 1)
	require.NoError(t, err)
	_, err = c.Keys(t.Context())
	require.NoError(t, err)
	sent = log.Sent()
	assert.Equal(t, second, sent[len(sent)-2].Get("x-phm-key"))
	assert.Equal(t, token, sent[len(sent)-1].Get("x-hm-token"))
}
