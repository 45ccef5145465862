package productdata_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/productdata"
)

func TestCategoryReadsTheProductsList(t *testing.T) {
	t.Parallel()
	for name, data := range map[string]any{
		"CategoryObject": map[string]any{"Products": []any{product("B0CVM8TXHP", 3999, 9300), product("B0D3DL6PXQ", 2599, 800)}},
		"lowercase key":  map[string]any{"products": []any{product("B0CVM8TXHP", 3999, 9300), product("B0D3DL6PXQ", 2599, 800)}},
		"a bare list":    []any{product("B0CVM8TXHP", 3999, 9300), product("B0D3DL6PXQ", 2599, 800)},
	} {
		srv := newAPI(t, nil, func(r received) reply { return ok(t, data, 1000, 5) })
		c := newClient(t, srv)
		cat, err := c.Category(t.Context(), productdata.AmazonUS, &productdata.CategoryParams{NodeId: "3743561"})
		require.NoError(t, err, name)
		require.Len(t, cat.Products, 2, name)
		assert.Equal(t, 2599, cat.Products[1].SalesPrice)
		assert.Equal(t, 5, *cat.Units.Consumed)
		assert.Equal(t, map[string]any{"domain": 1.0, "NodeId": "3743561"}, srv.requests()[0].Body)
		assert.Equal(t, "/api/CategoryRequest", srv.requests()[0].Path)
	}
}

func TestCategoryRefusesAListItCannotFind(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return ok(t, map[string]any{"Top": []any{product("B0CVM8TXHP", 1, 1)}}, 1, 5) })
	_, err := newClient(t, srv).Category(t.Context(), productdata.AmazonUS, &productdata.CategoryParams{NodeId: "3743561"})
	de := testkit.DecodeError(t, err)
	assert.ErrorContains(t, de, "Data holds no list")

	srv = newAPI(t, nil, func(r received) reply { return ok(t, map[string]any{"Products": nil}, 1, 5) })
	cat, err := newClient(t, srv).Category(t.Context(), productdata.AmazonUS, &productdata.CategoryParams{NodeId: "3743561"})
	require.NoError(t, err)
	assert.NotNil(t, cat.Products)
	assert.Empty(t, cat.Products, "a null list the service named is empty")
}

func TestProductListsCheckTheTotalBesideThem(t *testing.T) {
	t.Parallel()
	var answers = []map[string]any{
		{"Total": 37, "Products": nil},
		{"TotalCount": 2},
		{"Total": 0},
		{"Count": 0, "Products": nil},
		{"Total": 2, "Products": []any{product("B0CVM8TXHP", 3999, 9300), product("B0D3DL6PXQ", 2599, 800)}},
	}
	var i atomic.Int32
	srv := newAPI(t, nil, func(r received) reply { return ok(t, answers[i.Add(1)-1], 1, 5) })
	c := newClient(t, srv)
	q := &productdata.CategoryParams{NodeId: "3743561"}

	_, err := c.Category(t.Context(), productdata.AmazonUS, q)
	assert.ErrorContains(t, testkit.DecodeError(t, err), "Data says 37 in total but holds no list")
	_, err = c.Category(t.Context(), productdata.AmazonUS, q)
	assert.ErrorContains(t, testkit.DecodeError(t, err), "Data says 2 in total but holds no list")
	for range 2 {
		cat, err := c.Category(t.Context(), productdata.AmazonUS, q)
		require.NoError(t, err, "a total of 0 beside a null or absent list is an empty list")
		assert.NotNil(t, cat.Products)
		assert.Empty(t, cat.Products)
	}
	cat, err := c.Category(t.Context(), productdata.AmazonUS, q)
	require.NoError(t, err)
	assert.Len(t, cat.Products, 2)
}

func TestCategoryHistoryAndValidation(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return ok(t, map[string]any{"Products": []any{}}, 1, 20) })
	c := newClient(t, srv)
	start, end := time.Date(2024, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 10, 6, 0, 0, 0, 0, time.UTC)
	_, err := c.Category(t.Context(), productdata.AmazonUK, &productdata.CategoryParams{NodeId: "3743561", QueryStart: start, QueryDate: end})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"domain": 2.0, "NodeId": "3743561", "QueryStart": "2024-10-01", "QueryDate": "2024-10-06"}, srv.requests()[0].Body)

	for _, q := range []*productdata.CategoryParams{
		{},
		{NodeId: "37 43"},
		{NodeId: "3743561", QueryStart: start},
		{NodeId: "3743561", QueryStart: end, QueryDate: start},
		{NodeId: "3743561", QueryDays: -3},
	} {
		_, err := c.Category(t.Context(), productdata.AmazonUS, q)
		testkit.ValidationError(t, err)
	}
	_, err = c.Category(t.Context(), productdata.ShopeeBR, &productdata.CategoryParams{NodeId: "1"})
	testkit.ValidationError(t, err)
	assert.Len(t, srv.requests(), 1)
}

func TestCategoryProductsPagesUntilNoMoreData(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply {
		page := int(r.Body["Page"].(float64))
		if page > 3 {
			return reply{body: `{"code":11,"message":"No data available"}`}
		}
		items := []any{}
		for i := range 2 {
			items = append(items, product(fmt.Sprintf("B0PAGE%d%03d", page, i), 1000*page+i, 10))
		}
		return ok(t, map[string]any{"Products": items}, 100-page, 5)
	})
	c := newClient(t, srv)
	var got []int
	for p, err := range c.AllCategoryProducts(t.Context(), productdata.AmazonUS, &productdata.CategoryProductsParams{NodeId: "3743561", Range: 500}) {
		require.NoError(t, err)
		got = append(got, p.SalesPrice)
	}
	assert.Equal(t, []int{1000, 1001, 2000, 2001, 3000, 3001}, got)
	reqs := srv.requests()
	require.Len(t, reqs, 4, "three pages and the one that said no more data")
	assert.Equal(t, map[string]any{"domain": 1.0, "NodeId": "3743561", "Page": 1.0, "Range": 500.0}, reqs[0].Body)
	assert.Equal(t, 4.0, reqs[3].Body["Page"])
	u := c.RequestUnits()
	assert.Equal(t, int64(4), u.Sent)
	assert.Equal(t, int64(15), u.Consumed, "the end page reported 0")
}

func TestCategoryProductsStopsOnBreakAndOnEmptyPages(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply {
		if r.Body["Page"].(float64) == 2 {
			return ok(t, []any{}, 1, 5)
		}
		return ok(t, []any{product("B0CVM8TXHP", 1, 1), product("B0D3DL6PXQ", 2, 1)}, 1, 5)
	})
	c := newClient(t, srv)
	for _, err := range c.AllCategoryProducts(t.Context(), productdata.AmazonUS, &productdata.CategoryProductsParams{NodeId: "1"}) {
		require.NoError(t, err)
		break
	}
	assert.Len(t, srv.requests(), 1, "breaking out sends no further request")
	n := 0
	for _, err := range c.AllCategoryProducts(t.Context(), productdata.AmazonUS, &productdata.CategoryProductsParams{NodeId: "1"}) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 2, n)
	assert.Len(t, srv.requests(), 3, "an empty page ends the iteration")
}

func TestCategoryProductsYieldsOtherErrorsOnce(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return fail(694, "not activated") })
	c := newClient(t, srv)
	var errs []error
	for _, err := range c.AllCategoryProducts(t.Context(), productdata.AmazonUS, &productdata.CategoryProductsParams{NodeId: "1"}) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], productdata.ErrQuotaExhausted)

	errs = nil
	for _, err := range c.AllCategoryProducts(t.Context(), productdata.AmazonUS, &productdata.CategoryProductsParams{}) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 1)
	assert.Equal(t, "NodeId", testkit.ValidationError(t, errs[0]).Field)
	assert.Len(t, srv.requests(), 1)
}

func TestKeyword(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply {
		return ok(t, map[string]any{"Keyword": "power bank", "SearchVolume": 1520000, "CPC": 142, "ProductCount": "many",
			"SearchVolumeTrend": []any{202410, 1400000, 202411, 1520000}}, 77, 1)
	})
	c := newClient(t, srv)
	k, err := c.Keyword(t.Context(), productdata.AmazonUS, "power bank")
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"domain": 1.0, "Keyword": "power bank"}, srv.requests()[0].Body)
	assert.Equal(t, "power bank", k.Keyword)
	assert.Equal(t, 1520000, *k.SearchVolume)
	assert.Equal(t, 142, *k.CPC)
	assert.Nil(t, k.ProductCount, "a count that is not a number is absent")
	assert.Equal(t, productdata.Series{{"202410", testkit.Ptr(1400000.0)}, {"202411", testkit.Ptr(1520000.0)}}, k.SearchVolumeTrend)
	assert.Nil(t, k.CPCTrend)
	assert.Equal(t, 77, *k.Units.Left)

	for _, bad := range []string{"", "   ", string([]byte{0xff}), string(make([]rune, 201))} {
		_, err := c.Keyword(t.Context(), productdata.AmazonUS, bad)
		assert.Equal(t, "Keyword", testkit.ValidationError(t, err).Field)
	}
}

func TestKeywordWithoutData(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return ok(t, nil, 1, 1) })
	_, err := newClient(t, srv).Keyword(t.Context(), productdata.AmazonUS, "zzqx")
	require.ErrorIs(t, err, productdata.ErrNotFound)
	srv = newAPI(t, nil, func(r received) reply { return reply{body: `{"Code":11,"Message":"No data available","Data":null}`} })
	_, err = newClient(t, srv).Keyword(t.Context(), productdata.AmazonUS, "zzqx")
	require.ErrorIs(t, err, productdata.ErrNoMoreData)
}

// A server that answers every page number with the same page stops the iteration at the
// second page with an *sdk.PagingError, instead of being paid for page after page.
func TestCategoryProductsStopsAtARepeatedPage(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply {
		return ok(t, map[string]any{"Products": []any{product("B0CVM8TXHP", 1, 1), product("B0D3DL6PXQ", 2, 1)}}, 90, 5)
	})
	c := newClient(t, srv)
	var items int
	var stopped error
	for _, err := range c.AllCategoryProducts(t.Context(), productdata.AmazonUS, &productdata.CategoryProductsParams{NodeId: "1"}) {
		if err != nil {
			stopped = err
			continue
		}
		items++
	}
	assert.Equal(t, 2, items, "the first page's products were real")
	assert.Len(t, srv.requests(), 2, "the repeat is seen on the second page, and no third is bought")
	var pe *sdk.PagingError
	require.ErrorAs(t, stopped, &pe)
	assert.ErrorIs(t, stopped, sdk.ErrRepeatedPage)
	assert.Equal(t, "productdata", pe.Service)
}
