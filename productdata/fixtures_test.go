package productdata_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/fixturetest"
	"github.com/agentapis/sdk/internal/poll/polltest"
	"github.com/agentapis/sdk/productdata"
)

// sequence answers the i-th request with the i-th recorded exchange, which checks what the
// client sent; a request beyond the last exchange fails the test.
type sequence struct {
	t         *testing.T
	mu        sync.Mutex
	exchanges []*fixturetest.Exchange
	next      int
}

// RoundTrip hands req to the next exchange.
func (s *sequence) RoundTrip(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	i := s.next
	s.next++
	s.mu.Unlock()
	if i >= len(s.exchanges) {
		s.t.Errorf("request %d (%s) beyond the %d recorded exchanges", i+1, req.URL.Path, len(s.exchanges))
		return &http.Response{StatusCode: 599, Body: http.NoBody, Header: http.Header{}, Request: req}, nil
	}
	return s.exchanges[i].Client(s.t).Transport.RoundTrip(req)
}

// fixtureClient returns a client whose requests are answered, in order, by the recorded
// exchanges testdata/fixtures/names, each checking the request it gets; the client runs on a
// fake clock and sends each request once. The test fails unless every exchange was used.
func fixtureClient(t *testing.T, names ...string) *productdata.Client {
	t.Helper()
	seq := &sequence{t: t}
	for _, name := range names {
		seq.exchanges = append(seq.exchanges, fixturetest.Load(t, filepath.Join("testdata", "fixtures", name)))
	}
	t.Cleanup(func() {
		assert.Equal(t, len(names), seq.next, "every recorded exchange is sent, and no other")
	})
	c, err := productdata.New(productdata.WithBaseURL("https://standardapi.sorftime.com"), productdata.WithAccountKey(testKey),
		productdata.WithHTTPClient(&http.Client{Transport: seq}), productdata.WithRetry(noRetry),
		productdata.WithClock(polltest.NewFake(time.Date(2024, 11, 1, 8, 0, 0, 0, time.UTC))))
	require.NoError(t, err)
	return c
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
	assert.Equal(t, []productdata.CategoryRank{{Name: "Portable Power Banks", NodeID: "7073960011", Rank: ptr(1)},
		{Name: "Cell Phone Portable Power Banks", NodeID: "2407761011", Rank: ptr(3)}}, p.BsrCategory)
	assert.Equal(t, []string{"475", "1-9:5", "10-12:15"}, p.FbaDetetail)
	assert.Empty(t, p.BrandPromotion, "null text is empty")
	assert.Equal(t, "Limited time deal", p.DealType)
	assert.Len(t, p.PriceTrend, 3)
	assert.Equal(t, productdata.Point{Date: "2024-11-01", Value: ptr(3999.0)}, p.PriceTrend[2])
	require.NotNil(t, p.SalesVolumeTrend[2].Value)
	assert.Equal(t, 310.0, *p.SalesVolumeTrend[2].Value)
	assert.Equal(t, 1052670, *p.Meta.Units.Left)
	assert.Equal(t, 1, *p.Meta.Units.Consumed)
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
	assert.Equal(t, 3, *list.Meta.Units.Consumed, "the missing ASIN is charged too")
}

func TestFixtureProductTrend(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "product_trend.json")
	tr, err := c.ProductTrend(t.Context(), productdata.AmazonUS, &productdata.ProductTrendParams{ASIN: "B0CVM8TXHP",
		From: time.Date(2024, 10, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2024, 10, 3, 0, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	assert.Len(t, tr.Trends, 3)
	assert.Equal(t, productdata.Series{{"20241001", ptr(295.0)}, {"20241002", ptr(301.0)}, {"20241003", ptr(288.0)}}, tr.Trends["SalesVolumeTrend"])
}

func TestFixtureCategory(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "category.json")
	cat, err := c.Category(t.Context(), productdata.AmazonUS, &productdata.CategoryParams{NodeId: "3743561"})
	require.NoError(t, err)
	require.Len(t, cat.Products, 3)
	assert.Equal(t, []string{"B0CVM8TXHP", "B0D3DL6PXQ", "B07QXV6N1B"}, []string{cat.Products[0].ASIN, cat.Products[1].ASIN, cat.Products[2].ASIN})
	assert.Equal(t, productdata.Unknown, cat.Products[2].ListingSalesVolumeOfMonth)
	assert.Equal(t, 5, *cat.Meta.Units.Consumed)
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
	assert.Equal(t, int64(5), c.Counters().Consumed)
	assert.Equal(t, 1052655, *c.Counters().Left)
}

func TestFixtureKeyword(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "keyword.json")
	k, err := c.Keyword(t.Context(), productdata.AmazonUS, "power bank")
	require.NoError(t, err)
	assert.Equal(t, 1520000, *k.SearchVolume)
	assert.Equal(t, 142, *k.CPC)
	assert.Equal(t, 60000, *k.ProductCount)
	assert.Equal(t, productdata.Point{Date: "202411", Value: ptr(142.0)}, k.CPCTrend[2])
}

func TestFixtureRefreshProduct(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "realtime_request_collecting.json", "realtime_status.json", "product.json")
	p, err := c.RefreshProduct(t.Context(), productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP", Update: 24}, nil)
	require.NoError(t, err)
	assert.Equal(t, 3999, p.SalesPrice)
	assert.Equal(t, int64(3), c.Counters().Calls)
}

func TestFixtureCollectAndReadReviews(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "reviews_collection.json", "reviews_status.json", "reviews_query.json")
	task, err := c.CollectReviews(t.Context(), productdata.AmazonUS, &productdata.CollectReviewsParams{ASIN: "B0CVM8TXHP", Stars: []int{1, 2, 3, 4, 5}}, nil)
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
	assert.Equal(t, "No data available", apiError(t, err).Message)
}

func TestFixtureUnauthorizedCode(t *testing.T) {
	t.Parallel()
	c := fixtureClient(t, "unauthorized_code.json")
	_, err := c.Product(t.Context(), productdata.AmazonUS, "B0CVM8TXHP")
	require.ErrorIs(t, err, productdata.ErrUnauthorized)
	assert.Equal(t, "401", apiError(t, err).Code)
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
