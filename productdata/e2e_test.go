package productdata_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/productdata"
	"github.com/agentapis/sdk/productdata/productdatatest"
	"github.com/agentapis/sdk/sdktest"
)

// fakeEpoch is the start of the fake clocks of the end-to-end tests.
var fakeEpoch = time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)

// startFake starts the fake on clock (a fixed one when nil) and returns it with a client
// without retries or pacing that times its polling on the same clock.
func startFake(t *testing.T, clock *sdktest.Clock, opts ...productdatatest.Option) (*productdatatest.Server, *productdata.Client) {
	t.Helper()
	if clock == nil {
		clock = sdktest.NewClock(fakeEpoch)
	}
	srv := testkit.Start(t, productdatatest.NewServer(append([]productdatatest.Option{productdatatest.WithClock(clock)}, opts...)...))
	return srv, fakeClient(t, srv, clock)
}

// fakeClient returns a client of srv without retries or pacing, timed on clock; opts come
// after the defaults.
func fakeClient(t *testing.T, srv *productdatatest.Server, clock sdk.Clock, opts ...productdata.Option) *productdata.Client {
	t.Helper()
	defaults := []productdata.Option{productdata.WithBaseURL(srv.URL), productdata.WithAccountKey(productdatatest.DefaultKey),
		productdata.WithRetry(testkit.NoRetry), productdata.WithRequestsPerMinute(0), productdata.WithClock(clock)}
	return testkit.New(t, productdata.New, append(defaults, opts...)...)
}

// rawFields decodes a product's Raw object.
func rawFields(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	return m
}

// assertOfficialFields checks that the typed fields of p hold the values the fake sent under
// the service's field names.
func assertOfficialFields(t *testing.T, p *productdata.Product) {
	t.Helper()
	m := rawFields(t, p.Raw)
	assert.Equal(t, m["ASIN"], p.ASIN)
	assert.Equal(t, m["Title"], p.Title)
	assert.Equal(t, m["Brand"], p.Brand)
	assert.InDelta(t, m["SalesPrice"], float64(p.SalesPrice), 0)
	assert.InDelta(t, m["ListingSalesVolumeOfMonth"], float64(p.ListingSalesVolumeOfMonth), 0)
	assert.Positive(t, p.SalesPrice)
	require.NotNil(t, p.Price)
	assert.InDelta(t, m["Price"], float64(*p.Price), 0)
	require.NotNil(t, p.ListingSalesOfMonth)
	assert.InDelta(t, m["ListingSalesOfMonth"], float64(*p.ListingSalesOfMonth), 0)
	require.NotNil(t, p.RatingsCount)
	assert.InDelta(t, m["RatingsCount"], float64(*p.RatingsCount), 0)
	require.NotNil(t, p.Ratings)
	assert.InDelta(t, m["Ratings"], *p.Ratings, 0)
	require.NotNil(t, p.FbaFee)
	assert.InDelta(t, m["FbaFee"], float64(*p.FbaFee), 0)
	require.NotNil(t, p.IsFBA)
	assert.Equal(t, m["IsFBA"], *p.IsFBA)
	assert.Len(t, p.FbaDetetail, len(m["FbaDetetail"].([]any)))
	require.NotEmpty(t, p.BsrCategory)
	first := m["BsrCategory"].([]any)[0].([]any)
	assert.Equal(t, first[0], p.BsrCategory[0].Name)
	assert.Equal(t, first[1], p.BsrCategory[0].NodeID)
	assert.Equal(t, m["OnlineDate"], p.OnlineDate)
}

func TestFakeProductDecodesTheOfficialFieldNames(t *testing.T) {
	t.Parallel()
	srv, c := startFake(t, nil)
	p, err := c.Product(t.Context(), productdata.AmazonUS, "B0CVM8TXHP")
	require.NoError(t, err)
	assertOfficialFields(t, p)
	assert.Len(t, p.PriceTrend, 15, "the recent 15 days")
	assert.Len(t, p.SalesVolumeTrend, 15)
	require.NotNil(t, p.Units.Left)
	assert.Equal(t, srv.RequestLeft(), *p.Units.Left)
	assert.Equal(t, 1, *p.Units.Consumed)

	list, err := c.Products(t.Context(), productdata.AmazonDE, &productdata.ProductsParams{
		ASINs: []string{"B0CVM8TXHP", productdatatest.MissingASINPrefix + "0001", "B0ESTIMATZ"}, NoTrend: true})
	require.NoError(t, err)
	require.Len(t, list.Products, 2)
	assert.Equal(t, []string{productdatatest.MissingASINPrefix + "0001"}, list.Missing)
	for i := range list.Products {
		assertOfficialFields(t, &list.Products[i])
		assert.Nil(t, list.Products[i].PriceTrend, "Trend 2 leaves the trends out")
	}
	assert.Equal(t, productdata.Unknown, list.Products[1].ListingSalesVolumeOfMonth, "-1: the service cannot estimate")
	last := srv.Requests()[len(srv.Requests())-1]
	assert.Equal(t, []string{"3"}, last.Query["domain"])
	assert.JSONEq(t, `{"domain":3,"asin":"B0CVM8TXHP,B0NONE0001,B0ESTIMATZ","Trend":2}`, string(last.Body))
}

func TestFakeTrendCategoryAndKeyword(t *testing.T) {
	t.Parallel()
	_, c := startFake(t, nil)
	ctx := t.Context()

	trend, err := c.ProductTrend(ctx, productdata.AmazonUS, &productdata.ProductTrendParams{ASIN: "B0CVM8TXHP",
		From: fakeEpoch.AddDate(0, 0, -9), To: fakeEpoch, TrendType: 1})
	require.NoError(t, err)
	require.Len(t, trend.Trends["Trend"], 10)
	assert.Equal(t, fakeEpoch.Format("20060102"), trend.Trends["Trend"][9].Date)
	require.NotNil(t, trend.Trends["Trend"][9].Value)
	assert.Positive(t, *trend.Trends["Trend"][9].Value)

	cat, err := c.Category(ctx, productdata.AmazonUS, &productdata.CategoryParams{NodeId: "3743561"})
	require.NoError(t, err)
	require.Len(t, cat.Products, 100)
	assertOfficialFields(t, &cat.Products[0])
	assert.GreaterOrEqual(t, cat.Products[0].ListingSalesVolumeOfMonth, cat.Products[99].ListingSalesVolumeOfMonth)

	kw, err := c.Keyword(ctx, productdata.AmazonUS, "food storage")
	require.NoError(t, err)
	m := rawFields(t, kw.Raw)
	assert.Equal(t, m["Keyword"], kw.Keyword)
	require.NotNil(t, kw.SearchVolume)
	assert.InDelta(t, m["SearchVolume"], float64(*kw.SearchVolume), 0)
	require.NotNil(t, kw.CPC)
	assert.InDelta(t, m["CPC"], float64(*kw.CPC), 0)
	require.NotNil(t, kw.ProductCount)
	assert.Len(t, kw.SearchVolumeTrend, 24)
	assert.Len(t, kw.CPCTrend, 24)
}

func TestFakePagingEndsCleanly(t *testing.T) {
	t.Parallel()
	srv, c := startFake(t, nil)
	seen := map[string]bool{}
	for p, err := range c.AllCategoryProducts(t.Context(), productdata.AmazonUS, &productdata.CategoryProductsParams{NodeId: "3743561"}) {
		require.NoError(t, err)
		assert.False(t, seen[p.ASIN], "no product twice")
		seen[p.ASIN] = true
	}
	assert.Len(t, seen, 258)
	assert.Equal(t, 4, srv.RequestCount(http.MethodPost, "/api/CategoryProducts"))
	assert.Equal(t, 11, srv.Exchanges()[3].Code, "the last page asked for answered no more data")

	pages := 0
	for page, err := range c.Pages(t.Context(), productdata.EndpointKeywordSearchResults, productdata.AmazonUS,
		&productdata.PagesParams{Body: productdata.RawParams{"Keyword": "food storage"}}) {
		require.NoError(t, err)
		pages++
		assert.Equal(t, pages, page.Number)
	}
	assert.Equal(t, 1, pages)
	assert.Equal(t, 2, srv.RequestCount(http.MethodPost, "/api/KeywordSearchResults"))
}

func TestFakeCodesMatchTheirSentinels(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(fakeEpoch)
	srv, c := startFake(t, clock, productdatatest.WithTaskDuration(time.Minute))
	ctx := t.Context()
	code := func(err error) string { return testkit.APIError(t, err).Code }

	_, err := c.Call(ctx, productdata.EndpointCategoryProducts, productdata.AmazonUS, map[string]any{"NodeId": "3743561", "Page": 9}, nil)
	require.ErrorIs(t, err, productdata.ErrNoMoreData)
	assert.Equal(t, "11", code(err))

	_, err = c.Product(ctx, productdata.AmazonUS, productdatatest.MissingASINPrefix+"0002")
	require.ErrorIs(t, err, productdata.ErrNotFound)
	assert.Equal(t, "97", code(err))

	_, err = c.Call(ctx, productdata.EndpointProductRequest, productdata.AmazonUS, map[string]any{"asin": 12}, nil)
	require.ErrorIs(t, err, productdata.ErrInvalidParams)
	assert.Equal(t, "10", code(err))

	_, err = c.Call(ctx, productdata.EndpointProductRequest, productdata.AmazonUS,
		map[string]any{"asin": strings.Repeat("B0CVM8TXHP,", 10) + "B0CVM8TXHQ"}, nil)
	require.ErrorIs(t, err, productdata.ErrInvalidParams)
	assert.Equal(t, "15", code(err))

	_, err = c.Call(ctx, productdata.EndpointProductRequest, productdata.ShopeeSG, map[string]any{"asin": "B0CVM8TXHP"}, nil)
	require.ErrorIs(t, err, productdata.ErrUnsupported)
	assert.Equal(t, "16", code(err))

	var first error
	for _, e := range c.AllReviews(ctx, productdata.AmazonUS, &productdata.ReviewsParams{ASIN: "B0CVM8TXHP"}) {
		first = e
		break
	}
	require.ErrorIs(t, first, productdata.ErrNotFound)
	assert.Equal(t, "13", code(first))

	// A collection running for a minute: its reviews are being calculated (20), and a second
	// collection is refused (12).
	_, err = fakeClient(t, srv, clock, productdata.WithWait(sdk.WaitPolicy{Timeout: 10 * time.Second})).
		CollectReviews(ctx, productdata.AmazonUS, &productdata.CollectReviewsParams{ASIN: "B0CVM8TXHP"})
	require.ErrorIs(t, err, productdata.ErrTaskRunning)
	require.ErrorIs(t, err, sdk.ErrWaitTimeout)
	for _, e := range c.AllReviews(ctx, productdata.AmazonUS, &productdata.ReviewsParams{ASIN: "B0CVM8TXHP"}) {
		first = e
		break
	}
	require.ErrorIs(t, first, productdata.ErrTaskRunning)
	assert.Equal(t, "20", code(first))
	_, err = c.CollectReviews(ctx, productdata.AmazonUS, &productdata.CollectReviewsParams{ASIN: "B0CVM8TXHP"})
	require.ErrorIs(t, err, productdata.ErrAlreadyExists)
	assert.Equal(t, "12", code(err))

	// A refresh of a product whose fetch fails.
	_, err = fakeClient(t, srv, clock, productdata.WithWait(sdk.WaitPolicy{MaxDelay: 90 * time.Second, Timeout: 5 * time.Minute})).
		RefreshProduct(ctx, productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: productdatatest.FailingASINPrefix + "0001", Update: 1})
	var te *productdata.TaskError
	require.ErrorAs(t, err, &te)
	require.ErrorIs(t, err, productdata.ErrTaskFailed)
	assert.Equal(t, productdata.TaskFailed, te.Status)
	_, err = c.Call(ctx, productdata.EndpointProductRealtimeRequest, productdata.AmazonUS, map[string]any{"ASIN": productdatatest.FailingASINPrefix + "0001", "Update": 1}, nil)
	require.ErrorIs(t, err, productdata.ErrTaskFailed)
	assert.Equal(t, "98", code(err))

	srv.InjectFaults(sdktest.Fault{Status: http.StatusOK, Code: "-1"})
	_, err = c.Product(ctx, productdata.AmazonUS, "B0CVM8TXHP")
	require.ErrorIs(t, err, productdata.ErrExecutionFailed)
	assert.Equal(t, "-1", code(err))

	srv.SetRequestLeft(0)
	_, err = c.Product(ctx, productdata.AmazonUS, "B0CVM8TXHP")
	require.ErrorIs(t, err, productdata.ErrQuotaExhausted)
	assert.Equal(t, "694", code(err))
}

func TestFakePerMinuteLimitAndWhitelist(t *testing.T) {
	t.Parallel()
	srv, c := startFake(t, nil, productdatatest.WithPerMinuteLimit(1), productdatatest.WithIPWhitelist("192.0.2.1"))
	_, err := c.Product(t.Context(), productdata.AmazonUS, "B0CVM8TXHP")
	require.ErrorIs(t, err, productdata.ErrUnauthorized, "the caller's address is not whitelisted")
	assert.Equal(t, "400", testkit.APIError(t, err).Code)
	assert.Equal(t, 1, srv.RequestCount("", ""))

	srv2, c2 := startFake(t, nil, productdatatest.WithPerMinuteLimit(1))
	_, err = c2.Product(t.Context(), productdata.AmazonUS, "B0CVM8TXHP")
	require.NoError(t, err)
	_, err = c2.Product(t.Context(), productdata.AmazonUS, "B0CVM8TXHP")
	require.ErrorIs(t, err, productdata.ErrRateLimited)
	assert.Equal(t, "501", testkit.APIError(t, err).Code)
	assert.Equal(t, 2, srv2.RequestCount("", ""))
}

func TestFakeBadKeyAndWrongDomainAreUnauthorized(t *testing.T) {
	t.Parallel()
	_, c := startFake(t, nil)
	ctx := t.Context()

	// Walmart's site does not open Amazon's endpoints: code 401.
	_, err := c.Call(ctx, productdata.EndpointProductRequest, productdata.WalmartUS, map[string]any{"asin": "B0CVM8TXHP"}, nil)
	require.ErrorIs(t, err, productdata.ErrUnauthorized)
	assert.Equal(t, "401", testkit.APIError(t, err).Code)
	// A site code that does not exist never leaves the client.
	_, err = c.Call(ctx, productdata.EndpointProductRequest, productdata.Domain(99), map[string]any{"asin": "B0CVM8TXHP"}, nil)
	assert.Equal(t, "domain", testkit.ValidationError(t, err).Field)

	for _, http401 := range []bool{false, true} {
		var opts []productdatatest.Option
		if http401 {
			opts = append(opts, productdatatest.WithHTTP401OnBadKey())
		}
		srv, _ := startFake(t, nil, opts...)
		bad, err := productdata.New(productdata.WithBaseURL(srv.URL), productdata.WithAccountKey(strings.Repeat("x", 32)),
			productdata.WithRetry(testkit.NoRetry), productdata.WithRequestsPerMinute(0))
		require.NoError(t, err)
		_, err = bad.Product(ctx, productdata.AmazonUS, "B0CVM8TXHP")
		require.ErrorIs(t, err, productdata.ErrUnauthorized)
		assert.Equal(t, http401, testkit.APIError(t, err).StatusCode == http.StatusUnauthorized, "an HTTP 401 is an *sdk.APIError with that status")
		assert.Equal(t, "401", testkit.APIError(t, err).Code)
		assert.False(t, srv.Exchanges()[0].Authorized)
	}
}

func TestFakeGzipBase64AndLowercaseEnvelopesDecode(t *testing.T) {
	t.Parallel()
	_, plain := startFake(t, nil)
	want, err := plain.Product(t.Context(), productdata.AmazonUS, "B0CVM8TXHP")
	require.NoError(t, err)

	for name, opt := range map[string]productdatatest.Option{
		"gzip-base64 Data": productdatatest.WithGzipBase64Data(),
		"gzip-base64 body": productdatatest.WithGzipBase64Body(),
	} {
		srv, c := startFake(t, nil, opt)
		got, err := c.Product(t.Context(), productdata.AmazonUS, "B0CVM8TXHP")
		require.NoError(t, err, name)
		assert.Equal(t, want.SalesPrice, got.SalesPrice, name)
		assert.Equal(t, want.Title, got.Title, name)
		assert.Equal(t, want.PriceTrend, got.PriceTrend, name)
		assert.JSONEq(t, string(want.Raw), string(got.Raw), name)
		require.NotNil(t, got.Units.Left, name)
		assert.Equal(t, srv.RequestLeft(), *got.Units.Left, name)
	}

	_, c := startFake(t, nil, productdatatest.WithLowercaseErrors())
	_, err = c.Product(t.Context(), productdata.AmazonUS, productdatatest.MissingASINPrefix+"0003")
	require.ErrorIs(t, err, productdata.ErrNotFound)
	assert.NotEmpty(t, testkit.APIError(t, err).Message, "the lowercase message is read")

	// Walmart's answers always arrive as base64 of gzip, successes and failures alike.
	var tree json.RawMessage
	_, err = c.Call(t.Context(), productdata.EndpointCategoryTree, productdata.WalmartUS, nil, &tree)
	require.NoError(t, err)
	var nodes []struct{ NodeId, Name string }
	require.NoError(t, json.Unmarshal(tree, &nodes))
	require.NotEmpty(t, nodes)
	assert.NotEmpty(t, nodes[0].Name)
	_, err = c.Call(t.Context(), productdata.EndpointProductRequest, productdata.WalmartUS, map[string]any{"asin": "B0CVM8TXHP"}, nil)
	require.ErrorIs(t, err, productdata.ErrUnauthorized)
}

func TestFakeAsyncFlowsRunToTheEnd(t *testing.T) {
	t.Parallel()
	// 20:00 UTC is the next day in the service's zone: the status query must still find the
	// collection.
	clock := sdktest.NewClock(time.Date(2026, 3, 2, 20, 0, 0, 0, time.UTC))
	srv, _ := startFake(t, clock, productdatatest.WithTaskDuration(20*time.Second))
	ctx := t.Context()

	var progress []sdk.WaitProgress
	c := fakeClient(t, srv, clock, productdata.WithWait(sdk.WaitPolicy{Progress: func(p sdk.WaitProgress) { progress = append(progress, p) }}))
	task, err := c.CollectReviews(ctx, productdata.AmazonUS, &productdata.CollectReviewsParams{ASIN: "B0CVM8TXHP", Pages: 2, Stars: []int{5}})
	require.NoError(t, err)
	assert.Equal(t, "2026-03-03", task.QueryDate)
	assert.Equal(t, "1", task.TaskID)
	assert.Equal(t, "2026-03-02 20:00:20", task.FinishedAt)
	assert.Equal(t, srv.RequestCount(http.MethodPost, "/api/ProductReviewsCollectionStatusQuery"), task.Polls)
	assert.LessOrEqual(t, task.Polls, 6)
	require.Len(t, progress, task.Polls)
	assert.Equal(t, "B0CVM8TXHP", progress[0].Subject)

	n := 0
	for r, err := range c.AllReviews(ctx, productdata.AmazonUS, &productdata.ReviewsParams{ASIN: "B0CVM8TXHP"}) {
		require.NoError(t, err)
		require.NotNil(t, r.Star)
		assert.Equal(t, 5, *r.Star)
		assert.NotEmpty(t, r.ReviewId)
		assert.NotEmpty(t, r.Content)
		n++
	}
	assert.Equal(t, 20, n)

	p, err := c.RefreshProduct(ctx, productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP", Update: 1})
	require.NoError(t, err)
	assertOfficialFields(t, p)
	assert.Positive(t, srv.RequestCount(http.MethodPost, "/api/ProductRealtimeRequestStatusQuery"))
	assert.Equal(t, int64(srv.RequestCount("", "")), c.RequestUnits().Sent, "every request, polls included, is counted")
	require.NotNil(t, c.RequestUnits().Left)
	assert.Equal(t, srv.RequestLeft(), *c.RequestUnits().Left)
	assert.Equal(t, int64(productdatatest.DefaultRequests-srv.RequestLeft()), c.RequestUnits().Consumed)
}
