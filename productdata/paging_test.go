package productdata_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/productdata"
)

// pageNumber is the page number a request asked for under key.
func pageNumber(r received, key string) int {
	n, _ := r.Body[key].(float64)
	return int(n)
}

func TestPagesEndsAtNoMoreDataWithoutAnError(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply {
		n := pageNumber(r, "PageIndex")
		if n > 2 {
			return fail(11, "No data available")
		}
		return ok(t, map[string]any{"Keywords": []string{"kw" + string(rune('0'+n))}, "PageIndex": n}, 50-n, 1)
	})
	c := newClient(t, srv)
	var numbers []int
	var consumed int
	for page, err := range c.Pages(t.Context(), productdata.EndpointKeywordQuery, productdata.AmazonUS,
		&productdata.PagesParams{Body: productdata.RawParams{"PageSize": 20}, PageParam: "PageIndex"}) {
		require.NoError(t, err)
		numbers = append(numbers, page.Number)
		consumed += *page.Units.Consumed
		assert.Contains(t, string(page.Data), `"kw`)
	}
	assert.Equal(t, []int{1, 2}, numbers)
	assert.Equal(t, 2, consumed)
	reqs := srv.requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, map[string]any{"domain": 1.0, "PageSize": 20.0, "PageIndex": 1.0}, reqs[0].Body)
	assert.Equal(t, 3.0, reqs[2].Body["PageIndex"])
}

func TestPagesStartsWhereParamsSayAndStopsOnEmptyPagesOrAtARepeatedPage(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply {
		switch n := pageNumber(r, "Page"); {
		case n < 5:
			return ok(t, []any{[]any{"2024-11-01", n, 2}}, 1, 1)
		case n == 5:
			return ok(t, map[string]any{}, 1, 1)
		}
		return ok(t, []any{"never"}, 1, 1)
	})
	c := newClient(t, srv)
	var numbers []int
	for page, err := range c.Pages(t.Context(), productdata.EndpointAsinSalesVolume, productdata.AmazonUS,
		&productdata.PagesParams{Body: productdata.RawParams{"ASIN": "B0CVM8TXHP", "Page": 3}}) {
		require.NoError(t, err)
		numbers = append(numbers, page.Number)
	}
	assert.Equal(t, []int{3, 4}, numbers, "from page 3; the empty object on page 5 ends it")
	assert.Len(t, srv.requests(), 3)

	// A server that ignores the page number sends the same page again: it is not paid
	// forever, and the caller learns why the listing stopped.
	same := newAPI(t, nil, func(r received) reply { return ok(t, []any{"same"}, 1, 1) })
	numbers = nil
	var stopped error
	for page, err := range newClient(t, same).Pages(t.Context(), productdata.EndpointGetFavoriteKeyword, productdata.AmazonUS, nil) {
		if err != nil {
			stopped = err
			continue
		}
		numbers = append(numbers, page.Number)
	}
	assert.Equal(t, []int{1}, numbers)
	assert.Len(t, same.requests(), 2)
	var pe *sdk.PagingError
	require.ErrorAs(t, stopped, &pe)
	assert.ErrorIs(t, stopped, sdk.ErrRepeatedPage)
	assert.Equal(t, 2, pe.Page)
}

func TestPagesRefusesBadInputBeforeSending(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return ok(t, []any{1}, 1, 1) })
	c := newClient(t, srv)
	for _, tc := range []struct {
		endpoint productdata.Endpoint
		params   productdata.RawParams
		field    string
	}{
		{productdata.EndpointProductSearch, productdata.RawParams{"Page": 0}, "Page"},
		{productdata.EndpointProductSearch, productdata.RawParams{"Page": "2"}, "Page"},
		{productdata.EndpointProductSearch, productdata.RawParams{"page": 2}, "Page"},
		{productdata.EndpointProductSearch, productdata.RawParams{"domain": 2}, "params"},
		{"Bad_Name", nil, "endpoint"},
	} {
		var errs []error
		for _, err := range c.Pages(t.Context(), tc.endpoint, productdata.AmazonUS, &productdata.PagesParams{Body: tc.params}) {
			errs = append(errs, err)
		}
		require.Len(t, errs, 1)
		assert.Equal(t, tc.field, testkit.ValidationError(t, errs[0]).Field, "%v", tc.params)
	}
	assert.Empty(t, srv.requests())
}

func TestPagesYieldsAFailureOnceAndStops(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply {
		if pageNumber(r, "Page") == 2 {
			return fail(501, "per minute")
		}
		return ok(t, []any{"a"}, 1, 1)
	})
	c := newClient(t, srv)
	var pages, errs int
	for _, err := range c.Pages(t.Context(), productdata.EndpointProductSearch, productdata.AmazonUS, nil) {
		if err != nil {
			errs++
			require.ErrorIs(t, err, productdata.ErrRateLimited)
			continue
		}
		pages++
	}
	assert.Equal(t, 1, pages)
	assert.Equal(t, 1, errs)
}

func TestPagesCanBeRangedOverAgain(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply {
		if pageNumber(r, "Page") == 2 {
			return fail(11, "No data available")
		}
		return ok(t, []any{"only page"}, 1, 1)
	})
	pages := newClient(t, srv).Pages(t.Context(), productdata.EndpointProductSearch, productdata.AmazonUS, nil)
	for range 2 {
		n := 0
		for _, err := range pages {
			require.NoError(t, err)
			n++
		}
		assert.Equal(t, 1, n, "the second run starts afresh")
	}
	assert.Len(t, srv.requests(), 4)
}
