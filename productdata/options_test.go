package productdata_test

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/productdata"
)

func TestNewNeedsABaseURLAndAKey(t *testing.T) {
	t.Parallel()
	_, err := productdata.New(productdata.WithAccountKey(testKey))
	ve := testkit.ValidationError(t, err)
	assert.Equal(t, "base URL", ve.Field)
	assert.Contains(t, ve.Reason, "PRODUCTDATA_URL")

	_, err = productdata.New(productdata.WithBaseURL("https://standardapi.sorftime.com"))
	mc := testkit.MissingCredential(t, err)
	assert.Equal(t, "account key", mc.Credential)
	assert.Equal(t, "New", mc.Operation)
	assert.Contains(t, mc.Reason, "WithAccountKey")
	assert.Equal(t, "productdata", mc.Service)
	assert.ErrorIs(t, err, sdk.ErrMissingCredential)
}

func TestWithAccountKeyValidates(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "BasicAuth " + testKey, testKey + "\n", "ab\x00cd", "key with space"} {
		_, err := productdata.New(productdata.WithBaseURL("https://h.example"), productdata.WithAccountKey(bad))
		ve := testkit.ValidationError(t, err)
		assert.Equal(t, "account key", ve.Field)
		assert.Equal(t, "productdata", ve.Service)
		if bad != "" {
			assert.NotContains(t, err.Error(), strings.TrimSpace(bad), "the value is never quoted")
		}
	}
	_, err := productdata.New(productdata.WithBaseURL("https://h.example"), productdata.WithAccountKey("abc"))
	assert.Equal(t, "credential", testkit.ValidationError(t, err).Field, "too short to be a key")
}

func TestBaseURLKeepsItsPathAndAddsTheAPIPrefix(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return ok(t, nil, 1, 1) })
	for base, want := range map[string]string{
		srv.URL:             "/api/CoinQuery",
		srv.URL + "/":       "/api/CoinQuery",
		srv.URL + "/api":    "/api/CoinQuery",
		srv.URL + "/proxy":  "/proxy/api/CoinQuery",
		srv.URL + "/proxy/": "/proxy/api/CoinQuery",
		srv.URL + "/p/api/": "/p/api/CoinQuery",
	} {
		c, err := productdata.New(productdata.WithBaseURL(base), productdata.WithAccountKey(testKey), productdata.WithRequestsPerMinute(0))
		require.NoError(t, err)
		_, err = c.Call(t.Context(), productdata.EndpointCoinQuery, productdata.NoDomain, nil, nil)
		require.NoError(t, err)
		reqs := srv.requests()
		assert.Equal(t, want, reqs[len(reqs)-1].Path, base)
	}
}

func TestEnvironmentSuppliesURLAndKey(t *testing.T) {
	srv := newAPI(t, nil, func(r received) reply { return ok(t, nil, 1, 1) })
	t.Setenv(productdata.EnvURL, srv.URL)
	t.Setenv(productdata.EnvAccountKey, "env-key-0123456789")
	c, err := productdata.New(productdata.WithRequestsPerMinute(0))
	require.NoError(t, err)
	_, err = c.Call(t.Context(), productdata.EndpointCoinQuery, productdata.NoDomain, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "BasicAuth env-key-0123456789", srv.requests()[0].Header.Get("Authorization"))

	// An explicit key wins over the environment's.
	c, err = productdata.New(productdata.WithAccountKey(testKey), productdata.WithRequestsPerMinute(0))
	require.NoError(t, err)
	_, err = c.Call(t.Context(), productdata.EndpointCoinQuery, productdata.NoDomain, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "BasicAuth "+testKey, srv.requests()[1].Header.Get("Authorization"))

	// An explicit base URL never receives the environment's key, and New says why and how to
	// send it.
	other := newAPI(t, nil, func(r received) reply { return ok(t, nil, 1, 1) })
	_, err = productdata.New(productdata.WithBaseURL(other.URL))
	mc := testkit.MissingCredential(t, err)
	assert.Equal(t, "account key", mc.Credential)
	for _, part := range []string{productdata.EnvAccountKey + " is set but was not used", productdata.EnvURL, "WithBaseURL",
		`WithAccountKey(os.Getenv("PRODUCTDATA_ACCOUNT_KEY"))`} {
		assert.Contains(t, mc.Reason, part)
	}
	assert.NotContains(t, err.Error(), "env-key-0123456789")
	c, err = productdata.New(productdata.WithBaseURL(other.URL), productdata.WithAccountKey(os.Getenv(productdata.EnvAccountKey)),
		productdata.WithRequestsPerMinute(0))
	require.NoError(t, err)
	_, err = c.Call(t.Context(), productdata.EndpointCoinQuery, productdata.NoDomain, nil, nil)
	require.NoError(t, err)
	require.Len(t, other.requests(), 1, "only the opt-in sent anything")
	assert.Equal(t, "BasicAuth env-key-0123456789", other.requests()[0].Header.Get("Authorization"))

	t.Setenv(productdata.EnvAccountKey, "bad key")
	_, err = productdata.New()
	ve := testkit.ValidationError(t, err)
	assert.Equal(t, productdata.EnvAccountKey, ve.Field)
	assert.Equal(t, "productdata", ve.Service)
	assert.NotContains(t, err.Error(), "bad key")
}

func TestRetryPolicyDefaultsToTwoRetries(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return reply{status: http.StatusServiceUnavailable} })
	c, err := productdata.New(productdata.WithBaseURL(srv.URL), productdata.WithAccountKey(testKey), productdata.WithRequestsPerMinute(0),
		productdata.WithRetry(sdk.RetryPolicy{BaseDelay: time.Millisecond}))
	require.NoError(t, err)
	_, err = c.Call(t.Context(), productdata.EndpointCategoryTree, productdata.AmazonUS, nil, nil)
	assert.Equal(t, 3, testkit.APIError(t, err).Attempts, "a zero MaxAttempts means the package's default of 3")
	assert.Equal(t, int64(3), c.RequestUnits().Sent)

	c, err = productdata.New(productdata.WithBaseURL(srv.URL), productdata.WithAccountKey(testKey), productdata.WithRequestsPerMinute(0),
		productdata.WithRetry(sdk.RetryPolicy{MaxAttempts: 5, BaseDelay: time.Millisecond}))
	require.NoError(t, err)
	_, err = c.Call(t.Context(), productdata.EndpointCategoryTree, productdata.AmazonUS, nil, nil)
	assert.Equal(t, 5, testkit.APIError(t, err).Attempts)

	_, err = productdata.New(productdata.WithBaseURL(srv.URL), productdata.WithAccountKey(testKey),
		productdata.WithRetry(sdk.RetryPolicy{MaxAttempts: -1}))
	assert.Equal(t, "retry policy", testkit.ValidationError(t, err).Field)
}

func TestRequestUnitsCountEveryRequestAndTheReportedUnits(t *testing.T) {
	t.Parallel()
	left := 1000
	srv := newAPI(t, nil, func(r received) reply {
		switch r.Endpoint {
		case "ProductRequest":
			left -= 2
			return ok(t, []any{product("B0CVM8TXHP", 1, 1), product("B0D3DL6PXQ", 1, 1)}, left, 2)
		case "CategoryTree":
			return reply{body: `{"Code":0,"Message":null,"Data":[]}`} // no units reported
		}
		return reply{status: http.StatusBadGateway}
	})
	c := newClient(t, srv, productdata.WithRetry(sdk.RetryPolicy{BaseDelay: time.Millisecond}))
	assert.Equal(t, productdata.RequestUnits{}, c.RequestUnits())

	_, err := c.Products(t.Context(), productdata.AmazonUS, &productdata.ProductsParams{ASINs: []string{"B0CVM8TXHP", "B0D3DL6PXQ"}})
	require.NoError(t, err)
	_, err = c.Call(t.Context(), productdata.EndpointCategoryTree, productdata.AmazonUS, nil, nil)
	require.NoError(t, err)
	_, err = c.Call(t.Context(), productdata.EndpointKeywordTasks, productdata.AmazonUS, nil, nil)
	require.Error(t, err)

	u := c.RequestUnits()
	assert.Equal(t, int64(5), u.Sent, "1 + 1 + 3 attempts of the failing read")
	assert.Equal(t, int64(2), u.Consumed)
	require.NotNil(t, u.Left)
	assert.Equal(t, 998, *u.Left, "the last answer that said")
}

func TestDomains(t *testing.T) {
	t.Parallel()
	all := productdata.Domains()
	assert.Len(t, all, 14+1+8+8+1+2)
	assert.Equal(t, productdata.AmazonUS, all[0])
	assert.Equal(t, productdata.TemuEU, all[len(all)-1])
	for _, d := range all {
		assert.True(t, d.Valid())
		assert.NotEmpty(t, d.Platform())
	}
	assert.Equal(t, "Amazon US (1)", productdata.AmazonUS.String())
	assert.Equal(t, "Shopee TW (206)", productdata.ShopeeTW.String())
	assert.Equal(t, "TikTok GB (309)", productdata.TikTokGB.String())
	assert.Equal(t, "1688 CN (601)", productdata.Alibaba1688.String())
	assert.Equal(t, productdata.PlatformWalmart, productdata.WalmartUS.Platform())
	for _, bad := range []productdata.Domain{0, 15, 20, 22, 200, 209, 302, 308, 310, 311, 313, 600, 700, 702, 706, -1} {
		assert.False(t, bad.Valid(), "%d", bad)
		assert.Empty(t, bad.Platform())
	}
	assert.Equal(t, "Domain(302)", productdata.Domain(302).String())
}
