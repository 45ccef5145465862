package chartdiff_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/internal/testkit"
)

func TestStats(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	key := srv.IssueKey(srv.AccountToken())
	c := newClient(t, srv.URL, chartdiff.WithAPIKey(key))

	s, err := c.Stats(t.Context())
	require.NoError(t, err)
	raw := rawJSON(t, srv, "/stats")
	require.NotNil(t, s.ChartsStored)
	require.NotNil(t, s.ChartsAnalyzed)
	require.NotNil(t, s.ActiveUsers)
	assert.Equal(t, 200, *s.ChartsStored)
	assert.Equal(t, 150, *s.ChartsAnalyzed, "every chart id that is a multiple of 4 is not analysed")
	assertFloat(t, raw, "coverage", s.Coverage)
	assert.InDelta(t, 0.75, *s.Coverage, 1e-9)
	assert.Equal(t, 1, *s.ActiveUsers, "the account whose key made this call")
	assert.Equal(t, raw["engine_version"], s.EngineVersion)
	assert.Equal(t, "/api/v1/stats", srv.Requests()[0].Path)

	_, err = c.Analyze(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.NoError(t, err)
	s, err = c.Stats(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 151, *s.ChartsAnalyzed)
}

func TestUsageWithKeyOrToken(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	token := srv.AccountToken()
	key := srv.IssueKey(token)
	log := &testkit.HeaderLog{}
	keyed := newClient(t, srv.URL, chartdiff.WithAPIKey(key), chartdiff.WithHTTPClient(log.Client()))
	admin := newClient(t, srv.URL, chartdiff.WithAccountToken(token), chartdiff.WithHTTPClient(log.Client()))

	for range 3 {
		_, err := keyed.Chart(t.Context(), 1)
		require.NoError(t, err)
	}
	_, err := keyed.Analyze(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.NoError(t, err)

	byKey, err := keyed.Usage(t.Context())
	require.NoError(t, err)
	byToken, err := admin.Usage(t.Context())
	require.NoError(t, err)

	sent := log.Sent()
	require.Len(t, sent, 6)
	assert.Equal(t, key, sent[4].Get("x-phm-key"))
	assert.Empty(t, sent[4].Get("x-hm-token"))
	assert.Equal(t, token, sent[5].Get("x-hm-token"))
	assert.Empty(t, sent[5].Get("x-phm-key"))

	assert.NotEmpty(t, byKey.AccountID)
	assert.Equal(t, byKey.AccountID, byToken.AccountID, "the account that owns the key")
	require.Len(t, byToken.Keys, 1)
	k := byToken.Keys[0]
	assert.Equal(t, chartdiff.KeyActive, k.Status)
	require.NotNil(t, k.AnalysesTotal)
	assert.Equal(t, 1, *k.AnalysesTotal)
	require.NotNil(t, k.AnalysesToday)
	assert.Equal(t, 1, *k.AnalysesToday)
	require.NotNil(t, k.RequestsThisHour)
	assert.Equal(t, 5, *k.RequestsThisHour, "three charts, one analysis, one usage")
	require.NotNil(t, byToken.Limits)
	assert.Equal(t, 1000, *byToken.Limits.RequestsPerHour)
	assert.Equal(t, 200, *byToken.Limits.AnalysesPerDay)
	assert.Equal(t, 100, *byToken.Limits.AnonymousRequestsPerHour)
	assert.Contains(t, string(byToken.Raw), `"account_id"`)
}

func TestUsageWithoutCredentialsSendsNothing(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	u, err := c.Usage(t.Context())
	assert.Nil(t, u)
	require.ErrorIs(t, err, chartdiff.ErrAccountTokenRequired)
	var mc *sdk.MissingCredentialError
	require.ErrorAs(t, err, &mc)
	assert.Equal(t, "Usage", mc.Operation)
	assert.Empty(t, srv.Requests())
}

func TestBuildInfo(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	key := srv.IssueKey(srv.AccountToken())
	c := newClient(t, srv.URL, chartdiff.WithAPIKey(key))

	m, err := c.BuildInfo(t.Context(), nil)
	require.NoError(t, err)
	assert.Equal(t, "1.2.0", m.Version)
	assert.NotEmpty(t, m.Build)
	assert.NotEmpty(t, m.EngineVersion)
	assert.Nil(t, m.Diag)
	assert.Empty(t, srv.Requests()[0].Query)

	m, err = c.BuildInfo(t.Context(), &chartdiff.BuildInfoParams{Diagnostics: true})
	require.NoError(t, err)
	assert.Equal(t, url.Values{"diag": {"1"}}, srv.Requests()[1].Query)
	require.NotNil(t, m.Diag)
	n, ok := m.Diag.HeaderLength("X-PHM-KEY")
	require.True(t, ok)
	assert.Equal(t, len(key), n)
	n, ok = m.Diag.HeaderLength("x-api-key")
	require.True(t, ok)
	assert.Zero(t, n)
	_, ok = m.Diag.HeaderLength("x-unknown")
	assert.False(t, ok)
}

func TestOpenAPIListsEveryEndpoint(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	doc, err := c.OpenAPI(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "/api/v1/openapi.json", srv.Requests()[0].Path)
	assert.Equal(t, "3.1.0", doc.OpenAPI)
	assert.Equal(t, "1.2.0", doc.Version)
	assert.NotEmpty(t, doc.Title)
	assert.Equal(t, []string{
		"/analyses", "/charters/{uid}", "/charts", "/charts/{chart_id}", "/keys", "/keys/{id}", "/keys/{id}/rotate",
		"/meta", "/openapi.json", "/players/{uid}", "/stats", "/usage",
	}, doc.Paths)
	assert.True(t, json.Valid(doc.JSON))
	assert.Equal(t, http.StatusOK, doc.Response.StatusCode)
}

func TestOpenAPIRefusesANonContract(t *testing.T) {
	t.Parallel()
	srv := serveFixture(t, http.StatusOK, "page_items.json")
	c, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL))
	require.NoError(t, err)

	doc, err := c.OpenAPI(t.Context())
	assert.Nil(t, doc)
	var de *sdk.DecodeError
	require.ErrorAs(t, err, &de)
	assert.Contains(t, err.Error(), "not an OpenAPI document")
}

func TestUndescribedBodiesDecodeLeniently(t *testing.T) {
	t.Parallel()
	var s chartdiff.Stats
	require.NoError(t, json.Unmarshal([]byte(`{"charts_stored": "many", "charts_analyzed": 0, "coverage": 0.5, "engine_version": 3}`), &s),
		"a field of an unexpected type does not fail the answer")
	assert.Nil(t, s.ChartsStored, "a value that is not a number is unknown, not 0")
	require.NotNil(t, s.ChartsAnalyzed)
	assert.Equal(t, 0, *s.ChartsAnalyzed)
	assert.Equal(t, 0.5, *s.Coverage)
	assert.Empty(t, s.EngineVersion)

	var u chartdiff.Usage
	require.NoError(t, json.Unmarshal([]byte(`{"account_id": 42, "limits": {"requests_per_hour": 1000, "analyses_per_day": "200"}, "keys": [{"id": 7, "requests_total": 3}]}`), &u))
	assert.Equal(t, "42", u.AccountID)
	require.NotNil(t, u.Limits)
	assert.Equal(t, 1000, *u.Limits.RequestsPerHour)
	assert.Nil(t, u.Limits.AnalysesPerDay)
	require.Len(t, u.Keys, 1)
	assert.Equal(t, chartdiff.KeyID("7"), u.Keys[0].ID)

	var m chartdiff.BuildInfo
	require.NoError(t, json.Unmarshal([]byte(`{"service": "phm", "version": 2, "diag": {"headers": {"x-phm-key": 35}}}`), &m))
	assert.Equal(t, "phm", m.Service)
	assert.Empty(t, m.Version)
	n, ok := m.Diag.HeaderLength("X-PHM-KEY")
	assert.True(t, ok)
	assert.Equal(t, 35, n)
}
