package productdata_test

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/productdata"
)

// codeTable is the research table of business codes and the sentinel each maps to.
var codeTable = []struct {
	code     int
	sentinel error
}{
	{-1, productdata.ErrExecutionFailed},
	{4, productdata.ErrQuotaExhausted},
	{9, productdata.ErrUnauthorized},
	{10, productdata.ErrInvalidParams},
	{11, productdata.ErrNoMoreData},
	{12, productdata.ErrAlreadyExists},
	{13, productdata.ErrNotFound},
	{14, productdata.ErrInvalidParams},
	{15, productdata.ErrInvalidParams},
	{16, productdata.ErrUnsupported},
	{17, productdata.ErrInvalidParams},
	{18, productdata.ErrInvalidParams},
	{19, productdata.ErrInvalidParams},
	{20, productdata.ErrTaskRunning},
	{21, productdata.ErrTaskRunning},
	{22, productdata.ErrInvalidParams},
	{23, productdata.ErrInvalidParams},
	{24, productdata.ErrInvalidParams},
	{97, productdata.ErrNotFound},
	{98, productdata.ErrTaskFailed},
	{99, productdata.ErrTaskRunning},
	{106, productdata.ErrAlreadyExists},
	{400, productdata.ErrUnauthorized},
	{401, productdata.ErrUnauthorized},
	{402, productdata.ErrUnauthorized},
	{500, productdata.ErrQuotaExhausted},
	{501, productdata.ErrRateLimited},
	{502, productdata.ErrQuotaExhausted},
	{503, productdata.ErrTaskFailed},
	{694, productdata.ErrQuotaExhausted},
}

// allSentinels lists every business sentinel.
var allSentinels = []error{
	productdata.ErrNoMoreData, productdata.ErrTaskRunning, productdata.ErrUnauthorized, productdata.ErrQuotaExhausted,
	productdata.ErrRateLimited, productdata.ErrNotFound, productdata.ErrInvalidParams, productdata.ErrUnsupported,
	productdata.ErrAlreadyExists, productdata.ErrTaskFailed, productdata.ErrExecutionFailed,
}

func TestEveryCodeInBothEnvelopeCasesMapsToItsSentinel(t *testing.T) {
	t.Parallel()
	var code atomic.Int64
	var lower atomic.Bool
	srv := newAPI(t, nil, func(r received) reply {
		c := code.Load()
		if lower.Load() {
			return reply{body: `{"code":` + strconv.FormatInt(c, 10) + `,"message":"said ` + strconv.FormatInt(c, 10) + `"}`}
		}
		return fail(int(c), "said "+strconv.FormatInt(c, 10))
	})
	c := newClient(t, srv, productdata.WithRetry(sdk.RetryPolicy{MaxAttempts: 1}))
	for _, lowercase := range []bool{false, true} {
		lower.Store(lowercase)
		for _, row := range codeTable {
			code.Store(int64(row.code))
			var out any
			meta, err := c.Call(t.Context(), productdata.EndpointKeywordRequest, productdata.TemuUS, map[string]string{"Keyword": "x"}, &out)
			assert.Nil(t, meta)
			require.ErrorIs(t, err, row.sentinel, "code %d lowercase %t", row.code, lowercase)
			ae := testkit.APIError(t, err)
			assert.Equal(t, http.StatusOK, ae.StatusCode, "codes come in HTTP 200")
			assert.Equal(t, strconv.Itoa(row.code), ae.Code)
			assert.Equal(t, "said "+strconv.Itoa(row.code), ae.Message)
			assert.Equal(t, "/api/KeywordRequest", ae.Path)
			assert.Nil(t, out, "Data is not read when Code is not 0")
			for _, other := range allSentinels {
				if other != row.sentinel {
					assert.NotErrorIs(t, err, other, "code %d", row.code)
				}
			}
		}
	}
}

func TestAnUnknownCodeIsAnAPIErrorWithItsMessage(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return fail(250, "business-defined: video not public") })
	c := newClient(t, srv)
	_, err := c.Call(t.Context(), "VideoRequest", productdata.TikTokUS, nil, nil)
	ae := testkit.APIError(t, err)
	assert.Equal(t, "250", ae.Code)
	assert.Equal(t, "business-defined: video not public", ae.Message)
	assert.Contains(t, err.Error(), "250: business-defined: video not public")
	for _, s := range allSentinels {
		assert.NotErrorIs(t, err, s)
	}
}

func TestHTTP401IsUnauthorizedWhateverTheBody(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`Unauthorized`, ``, `{"Code":401,"Message":"bad key"}`, `{"error":"invalid_token"}`} {
		srv := newAPI(t, nil, func(r received) reply { return reply{status: http.StatusUnauthorized, body: body} })
		c := newClient(t, srv)
		_, err := c.Call(t.Context(), productdata.EndpointProductRequest, productdata.AmazonUS, map[string]string{"asin": "B0CVM8TXHP"}, nil)
		require.ErrorIs(t, err, productdata.ErrUnauthorized, "body %q", body)
		assert.Equal(t, http.StatusUnauthorized, testkit.APIError(t, err).StatusCode)
	}
}

// TestStatusSentinelsAreTheSDKs holds that the package's status sentinels are sdk's, so that
// a 403, 404 or 409 from a gateway matches them as it matches sdk's.
func TestStatusSentinelsAreTheSDKs(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []error{sdk.ErrUnauthorized, sdk.ErrForbidden, sdk.ErrNotFound, sdk.ErrConflict, sdk.ErrRateLimited},
		[]error{productdata.ErrUnauthorized, productdata.ErrForbidden, productdata.ErrNotFound, productdata.ErrConflict, productdata.ErrRateLimited})
	for status, sentinel := range map[int]error{
		http.StatusForbidden: productdata.ErrForbidden, http.StatusNotFound: productdata.ErrNotFound, http.StatusConflict: productdata.ErrConflict,
	} {
		srv := newAPI(t, nil, func(r received) reply { return reply{status: status, body: "refused"} })
		_, err := newClient(t, srv).Call(t.Context(), productdata.EndpointCoinQuery, productdata.NoDomain, nil, nil)
		assert.ErrorIs(t, err, sentinel, "HTTP %d", status)
	}
}

func TestHTTP429IsARateLimitError(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply {
		return reply{status: http.StatusTooManyRequests, header: http.Header{"Retry-After": {"7"}, "X-Ratelimit-Remaining": {"0"}}}
	})
	c := newClient(t, srv)
	_, err := c.Call(t.Context(), productdata.EndpointProductRequest, productdata.AmazonUS, nil, nil)
	require.ErrorIs(t, err, productdata.ErrRateLimited)
	var rl *sdk.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, 7*time.Second, rl.RetryAfter)
	require.NotNil(t, rl.RateLimit)
	assert.Equal(t, 0, *rl.RateLimit.Remaining)
}

func TestPerMinuteLimitCodeIsRetriedForEveryEndpoint(t *testing.T) {
	t.Parallel()
	for _, endpoint := range []productdata.Endpoint{productdata.EndpointProductRequest, productdata.EndpointProductReviewsCollection} {
		var n atomic.Int32
		srv := newAPI(t, nil, func(r received) reply {
			if n.Add(1) < 3 {
				return fail(501, "per-minute limit")
			}
			return ok(t, "task-1", 50, 1)
		})
		c := newClient(t, srv, productdata.WithRetry(sdk.RetryPolicy{BaseDelay: time.Millisecond, MaxRetryAfter: time.Millisecond}))
		var id string
		meta, err := c.Call(t.Context(), endpoint, productdata.AmazonUS, nil, &id)
		require.NoError(t, err, endpoint)
		assert.Equal(t, "task-1", id)
		assert.Equal(t, 3, meta.Response.Attempts, "two retries by default")
		assert.Equal(t, int64(3), c.RequestUnits().Sent)
	}
}

func TestPerMinuteLimitGivesUpAfterTheDefaultRetries(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return fail(501, "per-minute limit") })
	c := newClient(t, srv, productdata.WithRetry(sdk.RetryPolicy{BaseDelay: time.Millisecond, MaxRetryAfter: time.Millisecond}))
	_, err := c.Call(t.Context(), productdata.EndpointCategoryTree, productdata.AmazonUS, nil, nil)
	require.ErrorIs(t, err, productdata.ErrRateLimited)
	var rl *sdk.RateLimitError
	require.ErrorAs(t, err, &rl, "the per-minute limit is a quota, like a 429")
	ae := testkit.APIError(t, err)
	assert.Equal(t, productdata.DefaultMaxAttempts, ae.Attempts)
	assert.Equal(t, time.Minute, ae.RetryAfter, "the service asks for a minute")
	assert.Len(t, srv.requests(), 3)
}

func TestOtherCodesAreNotRetried(t *testing.T) {
	t.Parallel()
	for _, code := range []int{4, 10, 11, 20, 99, 401, 500, 502, 694, -1} {
		srv := newAPI(t, nil, func(r received) reply { return fail(code, "no") })
		c := newClient(t, srv, productdata.WithRetry(sdk.RetryPolicy{BaseDelay: time.Millisecond}))
		_, err := c.Call(t.Context(), productdata.EndpointProductRequest, productdata.AmazonUS, nil, nil)
		require.Error(t, err)
		assert.Len(t, srv.requests(), 1, "code %d", code)
	}
}

func TestGatewayErrorsAreRetriedOnlyForReads(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		endpoint productdata.Endpoint
		sends    int
	}{
		{productdata.EndpointProductRequest, 3},
		{productdata.EndpointProductRealtimeRequestStatusQuery, 3},
		{productdata.EndpointProductRealtimeRequest, 1},
		{productdata.EndpointProductReviewsCollection, 1},
		{productdata.EndpointASINSubscription, 1},
		{"SomethingNew", 1},
	} {
		srv := newAPI(t, nil, func(r received) reply { return reply{status: http.StatusBadGateway, body: "bad gateway"} })
		c := newClient(t, srv, productdata.WithRetry(sdk.RetryPolicy{BaseDelay: time.Millisecond}))
		_, err := c.Call(t.Context(), tc.endpoint, productdata.AmazonUS, nil, nil)
		ae := testkit.APIError(t, err)
		assert.Equal(t, http.StatusBadGateway, ae.StatusCode)
		assert.Len(t, srv.requests(), tc.sends, "%s", tc.endpoint)
		assert.Equal(t, tc.sends == 3, tc.endpoint.SafeToRepeat())
	}
}

func TestTypedErrorsOfTasks(t *testing.T) {
	t.Parallel()
	for status, sentinel := range map[productdata.TaskStatus]error{
		productdata.TaskFailed:    productdata.ErrTaskFailed,
		productdata.TaskNoCredit:  productdata.ErrQuotaExhausted,
		productdata.TaskNoProduct: productdata.ErrNotFound,
	} {
		err := error(&productdata.TaskError{Endpoint: productdata.EndpointProductRealtimeRequest, ASIN: "B0CVM8TXHP", Status: status, Polls: 2})
		assert.ErrorIs(t, err, sentinel)
		assert.Contains(t, err.Error(), "B0CVM8TXHP")
	}
	nf := error(&productdata.NotFoundError{Endpoint: productdata.EndpointProductRequest, Domain: productdata.AmazonUS, Missing: []string{"B000000000"}})
	assert.ErrorIs(t, nf, productdata.ErrNotFound)
	assert.Equal(t, "productdata: ProductRequest on Amazon US (1): no data for B000000000", nf.Error())
}
