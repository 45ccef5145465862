package productdatatest_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/productdata/productdatatest"
)

// productMembers are the members of ProductObject in the service's field table.
var productMembers = []string{
	"ASIN", "ParentAsin", "Title", "Photo", "EBCPhoto", "StoreName", "Brand", "ProductType",
	"Price", "ListPrice", "Coupon", "SalesPrice", "ListingSalesVolumeOfDaily", "ListingSalesOfDaily",
	"ListingSalesVolumeOfMonth", "ListingSalesOfMonth", "BuyboxSeller", "BuyboxSellerId",
	"BuyboxSellerAddress", "IsFBA", "FbaFee", "FbaDetetail", "ShipCost", "PlatformFee", "Profit",
	"ProfitRate", "OnlineDate", "OnlineDays", "Ratings", "RatingsCount", "Rank", "Category",
	"BsrCategory", "VariationASINCount", "SellerCount", "HasVideo", "APlus", "HasBrandStore", "Size",
	"Weight", "ExtraSavings", "BrandPromotion", "DealType",
}

// trendMembers are ProductRequest's trend members.
var trendMembers = []string{"PriceTrend", "RankTrend", "RatingsCountTrend", "RatingsTrend", "SalesVolumeTrend"}

// product is the members of ProductObject a test checks, typed.
type product struct {
	ASIN                      string
	Title                     string
	Brand                     string
	Price                     int
	ListPrice                 int
	Coupon                    int
	SalesPrice                int
	ListingSalesVolumeOfMonth int
	ListingSalesOfMonth       int
	ListingSalesVolumeOfDaily int
	ListingSalesOfDaily       int
	FbaFee                    int
	PlatformFee               int
	Profit                    int
	Ratings                   float64
	RatingsCount              int
	Rank                      int
	BsrCategory               [][]string
	Category                  []string
	Photo                     []string
	IsFBA                     bool
	OnlineDate                string
	OnlineDays                int
	PriceTrend                []json.Number
}

func decodeProducts(t *testing.T, r reply) []product {
	t.Helper()
	var raw json.RawMessage
	r.ok(t, &raw)
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var list []product
	require.NoError(t, dec.Decode(&list))
	return list
}

func TestProductRequestUsesTheOfficialFieldNames(t *testing.T) {
	t.Parallel()
	srv := start(t)
	list := post(t, srv, "ProductRequest", 1, `{"asin":"`+asin+`"}`).objects(t)
	require.Len(t, list, 1)
	p := list[0]
	for _, m := range append(slices.Clone(productMembers), trendMembers...) {
		assert.Contains(t, p, m)
	}
	for _, wrong := range []string{"price", "Asin", "SalePrice", "MonthlySales", "ListingSalesVolume", "Sales"} {
		assert.NotContains(t, p, wrong)
	}
	assert.Len(t, p, len(productMembers)+len(trendMembers), "no other members")
}

func TestProductRequestValuesAreConsistentAndDeterministic(t *testing.T) {
	t.Parallel()
	srv := start(t)
	first := decodeProducts(t, post(t, srv, "ProductRequest", 1, `{"asin":"`+asin+`"}`))
	again := decodeProducts(t, post(t, srv, "ProductRequest", 1, `{"ASIN":"`+strings.ToLower(asin)+`"}`))
	require.Equal(t, first, again, "the same ASIN, in any letter case, gives the same product")
	p := first[0]
	assert.Equal(t, asin, p.ASIN)
	assert.True(t, strings.HasPrefix(p.Title, p.Brand+" "), p.Title)
	assert.Greater(t, p.Price, 0)
	assert.GreaterOrEqual(t, p.ListPrice, p.Price)
	switch {
	case p.Coupon < 0:
		assert.Equal(t, p.Price-p.Price*(-p.Coupon)/100, p.SalesPrice, "a percentage coupon")
	default:
		assert.Equal(t, p.Price-p.Coupon, p.SalesPrice, "an amount coupon, or none")
	}
	assert.Equal(t, p.ListingSalesVolumeOfMonth*p.SalesPrice, p.ListingSalesOfMonth, "money in minor units")
	assert.Equal(t, p.ListingSalesVolumeOfMonth/30, p.ListingSalesVolumeOfDaily)
	assert.Equal(t, p.SalesPrice-p.FbaFee-p.PlatformFee, p.Profit)
	assert.GreaterOrEqual(t, p.Ratings, 3.0)
	assert.LessOrEqual(t, p.Ratings, 5.0)
	assert.Len(t, p.Category, 2)
	require.Len(t, p.BsrCategory, 1)
	assert.Len(t, p.BsrCategory[0], 3, "[name, NodeId, rank]")
	online, err := time.Parse(time.DateOnly, p.OnlineDate)
	require.NoError(t, err)
	assert.Equal(t, int(epoch.Sub(online).Hours()/24), p.OnlineDays)
	require.Len(t, p.PriceTrend, 30, "15 days of [yyyyMMdd, value]")
	assert.Equal(t, "20260216", p.PriceTrend[0].String())
	assert.Equal(t, "20260302", p.PriceTrend[28].String())

	jp := decodeProducts(t, post(t, srv, "ProductRequest", 7, `{"asin":"`+asin+`"}`))[0]
	assert.Equal(t, p.Title, jp.Title)
	assert.Greater(t, jp.Price, p.Price, "yen are smaller units than cents")
}

func TestProductRequestSeveralASINs(t *testing.T) {
	t.Parallel()
	srv := start(t)
	asins := []string{"B0CVM8TXHP", "B0D3DL6PXQ", "B0NONE0001", "B0SALES00Z", "b0d3dl6pxq"}
	r := post(t, srv, "ProductRequest", 1, `{"asin":"`+strings.Join(asins, ",")+`","Trend":2}`)
	list := decodeProducts(t, r)
	require.Len(t, list, 3, "the missing ASIN is left out, the repeated one answered once")
	assert.Equal(t, []string{"B0CVM8TXHP", "B0D3DL6PXQ", "B0SALES00Z"}, []string{list[0].ASIN, list[1].ASIN, list[2].ASIN})
	assert.Nil(t, list[0].PriceTrend, "Trend 2 leaves the trends out")
	unestimated := list[2]
	assert.Equal(t, -1, unestimated.ListingSalesVolumeOfMonth)
	assert.Equal(t, -1, unestimated.ListingSalesOfMonth)
	assert.Equal(t, -1, unestimated.ListingSalesVolumeOfDaily)
	assert.Equal(t, -1, unestimated.ListingSalesOfDaily)
	_, consumed := r.units(t)
	assert.Equal(t, 1, consumed)

	ten := strings.TrimSuffix(strings.Repeat(asin+",", 10), ",")
	assert.Equal(t, 0, post(t, srv, "ProductRequest", 1, `{"asin":"`+ten+`"}`).code(t))
	assert.Contains(t, post(t, srv, "ProductRequest", 1, `{"asin":"`+ten+`,B0D3DL6PXQ"}`).failed(t, 15), "10 ASINs")
	assert.Contains(t, post(t, srv, "ProductRequest", 1, `{"asin":"B0NONE0001,B0NONE0002"}`).failed(t, 97), "does not exist")
}

func TestProductRequestParameterErrors(t *testing.T) {
	t.Parallel()
	srv := start(t)
	for body, want := range map[string]string{
		`{}`:                                  "ASIN is required",
		`{"asin":""}`:                         "ASIN is required",
		`{"asin":123}`:                        "ASIN must be a string",
		`{"asin":"B0SHORT"}`:                  "B0SHORT",
		`{"asin":"B0CVM8TXHP,"}`:              `""`,
		`{"asin":"B0CVM8TX-P"}`:               "B0CVM8TX-P",
		`{"asin":"` + asin + `","Trend":3}`:   "Trend",
		`{"asin":"` + asin + `","Trend":"1"}`: "Trend must be an integer",
		`{"asin":"` + asin + `","QueryTrendStartDt":"2026/01/01"}`:                                "QueryTrendStartDt",
		`{"asin":"` + asin + `","QueryTrendStartDt":"2026-02-10","QueryTrendEndDt":"2026-02-01"}`: "after",
	} {
		msg := post(t, srv, "ProductRequest", 1, body).failed(t, 10)
		assert.Contains(t, msg, "Request parameters error", body)
		assert.Contains(t, msg, want, body)
	}
	assert.Contains(t, post(t, srv, "ProductRequest", 1, `{"asin":"`+asin+`","QueryTrendStartDt":"2024-03-01"}`).failed(t, 23), "two years")
}

func TestProductRequestTrendDates(t *testing.T) {
	t.Parallel()
	srv := start(t)
	p := decodeProducts(t, post(t, srv, "ProductRequest", 1, `{"asin":"`+asin+`","QueryTrendStartDt":"2026-01-01","QueryTrendEndDt":"2026-01-31"}`))[0]
	require.Len(t, p.PriceTrend, 62)
	assert.Equal(t, "20260101", p.PriceTrend[0].String())
	assert.Equal(t, "20260131", p.PriceTrend[60].String())
	p = decodeProducts(t, post(t, srv, "ProductRequest", 1, `{"asin":"`+asin+`","QueryTrendStartDt":"2026-02-25"}`))[0]
	assert.Len(t, p.PriceTrend, 12, "up to today")
}

func TestProductTrend(t *testing.T) {
	t.Parallel()
	srv := start(t)
	var flat []json.Number
	r := post(t, srv, "ProductTrend", 1, `{"asin":"`+asin+`","dateRange":"20260201,20260210","trendType":2}`)
	r.ok(t, &flat)
	require.Len(t, flat, 20)
	for i := 0; i < len(flat); i += 2 {
		assert.Equal(t, time.Date(2026, 2, 1+i/2, 0, 0, 0, 0, time.UTC).Format("20060102"), flat[i].String())
		rank, err := flat[i+1].Int64()
		require.NoError(t, err)
		assert.Positive(t, rank)
	}
	var def []json.Number
	post(t, srv, "ProductTrend", 1, `{"asin":"`+asin+`"}`).ok(t, &def)
	assert.Len(t, def, 60, "the last 30 days by default")

	for _, body := range []string{`{"asin":"` + asin + `","dateRange":"2026-02-01,2026-02-10"}`, `{"asin":"` + asin + `","dateRange":"20260210"}`, `{"asin":"` + asin + `","dateRange":"20260210,20260201"}`, `{"asin":"` + asin + `","trendType":6}`, `{}`} {
		post(t, srv, "ProductTrend", 1, body).failed(t, 10)
	}
	post(t, srv, "ProductTrend", 1, `{"asin":"`+asin+`","dateRange":"20200101,20200201"}`).failed(t, 23)
	post(t, srv, "ProductTrend", 1, `{"asin":"B0NONE0001"}`).failed(t, 97)

	// A range that ends before the product went on sale has no data.
	var recent product
	for i := range 20 {
		p := decodeProducts(t, post(t, srv, "ProductRequest", 1, `{"asin":"B0RECENT`+jsonInt(10+i)+`","Trend":2}`))[0]
		if p.OnlineDays < 600 {
			recent = p
			break
		}
	}
	require.NotEmpty(t, recent.ASIN, "some product went on sale in the last 600 days")
	online, err := time.Parse(time.DateOnly, recent.OnlineDate)
	require.NoError(t, err)
	before := online.AddDate(0, 0, -1).Format("20060102")
	post(t, srv, "ProductTrend", 1, `{"asin":"`+recent.ASIN+`","dateRange":"20240401,`+before+`"}`).failed(t, 11)
	var clipped []json.Number
	post(t, srv, "ProductTrend", 1, `{"asin":"`+recent.ASIN+`","dateRange":"20240401,`+online.Format("20060102")+`"}`).ok(t, &clipped)
	assert.Equal(t, []string{online.Format("20060102")}, []string{clipped[0].String()}, "the trend starts when the product went on sale")
	assert.Len(t, clipped, 2)
}

func TestCategoryTreeIsLarge(t *testing.T) {
	t.Parallel()
	srv := start(t)
	var nodes []struct {
		ID       int `json:"Id"`
		ParentID int `json:"ParentId"`
		NodeID   string
		Name     string
		CNName   string
		URL      string
	}
	r := post(t, srv, "CategoryTree", 1, `{}`)
	r.ok(t, &nodes)
	assert.Greater(t, len(r.raw), 150_000)
	require.Len(t, nodes, 8+8*12+8*12*12)
	ids := map[int]bool{0: true}
	for _, n := range nodes {
		assert.True(t, ids[n.ParentID], "parents come first")
		ids[n.ID] = true
		assert.NotEmpty(t, n.NodeID)
		assert.NotEmpty(t, n.Name)
		assert.NotEmpty(t, n.CNName)
		assert.Equal(t, "https://www.amazon.com/b?node="+n.NodeID, n.URL)
	}
	assert.Equal(t, "Electronics", nodes[0].Name)
	assert.Equal(t, "172282", nodes[0].NodeID)
}

func TestCategoryRequest(t *testing.T) {
	t.Parallel()
	srv := start(t)
	var live struct{ Products []map[string]any }
	post(t, srv, "CategoryRequest", 1, `{"NodeId":"3743561"}`).ok(t, &live)
	require.Len(t, live.Products, 100, "the best-seller top 100")
	for _, m := range productMembers {
		assert.Contains(t, live.Products[0], m)
	}
	var volumes []float64
	for _, p := range live.Products {
		volumes = append(volumes, p["ListingSalesVolumeOfMonth"].(float64))
	}
	assert.True(t, slices.IsSortedFunc(volumes, func(a, b float64) int { return int(b - a) }), "best sellers first")

	var past struct{ Products []map[string]any }
	post(t, srv, "CategoryRequest", 1, `{"nodeId":"3743561","QueryStart":"2026-01-01","QueryDate":"2026-01-10"}`).ok(t, &past)
	require.Len(t, past.Products, 100)
	assert.NotEqual(t, live.Products[0]["ASIN"], past.Products[0]["ASIN"], "a look-back has its own sample")
	var byDays struct{ Products []map[string]any }
	post(t, srv, "CategoryRequest", 1, `{"NodeId":"3743561","QueryDate":"2026-01-10","QueryDays":10}`).ok(t, &byDays)
	assert.Equal(t, past, byDays, "QueryDays counts back from QueryDate")

	for _, body := range []string{
		`{}`, `{"NodeId":3743561}`, `{"NodeId":"abc"}`,
		`{"NodeId":"3743561","QueryStart":"2026-01-01"}`,
		`{"NodeId":"3743561","QueryDate":"2026-01-10"}`,
		`{"NodeId":"3743561","QueryStart":"2026-01-01","QueryDate":"2026-01-02"}`,
		`{"NodeId":"3743561","QueryStart":"2025-11-01","QueryDate":"2026-01-10"}`,
		`{"NodeId":"3743561","QueryStart":"2026-02-25","QueryDate":"2026-03-01"}`,
		`{"NodeId":"3743561","QueryDate":"2026-01-10","QueryDays":2}`,
		`{"NodeId":"3743561","QueryStart":"20260101","QueryDate":"2026-01-10"}`,
	} {
		post(t, srv, "CategoryRequest", 1, body).failed(t, 10)
	}
	post(t, srv, "CategoryRequest", 1, `{"NodeId":"3743561","QueryStart":"2024-01-01","QueryDate":"2024-01-10"}`).failed(t, 23)
	assert.Contains(t, post(t, srv, "CategoryRequest", 5, `{"NodeId":"3743561","QueryStart":"2026-01-01","QueryDate":"2026-01-10"}`).failed(t, 16), "look-back")
	assert.Equal(t, 0, post(t, srv, "CategoryRequest", 5, `{"NodeId":"3743561"}`).code(t), "the live list works on every Amazon site")
	post(t, srv, "CategoryRequest", 1, `{"NodeId":"`+productdatatest.NoDataNodeID+`"}`).failed(t, 11)
}

func TestCategoryProductsPagesEndWithCode11(t *testing.T) {
	t.Parallel()
	srv := start(t)
	var all []map[string]any
	page := 1
	for ; ; page++ {
		r := post(t, srv, "CategoryProducts", 1, `{"NodeId":"3743561","Page":`+jsonInt(page)+`}`)
		if r.code(t) == 11 {
			assert.Equal(t, "No data available", r.message(t))
			break
		}
		items := r.objects(t)
		require.NotEmpty(t, items)
		require.LessOrEqual(t, len(items), 100)
		all = append(all, items...)
	}
	assert.Greater(t, page, 2, "more than one page")
	assert.Greater(t, len(all), 100)
	seen := map[any]bool{}
	for _, p := range all {
		assert.False(t, seen[p["ASIN"]], "no product twice")
		seen[p["ASIN"]] = true
	}
	var top struct{ Products []map[string]any }
	post(t, srv, "CategoryRequest", 1, `{"NodeId":"3743561"}`).ok(t, &top)
	assert.Equal(t, top.Products, all[:100], "the first page is the top 100")

	limited := post(t, srv, "CategoryProducts", 1, `{"NodeId":"3743561","Range":30}`).objects(t)
	assert.Equal(t, all[:30], limited)
	post(t, srv, "CategoryProducts", 1, `{"NodeId":"3743561","Range":30,"Page":2}`).failed(t, 11)
	post(t, srv, "CategoryProducts", 1, `{"NodeId":"3743561","Page":0}`).failed(t, 10)
	post(t, srv, "CategoryProducts", 1, `{"NodeId":"`+productdatatest.NoDataNodeID+`"}`).failed(t, 11)
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestKeywordRequest(t *testing.T) {
	t.Parallel()
	srv := start(t)
	var k struct {
		Keyword           string
		SearchVolume      int
		CPC               int
		SearchVolumeTrend []int
		CPCTrend          []int
		ProductCount      int
	}
	post(t, srv, "KeywordRequest", 1, `{"keyword":"Power Bank"}`).ok(t, &k)
	assert.Equal(t, "Power Bank", k.Keyword)
	assert.Positive(t, k.SearchVolume)
	assert.Positive(t, k.CPC)
	assert.Positive(t, k.ProductCount)
	require.Len(t, k.SearchVolumeTrend, 48, "24 months of [yyyyMM, value]")
	assert.Equal(t, 202403, k.SearchVolumeTrend[0])
	assert.Equal(t, 202602, k.SearchVolumeTrend[46])
	assert.Len(t, k.CPCTrend, 48)

	var same struct{ SearchVolume int }
	post(t, srv, "KeywordRequest", 1, `{"Keyword":"  power   BANK "}`).ok(t, &same)
	assert.Equal(t, k.SearchVolume, same.SearchVolume, "keywords match in any case and spacing")
	post(t, srv, "KeywordRequest", 1, `{"Keyword":""}`).failed(t, 10)
	assert.Contains(t, post(t, srv, "KeywordRequest", 1, `{"Keyword":"`+strings.Repeat("a", 201)+`"}`).failed(t, 10), "200 characters")
	post(t, srv, "KeywordRequest", 1, `{"Keyword":"`+strings.ToUpper(productdatatest.NoDataKeyword)+`"}`).failed(t, 11)
}

func TestKeywordSearchResultsPages(t *testing.T) {
	t.Parallel()
	srv := start(t)
	var all []map[string]any
	for page := 1; ; page++ {
		r := post(t, srv, "KeywordSearchResults", 1, `{"Keyword":"yoga mat","Page":`+jsonInt(page)+`}`)
		if r.code(t) == 11 {
			break
		}
		all = append(all, r.objects(t)...)
	}
	require.NotEmpty(t, all)
	for i, p := range all {
		assert.EqualValues(t, i+1, p["OrganicRank"])
		assert.Contains(t, p, "SponsoredRank")
		assert.Contains(t, p, "SalesPrice")
	}
	post(t, srv, "KeywordSearchResults", 1, `{"Keyword":"`+productdatatest.NoDataKeyword+`"}`).failed(t, 11)
	post(t, srv, "KeywordSearchResults", 1, `{}`).failed(t, 10)
}

func TestEndpointsOpenPerPlatform(t *testing.T) {
	t.Parallel()
	srv := start(t)
	body := `{"asin":"` + asin + `"}`
	for d, code := range map[int]int{1: 0, 14: 0, 201: 16, 208: 16, 21: 401, 601: 401, 701: 401, 312: 401} {
		r := post(t, srv, "ProductRequest", d, body)
		assert.Equal(t, code, r.code(t), "domain %d", d)
	}
	for _, d := range []int{21, 203, 601, 705, 309} {
		r := post(t, srv, "CategoryTree", d, `{}`)
		assert.Equal(t, 0, r.code(t), "CategoryTree is open on domain %d", d)
	}
}
