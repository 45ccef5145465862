package productdata_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/productdata"
)

func TestProductDecodesTheOfficialFieldNames(t *testing.T) {
	t.Parallel()
	full := map[string]any{
		"Title": "Anker Power Bank", "Photo": []string{"https://m.media-amazon.com/images/I/1.jpg"}, "StoreName": "AnkerDirect",
		"ASIN": "B0CVM8TXHP", "ParentAsin": nil, "Price": 4599, "ListPrice": 5999, "SalesPrice": 3999, "Coupon": -10,
		"Brand": "Anker", "ListingSalesVolumeOfDaily": 310, "ListingSalesVolumeOfMonth": 9300, "ListingSalesOfMonth": 37190700,
		"BuyboxSeller": "AnkerDirect", "BuyboxSellerId": "A294P4X9EWVXLJ", "BuyboxSellerAddress": "CN", "IsFBA": true,
		"FbaFee": 475, "FbaDetetail": []any{"475", "1-9:5"}, "PlatformFee": 600, "Profit": 2924, "ProfitRate": 73.12,
		"OnlineDate": "2024-02-20", "OnlineDays": 640, "Ratings": 4.8, "RatingsCount": 21034, "Rank": 35,
		"Category": []string{"Cell Phones & Accessories", "2335752011"}, "BsrCategory": []any{[]any{"Portable Power Banks", "7073960011", "1"}},
		"VariationASINCount": 3, "SellerCount": 1, "HasVideo": false, "APlus": true, "Size": []any{"15.6", 7.9, "2.6"}, "Weight": 340,
		"ExtraSavings": []any{map[string]any{"Asin": "B0BZS461JG", "Text": "Save 5%"}},
		"PriceTrend":   []any{"2024-11-01", 4599, "2024-11-02", 3999}, "SalesVolumeTrend": []any{20241101, 300, 20241102, nil},
	}
	srv := newAPI(t, nil, func(r received) reply { return ok(t, full, 6499, 1) })
	c := newClient(t, srv)
	p, err := c.Product(t.Context(), productdata.AmazonUS, "B0CVM8TXHP")
	require.NoError(t, err)

	assert.Equal(t, map[string]any{"domain": 1.0, "asin": "B0CVM8TXHP"}, srv.requests()[0].Body)
	assert.Equal(t, "B0CVM8TXHP", p.ASIN)
	assert.Equal(t, 3999, p.SalesPrice, "SalesPrice is the price after coupon")
	assert.Equal(t, 4599, *p.Price)
	assert.Equal(t, 9300, p.ListingSalesVolumeOfMonth)
	assert.Equal(t, -10, *p.Coupon)
	assert.Empty(t, p.ParentAsin, "null parent: no variations")
	assert.Equal(t, "A294P4X9EWVXLJ", p.BuyboxSellerId)
	assert.True(t, *p.IsFBA)
	assert.False(t, *p.HasVideo, "false is a value, not absent")
	assert.Nil(t, p.HasBrandStore, "absent stays nil")
	assert.Nil(t, p.ShipCost)
	assert.Equal(t, 73.12, *p.ProfitRate)
	assert.Equal(t, []string{"475", "1-9:5"}, p.FbaDetetail)
	assert.Equal(t, []string{"15.6", "7.9", "2.6"}, p.Size, "numbers among texts are kept as text")
	assert.Equal(t, 340.0, *p.Weight)
	require.Len(t, p.BsrCategory, 1)
	assert.Equal(t, "7073960011", p.BsrCategory[0].NodeID)
	assert.Equal(t, 1, *p.BsrCategory[0].Rank)
	assert.Equal(t, []productdata.ExtraSaving{{Asin: "B0BZS461JG", Text: "Save 5%"}}, p.ExtraSavings)
	assert.Equal(t, productdata.Series{{Date: "2024-11-01", Value: testkit.Ptr(4599.0)}, {Date: "2024-11-02", Value: testkit.Ptr(3999.0)}}, p.PriceTrend)
	require.Len(t, p.SalesVolumeTrend, 2)
	assert.Equal(t, "20241102", p.SalesVolumeTrend[1].Date)
	assert.Nil(t, p.SalesVolumeTrend[1].Value, "a null value is absent, not 0 and not NaN")
	assert.Equal(t, 6499, *p.Units.Left)
	assert.Equal(t, 1, *p.Units.Consumed)
	var raw map[string]any
	require.NoError(t, json.Unmarshal(p.Raw, &raw))
	assert.Equal(t, "Anker Power Bank", raw["Title"])

	// Encoding a product writes the official names back.
	b, err := json.Marshal(p)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"SalesPrice":3999`)
	assert.Contains(t, string(b), `"BsrCategory":[["Portable Power Banks","7073960011","1"]]`)
	assert.Contains(t, string(b), `"SalesVolumeTrend":["20241101",300,"20241102",null]`)
}

func TestProductRefusesAnswersWithoutTheNamedFields(t *testing.T) {
	t.Parallel()
	for name, data := range map[string]any{
		// A server that used other names: the values would otherwise come back empty.
		"Price instead of SalesPrice":      map[string]any{"ASIN": "B0CVM8TXHP", "Price": 3999, "ListingSalesVolumeOfMonth": 10},
		"MonthSales instead of the volume": map[string]any{"ASIN": "B0CVM8TXHP", "SalesPrice": 3999, "MonthSales": 10},
		"null SalesPrice":                  map[string]any{"ASIN": "B0CVM8TXHP", "SalesPrice": nil, "ListingSalesVolumeOfMonth": 10},
		"SalesPrice as text":               map[string]any{"ASIN": "B0CVM8TXHP", "SalesPrice": "39.99", "ListingSalesVolumeOfMonth": 10},
		"no ASIN":                          map[string]any{"SalesPrice": 1, "ListingSalesVolumeOfMonth": 10},
		"empty ASIN":                       map[string]any{"ASIN": "", "SalesPrice": 1, "ListingSalesVolumeOfMonth": 10},
		"a list of other things":           []any{"B0CVM8TXHP"},
	} {
		srv := newAPI(t, nil, func(r received) reply { return ok(t, data, 10, 1) })
		c := newClient(t, srv)
		_, err := c.Product(t.Context(), productdata.AmazonUS, "B0CVM8TXHP")
		de := testkit.DecodeError(t, err)
		assert.Equal(t, "/api/ProductRequest", de.Path, name)
	}
}

func TestProductToleratesUnexpectedTypesInUnshownFields(t *testing.T) {
	t.Parallel()
	data := map[string]any{"ASIN": "B0CVM8TXHP", "SalesPrice": 3999, "ListingSalesVolumeOfMonth": 10,
		"Rank": "n/a", "IsFBA": "yes", "Title": 42, "Photo": map[string]any{"main": "x"}, "BsrCategory": "none", "PriceTrend": []any{1, 2, 3}}
	srv := newAPI(t, nil, func(r received) reply { return ok(t, data, 10, 1) })
	c := newClient(t, srv)
	p, err := c.Product(t.Context(), productdata.AmazonUS, "B0CVM8TXHP")
	require.NoError(t, err)
	assert.Nil(t, p.Rank, "a rank that is not a number is absent, never 0")
	assert.Nil(t, p.IsFBA)
	assert.Empty(t, p.Title)
	assert.Nil(t, p.Photo)
	assert.Nil(t, p.BsrCategory)
	assert.Nil(t, p.PriceTrend, "an odd-length trend is not paired up")
	assert.Contains(t, string(p.Raw), `"Rank":"n/a"`, "Raw keeps what was sent")
}

func TestProductsOfSeveralASINs(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply {
		return ok(t, []any{product("B0CVM8TXHP", 3999, 9300), product("B0D3DL6PXQ", 2599, -1)}, 6497, 3)
	})
	c := newClient(t, srv)
	list, err := c.Products(t.Context(), productdata.AmazonDE, &productdata.ProductsParams{
		ASINs: []string{"B0CVM8TXHP", "b0d3dl6pxq", "B0GONE0000"}, TrendStart: time.Date(2024, 10, 1, 0, 0, 0, 0, time.UTC), TrendEnd: time.Date(2024, 10, 31, 0, 0, 0, 0, time.UTC),
	})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"domain": 3.0, "asin": "B0CVM8TXHP,b0d3dl6pxq,B0GONE0000",
		"QueryTrendStartDt": "2024-10-01", "QueryTrendEndDt": "2024-10-31"}, srv.requests()[0].Body)
	require.Len(t, list.Products, 2)
	assert.Equal(t, productdata.Unknown, list.Products[1].ListingSalesVolumeOfMonth)
	assert.Equal(t, []string{"B0GONE0000"}, list.Missing, "an ASIN matches in any letter case; the missing one is listed")
	assert.Equal(t, 3, *list.Units.Consumed)
}

func TestProductWithoutDataIsNotFound(t *testing.T) {
	t.Parallel()
	for _, data := range []any{nil, []any{}, []any{product("B0OTHER000", 1, 1)}} {
		srv := newAPI(t, nil, func(r received) reply { return ok(t, data, 10, 1) })
		c := newClient(t, srv)
		_, err := c.Product(t.Context(), productdata.AmazonUS, "B0GONE0000")
		require.ErrorIs(t, err, productdata.ErrNotFound)
		var nf *productdata.NotFoundError
		require.ErrorAs(t, err, &nf)
		assert.Equal(t, []string{"B0GONE0000"}, nf.Missing)
		assert.Equal(t, 1, *nf.Units.Consumed, "the lookup was charged")
	}
	srv := newAPI(t, nil, func(r received) reply { return fail(97, "ASIN does not exist") })
	_, err := newClient(t, srv).Product(t.Context(), productdata.AmazonUS, "B0GONE0000")
	require.ErrorIs(t, err, productdata.ErrNotFound)
}

func TestProductInputIsValidatedBeforeSending(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return ok(t, nil, 1, 1) })
	c := newClient(t, srv)
	eleven := make([]string, 11)
	for i := range eleven {
		eleven[i] = "B0CVM8TXH" + string(rune('A'+i))
	}
	day := time.Date(2024, 10, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		q     *productdata.ProductsParams
		field string
	}{
		{&productdata.ProductsParams{}, "asin"},
		{&productdata.ProductsParams{ASINs: eleven}, "asin"},
		{&productdata.ProductsParams{ASINs: []string{"B0CVM8TXHP", "b0cvm8txhp"}}, "asin"},
		{&productdata.ProductsParams{ASINs: []string{"B0CVM8TXH"}}, "asin"},
		{&productdata.ProductsParams{ASINs: []string{"B0CVM8TXHP,B0D3DL6PXQ"}}, "asin"},
		{&productdata.ProductsParams{ASINs: []string{"B0CVM8TX P"}}, "asin"},
		{&productdata.ProductsParams{ASINs: []string{"B0CVM8TXHP"}, TrendEnd: day}, "QueryTrendEndDt"},
		{&productdata.ProductsParams{ASINs: []string{"B0CVM8TXHP"}, TrendStart: day, TrendEnd: day.AddDate(0, 0, -1)}, "QueryTrendEndDt"},
		{&productdata.ProductsParams{ASINs: []string{"B0CVM8TXHP"}, NoTrend: true, TrendStart: day}, "Trend"},
	} {
		_, err := c.Products(t.Context(), productdata.AmazonUS, tc.q)
		assert.Equal(t, tc.field, testkit.ValidationError(t, err).Field, "%+v", tc.q)
	}
	_, err := c.Product(t.Context(), productdata.WalmartUS, "B0CVM8TXHP")
	assert.Equal(t, "domain", testkit.ValidationError(t, err).Field, "typed methods read Amazon's objects")
	assert.Contains(t, err.Error(), "use Call")
	_, err = c.Product(t.Context(), 99, "B0CVM8TXHP")
	assert.Equal(t, "domain", testkit.ValidationError(t, err).Field)
	assert.Empty(t, srv.requests())
}

func TestProductsWithoutTrend(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return ok(t, product("B0CVM8TXHP", 1, 1), 1, 1) })
	c := newClient(t, srv)
	list, err := c.Products(t.Context(), productdata.AmazonJP, &productdata.ProductsParams{ASINs: []string{"B0CVM8TXHP"}, NoTrend: true})
	require.NoError(t, err)
	assert.Len(t, list.Products, 1, "a single object is a list of one")
	assert.Empty(t, list.Missing)
	assert.Equal(t, map[string]any{"domain": 7.0, "asin": "B0CVM8TXHP", "Trend": 2.0}, srv.requests()[0].Body)
}

func TestProductTrend(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply {
		return ok(t, map[string]any{"ASIN": "B0CVM8TXHP", "PriceTrend": []any{"20240101", 4599, "20240102", 4499},
			"SalesVolumeTrend": []any{"20240101", 310, "20240102", 298}, "Note": "x"}, 100, 1)
	})
	c := newClient(t, srv)
	tr, err := c.ProductTrend(t.Context(), productdata.AmazonUS, &productdata.ProductTrendParams{ASIN: "B0CVM8TXHP",
		From: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC), TrendType: 1})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"domain": 1.0, "asin": "B0CVM8TXHP", "dateRange": "20240101,20241231", "trendType": 1.0}, srv.requests()[0].Body)
	assert.Len(t, tr.Trends, 2)
	assert.Equal(t, productdata.Series{{"20240101", testkit.Ptr(4599.0)}, {"20240102", testkit.Ptr(4499.0)}}, tr.Trends["PriceTrend"])
	require.NotNil(t, tr.Trends["SalesVolumeTrend"][1].Value)
	assert.Equal(t, 298.0, *tr.Trends["SalesVolumeTrend"][1].Value)
	assert.Contains(t, string(tr.Raw), `"Note":"x"`)

	for _, q := range []*productdata.ProductTrendParams{
		{ASIN: "short"},
		{ASIN: "B0CVM8TXHP", From: time.Now()},
		{ASIN: "B0CVM8TXHP", From: time.Now(), To: time.Now().Add(-48 * time.Hour)},
		{ASIN: "B0CVM8TXHP", TrendType: -1},
	} {
		_, err := c.ProductTrend(t.Context(), productdata.AmazonUS, q)
		testkit.ValidationError(t, err)
	}
	assert.Len(t, srv.requests(), 1)
}

func TestProductTrendShapes(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		data   any
		series int
		fails  bool
	}{
		"a flat list":           {[]any{202401, 10, 202402, 12}, 1, false},
		"null":                  {nil, 0, false},
		"an object of no trend": {map[string]any{"Price": 1}, 0, true},
		"a list of objects":     {[]any{map[string]any{"d": 1}}, 0, true},
	} {
		srv := newAPI(t, nil, func(r received) reply { return ok(t, tc.data, 1, 1) })
		tr, err := newClient(t, srv).ProductTrend(t.Context(), productdata.AmazonUS, &productdata.ProductTrendParams{ASIN: "B0CVM8TXHP"})
		if tc.fails {
			testkit.DecodeError(t, err)
			continue
		}
		require.NoError(t, err, name)
		assert.Len(t, tr.Trends, tc.series, name)
	}
}
