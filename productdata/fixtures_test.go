package productdata_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/fixturetest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/productdata"
	"github.com/agentapis/sdk/sdktest"
)

// fixtureClient returns a client whose requests are answered, in order, by the recorded
// exchanges testdata/fixtures/names (see fixturetest.Client); the client runs on a fake clock
// and sends each request once.
func fixtureClient(t *testing.T, names ...string) *productdata.Client {
	t.Helper()
	return testkit.New(t, productdata.New, productdata.WithBaseURL("https://standardapi.sorftime.com"),
		productdata.WithAccountKey(testKey), productdata.WithRetry(testkit.NoRetry),
		productdata.WithHTTPClient(fixturetest.Client(t, filepath.Join("testdata", "fixtures"), names...)),
		productdata.WithClock(sdktest.NewClock(time.Date(2024, 11, 1, 8, 0, 0, 0, time.UTC))))
}

func TestFixtureProduct(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "product.json")
	p, err := c.Product(t.Context(), productdata.AmazonUS, "B0CVM8TXHP")
	require.NoError(t, err)
	assert.Equal(t, "B0CVM8TXHP", p.ASIN)
	assert.Equal(t, "B0CVM9ZZ5L", p.ParentAsin)
	assert.Equal(t, 3999, p.SalesPrice)
	assert.Equal(t, 4599, *p.Price)
	assert.Equal(t, 600, *p.Coupon)
	assert.Equal(t, 9300, p.ListingSalesVolumeOfMonth)
	assert.Equal(t, 37190700, *p.ListingSalesOfMonth)
	assert.Equal(t, 0, *p.ShipCost, "a 0 that was sent is a value")
	assert.Equal(t, 4.8, *p.Ratings)
	assert.Equal(t, []productdata.CategoryRank{{Name: "Portable Power Banks", NodeID: "7073960011", Rank: testkit.Ptr(1)},
		{Name: "Cell Phone Portable Power Banks", NodeID: "2407761011", Rank: testkit.Ptr(3)}}, p.BsrCategory)
	assert.Equal(t, []string{"475", "1-9:5", "10-12:15"}, p.FbaDetetail)
	assert.Empty(t, p.BrandPromotion, "null text is empty")
	assert.Equal(t, "Limited time deal", p.DealType)
	assert.Len(t, p.PriceTrend, 3)
	assert.Equal(t, productdata.Point{Date: "2024-11-01", Value: testkit.Ptr(3999.0)}, p.PriceTrend[2])
	require.NotNil(t, p.SalesVolumeTrend[2].Value)
	assert.Equal(t, 310.0, *p.SalesVolumeTrend[2].Value)
	assert.Equal(t, 1052670, *p.Units.Left)
	assert.Equal(t, 1, *p.Units.Consumed)
}

func TestFixtureProductsOfSeveralASINs(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "products_multi.json")
	list, err := c.Products(t.Context(), productdata.AmazonUS, &productdata.ProductsParams{ASINs: []string{"B0CVM8TXHP", "B0D3DL6PXQ", "B0GONE0000"}, NoTrend: true})
	require.NoError(t, err)
	require.Len(t, list.Products, 2)
	assert.Nil(t, list.Products[0].PriceTrend)
	assert.Equal(t, productdata.Unknown, list.Products[1].ListingSalesVolumeOfMonth)
	assert.Equal(t, []string{"B0GONE0000"}, list.Missing)
	assert.Equal(t, 3, *list.Units.Consumed, "the missing ASIN is charged too")
}

func TestFixtureProductTrend(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "product_trend.json")
	tr, err := c.ProductTrend(t.Context(), productdata.AmazonUS, &productdata.ProductTrendParams{ASIN: "B0CVM8TXHP",
		From: time.Date(2024, 10, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2024, 10, 3, 0, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	assert.Len(t, tr.Trends, 3)
	assert.Equal(t, productdata.Series{{"20241001", testkit.Ptr(295.0)}, {"20241002", testkit.Ptr(301.0)}, {"20241003", testkit.Ptr(288.0)}}, tr.Trends["SalesVolumeTrend"])
}

func TestFixtureCategory(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "category.json")
	cat, err := c.Category(t.Context(), productdata.AmazonUS, &productdata.CategoryParams{NodeId: "3743561"})
	require.NoError(t, err)
	require.Len(t, cat.Products, 3)
	assert.Equal(t, []string{"B0CVM8TXHP", "B0D3DL6PXQ", "B07QXV6N1B"}, []string{cat.Products[0].ASIN, cat.Products[1].ASIN, cat.Products[2].ASIN})
	assert.Equal(t, productdata.Unknown, cat.Products[2].ListingSalesVolumeOfMonth)
	assert.Equal(t, 5, *cat.Units.Consumed)
}

func TestFixtureCategoryProductsToTheEnd(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "category_products_page.json", "category_products_end.json")
	var asins []string
	for p, err := range c.AllCategoryProducts(t.Context(), productdata.AmazonUS, &productdata.CategoryProductsParams{NodeId: "3743561", Range: 200}) {
		require.NoError(t, err)
		asins = append(asins, p.ASIN)
	}
	assert.Equal(t, []string{"B09VPHVT2Z", "B0BYNQG9S7"}, asins, "code 11 ends the listing without an error")
	assert.Equal(t, int64(5), c.RequestUnits().Consumed)
	assert.Equal(t, 1052655, *c.RequestUnits().Left)
}

func TestFixtureKeyword(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "keyword.json")
	k, err := c.Keyword(t.Context(), productdata.AmazonUS, "power bank")
	require.NoError(t, err)
	assert.Equal(t, 1520000, *k.SearchVolume)
	assert.Equal(t, 142, *k.CPC)
	assert.Equal(t, 60000, *k.ProductCount)
	assert.Equal(t, productdata.Point{Date: "202411", Value: testkit.Ptr(142.0)}, k.CPCTrend[2])
}

func TestFixtureRefreshProduct(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "realtime_request_collecting.json", "realtime_status.json", "product.json")
	p, err := c.RefreshProduct(t.Context(), productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP", Update: 24})
	require.NoError(t, err)
	assert.Equal(t, 3999, p.SalesPrice)
	assert.Equal(t, int64(3), c.RequestUnits().Sent)
}

func TestFixtureCollectAndReadReviews(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "reviews_collection.json", "reviews_status.json", "reviews_query.json")
	task, err := c.CollectReviews(t.Context(), productdata.AmazonUS, &productdata.CollectReviewsParams{ASIN: "B0CVM8TXHP", Stars: []int{1, 2, 3, 4, 5}})
	require.NoError(t, err)
	assert.Equal(t, "3392817", task.TaskID)
	assert.Equal(t, "2024-11-01", task.QueryDate)
	assert.Equal(t, "2024-11-01 16:02:41", task.FinishedAt)
	assert.Equal(t, 1, task.Polls)

	// The recorded page is the only one: stop after it rather than ask for a second.
	var reviews []productdata.Review
	for r, err := range c.AllReviews(t.Context(), productdata.AmazonUS, &productdata.ReviewsParams{ASIN: "B0CVM8TXHP"}) {
		require.NoError(t, err)
		reviews = append(reviews, r)
		if len(reviews) == 2 {
			break
		}
	}
	assert.Equal(t, "R2XJ4H7L0Q3ZP1", reviews[0].ReviewId)
	assert.Equal(t, 5, *reviews[0].Star)
	assert.Equal(t, 1, *reviews[1].Star)
	assert.Equal(t, []string{}, reviews[1].ImageUrls)
}

func TestFixtureLowercaseErrorEnvelope(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "temu_no_data.json")
	_, err := c.Call(t.Context(), productdata.EndpointProductSearchFromName, productdata.TemuUS, map[string]string{"Name": "phone case"}, nil)
	require.ErrorIs(t, err, productdata.ErrNoMoreData)
	assert.Equal(t, "No data available", testkit.APIError(t, err).Message)
}

func TestFixtureUnauthorizedCode(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "unauthorized_code.json")
	_, err := c.Product(t.Context(), productdata.AmazonUS, "B0CVM8TXHP")
	require.ErrorIs(t, err, productdata.ErrUnauthorized)
	assert.Equal(t, "401", testkit.APIError(t, err).Code)
}

func TestFixtureWalmartBodyInBase64OfGzip(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "walmart_gzip_base64.json")
	var item struct {
		ProductId        string
		Price            int
		MonthlySaleCount int
	}
	meta, err := c.Call(t.Context(), productdata.EndpointProductRequest, productdata.WalmartUS, map[string]string{"ProductId": "5056247061"}, &item)
	require.NoError(t, err)
	assert.Equal(t, "5056247061", item.ProductId)
	assert.Equal(t, 2300, item.MonthlySaleCount)
	assert.Equal(t, 6431, *meta.Units.Left)
}

func TestFixtureAccountEndpoint(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "coin_query.json")
	var coins json.RawMessage
	_, err := c.Call(t.Context(), productdata.EndpointCoinQuery, productdata.NoDomain, nil, &coins)
	require.NoError(t, err)
	assert.JSONEq(t, `{"CoinLeft":480,"CoinTotal":500,"ResetDate":"2024-12-01"}`, string(coins))
}
