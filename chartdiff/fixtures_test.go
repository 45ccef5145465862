package chartdiff_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/internal/fixturetest"
)

// fixtureClient returns a client whose one request is answered by the recorded exchange
// testdata/fixtures/name, which checks what the client sent; the test fails when it was not
// sent.
func fixtureClient(t *testing.T, name string, opts ...chartdiff.Option) *chartdiff.Client {
	t.Helper()
	return newClient(t, "https://charts.example", append(opts, chartdiff.WithHTTPClient(fixturetest.Client(t, "testdata/fixtures", name)))...)
}

const fixtureKey = "sk-0123456789abcdef0123456789abcdef"

func TestFixtureChart(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "chart.json", chartdiff.WithAPIKey(fixtureKey))
	ch, err := c.Chart(t.Context(), 4127)
	require.NoError(t, err)
	assert.Equal(t, "Shadow Eclipse", ch.Name)
	require.NotNil(t, ch.RefConst)
	assert.Equal(t, 14.6, *ch.RefConst)
	require.NotNil(t, ch.PSScore)
	assert.Equal(t, 0.0, *ch.PSScore, "a computed 0 is a value")
	assert.Nil(t, ch.RefOfficial, "an absent value stays nil")
	require.NotNil(t, ch.Notes)
	assert.Equal(t, 1342, *ch.Notes)
	assert.Equal(t, "req-7f3a", ch.Response.RequestID)
	require.NotNil(t, ch.Response.RateLimit)
	assert.Equal(t, 998, *ch.Response.RateLimit.Remaining)
	assert.Equal(t, 30*time.Minute, *ch.Response.RateLimit.Reset)
}

func TestFixtureChartsPage(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "charts_page.json")
	page, err := c.Charts(t.Context(), &chartdiff.ChartsParams{Page: 2, PageSize: 2, Sort: chartdiff.SortRefConst, Order: chartdiff.Desc, Level: "AT"})
	require.NoError(t, err)
	assert.Equal(t, 5, page.Total)
	require.Len(t, page.Charts, 2)
	assert.Equal(t, 90, page.Charts[0].ID)
	assert.False(t, page.Charts[1].Analyzed)
	assert.Nil(t, page.Charts[1].RefConst)
}

func TestFixturePlayerInTheUpstreamShape(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "player_phira.json")
	p, err := c.Player(t.Context(), 1024)
	require.NoError(t, err)
	assert.Equal(t, 1024, p.ID)
	assert.Equal(t, "https://phira.5wyxi.com/files/avatar/1024.png", p.Avatar)
	assert.Equal(t, []string{"early-supporter"}, p.Badges)
	assert.Empty(t, p.Bio, "a null bio is empty")
	require.NotNil(t, p.Stats)
	assert.Equal(t, 455, *p.Stats.ChartsPlayed)
	assert.Equal(t, time.Date(2026, 11, 20, 19, 2, 11, 0, time.UTC), p.LastLogin.UTC())
}

func TestFixtureAnalyze(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "analyze.json", chartdiff.WithAPIKey(fixtureKey))
	a, err := c.Analyze(t.Context(), 4127)
	require.NoError(t, err)
	assert.False(t, a.Cached)
	assert.True(t, a.Chart.Analyzed)
	assert.Equal(t, 3.91, *a.Chart.PSScore)
}

func TestFixtureCreateKey(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "create_key.json", chartdiff.WithAPIKey(fixtureKey), chartdiff.WithAccountToken("hm_web_account_token_0001"))
	created, err := c.CreateKey(t.Context(), &chartdiff.CreateKeyParams{Name: "ci", Scopes: []chartdiff.Scope{chartdiff.ScopeChartsRead}, Lifetime: chartdiff.Lifetime90Days})
	require.NoError(t, err)
	assert.Equal(t, "sk-5a4b3c2d1e0f5a4b3c2d1e0f5a4b9f0e", created.Secret.Reveal())
	assert.Equal(t, chartdiff.KeyID("key_8c1"), created.Key.ID)
	assert.Equal(t, chartdiff.KeyActive, created.Key.Status)
	require.NotNil(t, created.Key.ExpiresAt)
	assert.Equal(t, 2027, created.Key.ExpiresAt.Year())
}
