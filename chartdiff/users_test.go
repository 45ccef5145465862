package chartdiff_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/internal/testkit"
)

func TestCharterDefaultReadsThreePages(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	got, err := c.Charter(t.Context(), chartdifftest.AuthorProlific, nil)
	require.NoError(t, err)
	assert.Equal(t, chartdifftest.AuthorProlific, got.UID)
	assert.Equal(t, chartdiff.CharterDefaultPages, got.PagesRead)
	assert.True(t, got.HasMore)
	require.Len(t, got.Charts, 3*chartdiff.UpstreamPageSize)
	for i, ch := range got.Charts {
		assert.Equal(t, chartdifftest.ProlificFirstChart+i, ch.ID)
		assert.Equal(t, chartdifftest.AuthorProlific, ch.Uploader)
		assert.False(t, ch.Analyzed)
		assert.Nil(t, ch.RefConst, "no stored value: absent, not 0")
	}
	assert.Equal(t, 3, srv.UpstreamPagesRead())
	req := srv.Requests()[0]
	assert.Equal(t, "/api/v1/charters/9", req.Path)
	assert.Empty(t, req.Query, "the default maxPages is the service's")
	assert.NotNil(t, got.Response.RateLimit)
}

func TestCharterMaxPagesIsAHardCap(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	got, err := c.Charter(t.Context(), chartdifftest.AuthorProlific, &chartdiff.CharterParams{MaxPages: chartdiff.CharterMaxPages})
	require.NoError(t, err)
	assert.Equal(t, 5, got.PagesRead)
	assert.Len(t, got.Charts, 150, "200 charts upstream, 5 pages of 30 read")
	assert.True(t, got.HasMore)
	assert.Equal(t, url.Values{"maxPages": {"5"}}, srv.Requests()[0].Query)

	got, err = c.Charter(t.Context(), chartdifftest.AuthorProlific, &chartdiff.CharterParams{MaxPages: 1})
	require.NoError(t, err)
	assert.Len(t, got.Charts, 30)
	assert.Equal(t, 6, srv.UpstreamPagesRead())
}

func TestCharterTagsStoredValues(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	// Author 2 uploaded the cached charts 1, 5, 9, ... (all analysed); author 1 uploaded 4, 8,
	// 12, ... (none analysed).
	for _, tc := range []struct {
		uid      int
		analyzed bool
	}{{2, true}, {1, false}} {
		got, err := c.Charter(t.Context(), tc.uid, &chartdiff.CharterParams{MaxPages: 5})
		require.NoError(t, err)
		assert.Equal(t, 2, got.PagesRead, "50 charts take 2 upstream pages")
		assert.False(t, got.HasMore)
		require.Len(t, got.Charts, 50)
		for _, ch := range got.Charts {
			assert.Equal(t, tc.uid, ch.Uploader)
			assert.Equal(t, tc.analyzed, ch.Analyzed, "chart %d", ch.ID)
			assert.Equal(t, tc.analyzed, ch.RefConst != nil, "chart %d: values exactly when analysed", ch.ID)
		}
		single, err := c.Chart(t.Context(), got.Charts[0].ID)
		require.NoError(t, err)
		assert.Equal(t, single.RefConst, got.Charts[0].RefConst, "the tag is the stored value")
	}
}

func TestCharterUnknownAuthorIsEmptyNotAnError(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	got, err := c.Charter(t.Context(), 4242, nil)
	require.NoError(t, err)
	assert.Empty(t, got.Charts)
	assert.False(t, got.HasMore)
}

func TestCharterAndPlayerUpstreamDownIsAnError(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithUpstreamDown(true)))
	c := newClient(t, srv.URL)

	got, err := c.Charter(t.Context(), chartdifftest.AuthorProlific, nil)
	assert.Nil(t, got, "never an empty list")
	require.ErrorIs(t, err, chartdiff.ErrUpstreamUnavailable)
	ae := testkit.APIError(t, err)
	assert.Equal(t, http.StatusBadGateway, ae.StatusCode)
	assert.NotEmpty(t, ae.Message)

	p, err := c.Player(t.Context(), 2)
	assert.Nil(t, p)
	require.ErrorIs(t, err, chartdiff.ErrUpstreamUnavailable)

	srv.SetUpstreamDown(false)
	got, err = c.Charter(t.Context(), chartdifftest.AuthorProlific, nil)
	require.NoError(t, err)
	assert.NotEmpty(t, got.Charts)
}

func TestCharterUpstreamDownIsRetried(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithUpstreamDown(true)))
	c := newClient(t, srv.URL, chartdiff.WithRetry(sdk.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}))

	_, err := c.Charter(t.Context(), chartdifftest.AuthorProlific, nil)
	require.ErrorIs(t, err, chartdiff.ErrUpstreamUnavailable)
	assert.Equal(t, 3, testkit.APIError(t, err).Attempts)
	assert.Equal(t, 3, srv.RequestCount(http.MethodGet, "/api/v1/charters/9"))
}

func TestPlayerProfileAndStats(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	p, err := c.Player(t.Context(), 2)
	require.NoError(t, err)
	raw := rawJSON(t, srv, "/players/2")
	assert.Equal(t, 2, p.ID)
	assert.Equal(t, raw["name"], p.Name)
	assert.Equal(t, raw["avatar"], p.Avatar)
	require.NotNil(t, p.Exp)
	assert.EqualValues(t, raw["exp"], *p.Exp)
	assertFloat(t, raw, "rks", p.RKS)
	require.NotNil(t, p.Joined)
	assert.Equal(t, raw["joined"], p.Joined.Format(time.RFC3339))
	require.NotNil(t, p.Stats)
	stats := raw["stats"].(map[string]any)
	require.NotNil(t, p.Stats.Records)
	assert.EqualValues(t, stats["records"], *p.Stats.Records)
	require.NotNil(t, p.Stats.ChartsPlayed)
	assert.EqualValues(t, stats["charts_played"], *p.Stats.ChartsPlayed)
	require.NotNil(t, p.Stats.FullCombos)
	assert.EqualValues(t, stats["full_combos"], *p.Stats.FullCombos)
	assertFloat(t, stats, "average_accuracy", p.Stats.AverageAccuracy)
	assert.NotContains(t, string(p.Raw), "score", "no score details")
	assert.Equal(t, "/api/v1/players/2", srv.Requests()[0].Path)
}

func TestPlayerStatsNullStillSucceeds(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	p, err := c.Player(t.Context(), chartdifftest.PlayerNoStats)
	require.NoError(t, err)
	assert.Equal(t, chartdifftest.PlayerNoStats, p.ID)
	assert.NotEmpty(t, p.Name)
	assert.Nil(t, p.Stats)
	assert.Contains(t, string(p.Raw), `"stats":null`)
}

func TestPlayerNotFound(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	p, err := c.Player(t.Context(), chartdifftest.Players+1)
	assert.Nil(t, p)
	require.ErrorIs(t, err, chartdiff.ErrPlayerNotFound)
	ae := testkit.APIError(t, err)
	assert.Equal(t, http.StatusNotFound, ae.StatusCode)
	assert.Equal(t, "player_not_found", ae.Code)
	assert.ErrorIs(t, err, chartdiff.ErrNotFound, "every 404 matches the status sentinel; ErrPlayerNotFound tells a missing player apart")
}

func TestPlayerDecodesLeniently(t *testing.T) {
	t.Parallel()
	srv := serveFixture(t, http.StatusOK, "player_uid.json")
	c, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL))
	require.NoError(t, err)
	p, err := c.Player(t.Context(), 7)
	require.NoError(t, err, "a player answered with uid and no id is a player")
	assert.Equal(t, 7, p.ID)
	assert.Equal(t, "Mira", p.Name)
	assert.Equal(t, "https://cdn.example/a/7.png", p.Avatar, "an avatar object gives its url")
	require.NotNil(t, p.Exp)
	assert.Equal(t, 0, *p.Exp, "a computed 0 is kept")
	require.NotNil(t, p.RKS)
	assert.InDelta(t, 15.21, *p.RKS, 1e-9)
	require.NotNil(t, p.Joined)
	assert.Equal(t, 2024, p.Joined.Year())
	assert.Nil(t, p.Stats, "stats null: unavailable")

	srv = serveFixture(t, http.StatusOK, "player_sparse.json")
	c, err = chartdiff.New(chartdiff.WithBaseURL(srv.URL))
	require.NoError(t, err)
	p, err = c.Player(t.Context(), 12)
	require.NoError(t, err, "values of unexpected types do not fail the answer")
	assert.Equal(t, 12, p.ID, "without id or uid the player is the one asked for")
	assert.Nil(t, p.Exp, "an exp that is not a number is unknown, not 0")
	assert.Nil(t, p.Joined)
	assert.Contains(t, string(p.Raw), `"exp": "lots"`, "the raw answer keeps what was not read")
}
