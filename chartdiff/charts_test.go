package chartdiff_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/internal/testkit"
)

// numField returns the raw JSON number of key, and whether the key was present.
func numField(m map[string]any, key string) (float64, bool) {
	v, ok := m[key]
	if !ok {
		return 0, false
	}
	return v.(float64), true
}

// assertValue checks a decoded pointer against the raw JSON object: nil exactly when the key
// is absent, and the same number when present.
func assertFloat(t *testing.T, raw map[string]any, key string, got *float64) {
	t.Helper()
	want, ok := numField(raw, key)
	if !ok {
		assert.Nil(t, got, "%s is absent in the JSON, so it must be nil", key)
		return
	}
	if assert.NotNil(t, got, "%s is present in the JSON", key) {
		assert.Equal(t, want, *got, key)
	}
}

func TestChartAnalyzedDecodesEveryField(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	ch, err := c.Chart(t.Context(), chartdifftest.ChartAnalyzed)
	require.NoError(t, err)
	raw := rawJSON(t, srv, "/charts/1")

	assert.Equal(t, chartdifftest.ChartAnalyzed, ch.ID)
	assert.True(t, ch.Analyzed)
	assert.Equal(t, raw["name"], ch.Name)
	assert.Equal(t, "HD", ch.Level, "level is the difficulty-prefix string")
	assert.Equal(t, raw["charter"], ch.Charter)
	assert.Equal(t, raw["engine_version"], ch.EngineVersion)
	for key, got := range map[string]*float64{"difficulty": ch.Difficulty, "ref_const": ch.RefConst, "ref_official": ch.RefOfficial, "ps_score": ch.PSScore, "nps": ch.NPS} {
		require.Contains(t, raw, key)
		assertFloat(t, raw, key, got)
	}
	require.NotNil(t, ch.Notes)
	assert.EqualValues(t, raw["notes"], *ch.Notes)
	assert.EqualValues(t, raw["uploader"], ch.Uploader)
	require.NotNil(t, ch.AnalyzedAt)
	assert.JSONEq(t, mustJSON(t, raw), string(ch.Raw))

	assert.Equal(t, http.StatusOK, ch.Response.StatusCode)
	require.NotNil(t, ch.Response.RateLimit, "rate-limit headers are exposed")
	assert.Equal(t, 100, *ch.Response.RateLimit.Limit, "anonymous quota")

	reqs := srv.Requests()
	assert.Equal(t, "/api/v1/charts/1", reqs[0].Path)
	assert.Equal(t, http.MethodGet, reqs[0].Method)
}

func TestChartNotAnalyzedHasNilValues(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	ch, err := c.Chart(t.Context(), chartdifftest.ChartNotAnalyzed)
	require.NoError(t, err, "a chart never analysed is a 200, not a 404")
	raw := rawJSON(t, srv, "/charts/4")
	for _, key := range []string{"ref_const", "ref_official", "ps_score", "nps", "notes"} {
		assert.NotContains(t, raw, key, "the fake leaves %s absent", key)
	}
	assert.False(t, ch.Analyzed)
	assert.NotEmpty(t, ch.Name)
	assert.Nil(t, ch.RefConst)
	assert.Nil(t, ch.RefOfficial)
	assert.Nil(t, ch.PSScore)
	assert.Nil(t, ch.NPS)
	assert.Nil(t, ch.Notes)
	assert.Nil(t, ch.AnalyzedAt)
}

func TestChartComputedZeroIsNotNil(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	ch, err := c.Chart(t.Context(), chartdifftest.ChartZero)
	require.NoError(t, err)
	raw := rawJSON(t, srv, "/charts/3")
	assert.True(t, ch.Analyzed)
	for key, got := range map[string]*float64{"ref_const": ch.RefConst, "ref_official": ch.RefOfficial, "ps_score": ch.PSScore, "nps": ch.NPS} {
		v, present := numField(raw, key)
		require.True(t, present, "%s is sent as 0", key)
		require.Zero(t, v)
		if assert.NotNil(t, got, "a computed 0 of %s must not read as absent", key) {
			assert.Zero(t, *got)
		}
	}
	if assert.NotNil(t, ch.Notes) {
		assert.Zero(t, *ch.Notes)
	}
}

func TestChartUnknownIsNotAnalyzed(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	ch, err := c.Chart(t.Context(), 987654)
	require.NoError(t, err)
	assert.Equal(t, 987654, ch.ID)
	assert.False(t, ch.Analyzed)
	assert.Empty(t, ch.Name)
	assert.Nil(t, ch.Difficulty)
	assert.Nil(t, ch.RefConst)
}

func TestChartNullValuesAreNil(t *testing.T) {
	t.Parallel()
	srv := serveFixture(t, http.StatusOK, "chart_null_values.json")
	c, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL))
	require.NoError(t, err)

	ch, err := c.Chart(t.Context(), 12)
	require.NoError(t, err)
	assert.False(t, ch.Analyzed)
	assert.Nil(t, ch.RefConst, "null is absent too")
	assert.Nil(t, ch.Notes)
	if assert.NotNil(t, ch.NPS, "0 stays a value") {
		assert.Zero(t, *ch.NPS)
	}
	assert.Contains(t, string(ch.Raw), `"extra_field"`, "unknown fields are kept in Raw")
}

func TestChartsDefaultPage(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	page, err := c.Charts(t.Context(), nil)
	require.NoError(t, err)
	assert.Equal(t, 200, page.Total, "total is the true count")
	assert.Equal(t, 1, page.Page)
	assert.Equal(t, chartdiff.DefaultPageSize, page.PageSize)
	require.Len(t, page.Charts, 50)
	for i, ch := range page.Charts {
		assert.Equal(t, i+1, ch.ID, "default sort is chart_id asc")
		assert.NotEmpty(t, ch.Raw)
		assert.Zero(t, ch.Response.StatusCode, "charts inside a list carry no response")
	}
	assert.Empty(t, srv.Requests()[0].Query, "defaults are not sent")
	assert.NotNil(t, page.Response.RateLimit)
}

func TestChartsPaging(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	page, err := c.Charts(t.Context(), &chartdiff.ChartsParams{Page: 2, PageSize: 30})
	require.NoError(t, err)
	assert.Equal(t, 200, page.Total)
	assert.Equal(t, 2, page.Page)
	assert.Equal(t, 30, page.PageSize)
	require.Len(t, page.Charts, 30)
	assert.Equal(t, 31, page.Charts[0].ID)
	assert.Equal(t, 60, page.Charts[29].ID)
	q := srv.Requests()[0].Query
	assert.Equal(t, url.Values{"page": {"2"}, "pageSize": {"30"}}, q)

	past, err := c.Charts(t.Context(), &chartdiff.ChartsParams{Page: 9, PageSize: chartdiff.MaxPageSize})
	require.NoError(t, err)
	assert.Empty(t, past.Charts)
	assert.NotNil(t, past.Charts, "an empty page is an empty list, decoded from a present field")
	assert.Equal(t, 200, past.Total)
}

// sortValue returns the value a chart is sorted by, and whether it has one.
func sortValue(ch chartdiff.Chart, f chartdiff.SortField) (float64, string, bool) {
	ptr := func(p *float64) (float64, string, bool) {
		if p == nil {
			return 0, "", false
		}
		return *p, "", true
	}
	switch f {
	case chartdiff.SortChartID:
		return float64(ch.ID), "", true
	case chartdiff.SortName:
		return 0, ch.Name, true
	case chartdiff.SortLevel:
		return 0, ch.Level, true
	case chartdiff.SortDifficulty:
		return ptr(ch.Difficulty)
	case chartdiff.SortRefConst:
		return ptr(ch.RefConst)
	case chartdiff.SortRefOfficial:
		return ptr(ch.RefOfficial)
	case chartdiff.SortPSScore:
		return ptr(ch.PSScore)
	case chartdiff.SortNPS:
		return ptr(ch.NPS)
	case chartdiff.SortNotes:
		if ch.Notes == nil {
			return 0, "", false
		}
		return float64(*ch.Notes), "", true
	}
	panic("unknown sort field")
}

func TestChartsSortByEveryField(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	for _, field := range chartdiff.SortFields() {
		for _, order := range []chartdiff.Order{chartdiff.Asc, chartdiff.Desc} {
			page, err := c.Charts(t.Context(), &chartdiff.ChartsParams{Sort: field, Order: order, PageSize: 200})
			require.NoError(t, err, "%s %s", field, order)
			require.Len(t, page.Charts, 200)
			seenAbsent := false
			for i := 1; i < len(page.Charts); i++ {
				an, as, aok := sortValue(page.Charts[i-1], field)
				bn, bs, bok := sortValue(page.Charts[i], field)
				if !aok {
					seenAbsent = true
				}
				if seenAbsent {
					assert.False(t, bok, "%s %s: charts without a value come last", field, order)
					continue
				}
				if !bok {
					continue
				}
				if order == chartdiff.Desc {
					an, bn, as, bs = bn, an, bs, as
				}
				assert.True(t, an < bn || an == bn && as <= bs, "%s %s: position %d out of order", field, order, i)
			}
			q := srv.Requests()[len(srv.Requests())-1].Query
			assert.Equal(t, string(field), q.Get("sort"))
			assert.Equal(t, string(order), q.Get("order"))
		}
	}
}

// allCharts lists every chart of srv with the client.
func allCharts(t *testing.T, c *chartdiff.Client) []chartdiff.Chart {
	t.Helper()
	var out []chartdiff.Chart
	for ch, err := range c.AllCharts(t.Context(), &chartdiff.ChartsParams{PageSize: chartdiff.MaxPageSize}) {
		require.NoError(t, err)
		out = append(out, ch)
	}
	return out
}

// ids returns the ids of charts that pass keep.
func ids(charts []chartdiff.Chart, keep func(chartdiff.Chart) bool) []int {
	var out []int
	for _, ch := range charts {
		if keep(ch) {
			out = append(out, ch.ID)
		}
	}
	return out
}

func TestChartsFilters(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)
	all := allCharts(t, c)
	require.Len(t, all, 200)

	stats, err := c.Stats(t.Context())
	require.NoError(t, err)
	current := stats.EngineVersion
	require.NotEmpty(t, current)

	cases := []struct {
		name string
		opts chartdiff.ChartsParams
		keep func(chartdiff.Chart) bool
	}{
		{"q is a case-insensitive substring of the name", chartdiff.ChartsParams{Query: "eCHo"}, func(ch chartdiff.Chart) bool {
			return strings.Contains(strings.ToLower(ch.Name), "echo")
		}},
		{"level is a prefix", chartdiff.ChartsParams{Level: "IN"}, func(ch chartdiff.Chart) bool { return strings.HasPrefix(ch.Level, "IN") }},
		{"only official", chartdiff.ChartsParams{Filter: chartdiff.FilterOfficial}, func(ch chartdiff.Chart) bool { return ch.Analyzed && ch.RefOfficial != nil }},
		{"only stale against the current engine", chartdiff.ChartsParams{Filter: chartdiff.FilterStale}, func(ch chartdiff.Chart) bool {
			return ch.Analyzed && ch.EngineVersion != current
		}},
		{"only stale against a given build", chartdiff.ChartsParams{Filter: chartdiff.FilterStale, Build: chartdifftest.OldEngineVersion}, func(ch chartdiff.Chart) bool {
			return ch.Analyzed && ch.EngineVersion != chartdifftest.OldEngineVersion
		}},
		{"filters combine", chartdiff.ChartsParams{Level: "SP", Filter: chartdiff.FilterOfficial}, func(ch chartdiff.Chart) bool {
			return ch.Level == "SP" && ch.Analyzed && ch.RefOfficial != nil
		}},
	}
	for _, tc := range cases {
		want := ids(all, tc.keep)
		require.NotEmpty(t, want, tc.name)
		require.Less(t, len(want), len(all), tc.name)
		opts := tc.opts
		opts.PageSize = 200
		page, err := c.Charts(t.Context(), &opts)
		require.NoError(t, err, tc.name)
		assert.Equal(t, len(want), page.Total, tc.name)
		assert.Equal(t, want, ids(page.Charts, func(chartdiff.Chart) bool { return true }), tc.name)
	}

	q := srv.Requests()[len(srv.Requests())-1].Query
	assert.Equal(t, url.Values{"level": {"SP"}, "only": {"official"}, "pageSize": {"200"}}, q)
}

func TestChartsQueryLengthCountsCharacters(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	sixty := strings.Repeat("譜", 60) // 180 bytes, 60 characters
	page, err := c.Charts(t.Context(), &chartdiff.ChartsParams{Query: sixty})
	require.NoError(t, err, "60 characters are allowed however many bytes they take")
	assert.Zero(t, page.Total)
	q := srv.Requests()[0].Query
	assert.Equal(t, sixty, q.Get("q"))

	_, err = c.Charts(t.Context(), &chartdiff.ChartsParams{Query: sixty + "譜"})
	assert.Equal(t, "q", testkit.ValidationError(t, err).Field)
	assert.Len(t, srv.Requests(), 1, "no request for 61 characters")
}

func TestAllChartsThousandChartsInFiveRequests(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithCharts(1000)))
	c := newClient(t, srv.URL)

	seen := map[int]bool{}
	for ch, err := range c.AllCharts(t.Context(), &chartdiff.ChartsParams{PageSize: 200}) {
		require.NoError(t, err)
		require.False(t, seen[ch.ID], "chart %d twice", ch.ID)
		seen[ch.ID] = true
	}
	assert.Len(t, seen, 1000)
	assert.Equal(t, 5, srv.RequestCount(http.MethodGet, "/api/v1/charts"))
	for i, r := range srv.Requests() {
		q := r.Query
		assert.Equal(t, itoa(i+1), q.Get("page"))
		assert.Equal(t, "200", q.Get("pageSize"))
	}
}

func TestAllChartsBreakSendsNoFurtherRequest(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithCharts(1000)))
	c := newClient(t, srv.URL)

	n := 0
	for _, err := range c.AllCharts(t.Context(), &chartdiff.ChartsParams{PageSize: 200}) {
		require.NoError(t, err)
		if n++; n == 3 {
			break
		}
	}
	assert.Equal(t, 1, srv.RequestCount(http.MethodGet, "/api/v1/charts"))

	n = 0
	for _, err := range c.AllCharts(t.Context(), &chartdiff.ChartsParams{PageSize: 200}) {
		require.NoError(t, err)
		if n++; n == 200 {
			break // the last chart of the first page: the second page is never fetched
		}
	}
	assert.Equal(t, 2, srv.RequestCount(http.MethodGet, "/api/v1/charts"))

	n = 0
	for _, err := range c.AllCharts(t.Context(), &chartdiff.ChartsParams{PageSize: 200}) {
		require.NoError(t, err)
		if n++; n == 250 {
			break
		}
	}
	assert.Equal(t, 4, srv.RequestCount(http.MethodGet, "/api/v1/charts"))
}

func TestAllChartsStopsOnShortPageAndStartsAtPage(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	var got []int
	for ch, err := range c.AllCharts(t.Context(), &chartdiff.ChartsParams{PageSize: 150}) {
		require.NoError(t, err)
		got = append(got, ch.ID)
	}
	assert.Len(t, got, 200)
	assert.Equal(t, 2, srv.RequestCount(http.MethodGet, "/api/v1/charts"), "the short second page ends the iteration")

	opts := &chartdiff.ChartsParams{Page: 4, PageSize: 50}
	got = got[:0]
	for ch, err := range c.AllCharts(t.Context(), opts) {
		require.NoError(t, err)
		got = append(got, ch.ID)
	}
	require.Len(t, got, 50)
	assert.Equal(t, 151, got[0])
	assert.Equal(t, 3, srv.RequestCount(http.MethodGet, "/api/v1/charts"), "page 4 is the last: total reached")
	assert.Equal(t, chartdiff.ChartsParams{Page: 4, PageSize: 50}, *opts, "the caller's options are not changed")
}

func TestAllChartsYieldsErrorOnce(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	items, errs := 0, 0
	for _, err := range c.AllCharts(t.Context(), &chartdiff.ChartsParams{PageSize: 100}) {
		if err != nil {
			errs++
			assert.ErrorIs(t, err, chartdiff.ErrCacheUnavailable)
			continue
		}
		if items++; items == 100 {
			srv.SetCacheDown(true)
		}
	}
	assert.Equal(t, 100, items)
	assert.Equal(t, 1, errs)
	assert.Equal(t, 2, srv.RequestCount(http.MethodGet, "/api/v1/charts"))
}

func TestAllChartsInvalidOptionsSendNothing(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	var errs []error
	for _, opts := range []chartdiff.ChartsParams{{PageSize: 201}, {Page: -1}, {Order: "sideways"}} {
		for _, err := range c.AllCharts(t.Context(), &opts) {
			errs = append(errs, err)
		}
	}
	require.Len(t, errs, 3)
	assert.Equal(t, "pageSize", testkit.ValidationError(t, errs[0]).Field)
	assert.Equal(t, "page", testkit.ValidationError(t, errs[1]).Field, "a negative page is refused, not read as page 1")
	assert.Equal(t, "order", testkit.ValidationError(t, errs[2]).Field)
	assert.Empty(t, srv.Requests())
}

func TestListDecodeFollowsTheTotal(t *testing.T) {
	t.Parallel()
	decode := func(fixture string) (*chartdiff.ChartPage, error) {
		srv := serveFixture(t, http.StatusOK, fixture)
		c, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL))
		require.NoError(t, err)
		return c.Charts(t.Context(), nil)
	}
	page, err := decode("page_items.json")
	require.NoError(t, err, "the list may be called items")
	require.Len(t, page.Charts, 1)
	assert.Equal(t, 1, page.Charts[0].ID)
	assert.Equal(t, 3, page.Total)

	page, err = decode("page_null_charts.json")
	require.NoError(t, err, "a null list with total 0 is an empty page")
	assert.Equal(t, 0, page.Total)
	assert.NotNil(t, page.Charts)
	assert.Empty(t, page.Charts)

	for _, fixture := range []string{"page_missing_list.json", "page_null_charts_total.json"} {
		page, err = decode(fixture)
		assert.Nil(t, page, fixture)
		var de *sdk.DecodeError
		require.True(t, errors.As(err, &de), "%s: a missing list while total says more must not read as empty: %v", fixture, err)
		assert.Contains(t, de.Error(), "missing or null while total is", fixture)
	}
}

// TestNumbersAreFiniteOrRefused: NaN and infinities are never values. A value the API
// description names (ref_const) that is not a finite number, as text or as an out-of-range
// JSON number, fails the answer; a count it does not name (coverage) is then absent.
func TestNumbersAreFiniteOrRefused(t *testing.T) {
	t.Parallel()
	for _, v := range []string{`"NaN"`, `"Infinity"`, `"-Infinity"`, `"inf"`, `"1e999"`, `1e999`, `-1e999`} {
		srv := testkit.Record(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
			if r.URL.Path == "/api/v1/stats" {
				testkit.Reply(w, http.StatusOK, `{"charts_stored":3,"coverage":`+v+`}`)
				return
			}
			testkit.Reply(w, http.StatusOK, `{"chart_id":1,"analyzed":true,"ref_const":`+v+`}`)
		})
		c := newClient(t, srv.URL)
		_, err := c.Chart(t.Context(), 1)
		var de *sdk.DecodeError
		assert.ErrorAs(t, err, &de, v)
		stats, err := c.Stats(t.Context())
		require.NoError(t, err, v)
		assert.Nil(t, stats.Coverage, v)
		assert.Equal(t, 3, *stats.ChartsStored, v)
	}
}

// TestAllChartsStopsOnARepeatedPage: a server that ignores the page number and returns the
// same page for every one would make the iteration read for ever; it ends after the second
// request with an *sdk.PagingError, the first page's charts yielded once.
func TestAllChartsStopsOnARepeatedPage(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusOK,
		`{"total":1000,"page":1,"pageSize":2,"charts":[{"chart_id":1,"analyzed":false},{"chart_id":2,"analyzed":false}]}`))
	c := newClient(t, srv.URL)
	var ids []int
	var stopped error
	for ch, err := range c.AllCharts(t.Context(), &chartdiff.ChartsParams{PageSize: 2}) {
		if err != nil {
			stopped = err
			continue
		}
		ids = append(ids, ch.ID)
	}
	assert.Equal(t, []int{1, 2}, ids)
	var pe *sdk.PagingError
	require.ErrorAs(t, stopped, &pe)
	assert.ErrorIs(t, stopped, sdk.ErrRepeatedPage)
	assert.Equal(t, "chartdiff", pe.Service)
	assert.Equal(t, 2, pe.Page)
	assert.Len(t, srv.Requests(), 2)
}
