package productdata_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/productdata"
)

func TestCallSendsTheDocumentedRequest(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return ok(t, []string{"power bank 20000mah"}, 99, 1) })
	c := newClient(t, srv)

	var out []string
	meta, err := c.Call(t.Context(), productdata.EndpointKeywordExtends, productdata.AmazonUK, map[string]string{"Keyword": "power bank"}, &out)
	require.NoError(t, err)
	assert.Equal(t, []string{"power bank 20000mah"}, out)

	got := srv.requests()
	require.Len(t, got, 1)
	r := got[0]
	assert.Equal(t, http.MethodPost, r.Method)
	assert.Equal(t, "/api/KeywordExtends", r.Path)
	assert.Equal(t, "2", r.Query.Get("domain"), "the real service reads the site from the query")
	assert.Equal(t, map[string]any{"domain": 2.0, "Keyword": "power bank"}, r.Body, "the API description puts domain in the body")
	assert.Equal(t, "BasicAuth "+testKey, r.Header.Get("Authorization"))
	assert.Equal(t, "application/json;charset=UTF-8", r.Header.Get("Content-Type"))
	assert.Contains(t, r.Header.Get("User-Agent"), "productdata")

	require.NotNil(t, meta.Units.Left)
	assert.Equal(t, 99, *meta.Units.Left)
	assert.Equal(t, 1, *meta.Units.Consumed)
	assert.Equal(t, http.StatusOK, meta.Response.StatusCode)
}

func TestCallOfAnAccountEndpointSendsNoDomain(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply {
		return ok(t, map[string]any{"CoinLeft": 500, "CoinTotal": 1000, "ResetDate": "2026-12-01"}, 6400, 0)
	})
	c := newClient(t, srv)
	var coins struct{ CoinLeft, CoinTotal int }
	_, err := c.Call(t.Context(), productdata.EndpointCoinQuery, productdata.NoDomain, nil, &coins)
	require.NoError(t, err)
	assert.Equal(t, 500, coins.CoinLeft)
	r := srv.requests()[0]
	assert.Empty(t, r.Query, "no domain in the query")
	assert.Equal(t, map[string]any{}, r.Body, "nil params send an empty object")
}

func TestCallRefusesBadInputBeforeSending(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return ok(t, nil, 1, 1) })
	c := newClient(t, srv)
	cases := []struct {
		endpoint productdata.Endpoint
		domain   productdata.Domain
		params   any
		field    string
	}{
		{"", productdata.AmazonUS, nil, "endpoint"},
		{"Product_Request", productdata.AmazonUS, nil, "endpoint"},
		{"../admin", productdata.AmazonUS, nil, "endpoint"},
		{"1Product", productdata.AmazonUS, nil, "endpoint"},
		{productdata.EndpointProductRequest, 15, nil, "domain"},
		{productdata.EndpointProductRequest, 302, nil, "domain"},
		{productdata.EndpointProductRequest, productdata.NoDomain, nil, "domain"},
		{productdata.EndpointCoinQuery, productdata.AmazonUS, nil, "domain"},
		{productdata.EndpointProductRequest, productdata.AmazonUS, []string{"B0"}, "params"},
		{productdata.EndpointProductRequest, productdata.AmazonUS, "asin", "params"},
		{productdata.EndpointProductRequest, productdata.AmazonUS, map[string]any{"Domain": 3}, "params"},
		{productdata.EndpointProductRequest, productdata.AmazonUS, map[string]any{"x": func() {}}, "params"},
	}
	for _, tc := range cases {
		_, err := c.Call(t.Context(), tc.endpoint, tc.domain, tc.params, nil)
		ve := testkit.ValidationError(t, err)
		assert.Equal(t, tc.field, ve.Field, "%s %d %v", tc.endpoint, tc.domain, tc.params)
		assert.Equal(t, "productdata", ve.Service)
	}
	assert.Empty(t, srv.requests(), "nothing was sent")
}

func TestUnknownEndpointNamesAreSentWithOrWithoutDomain(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return ok(t, map[string]any{"x": 1}, 1, 1) })
	c := newClient(t, srv)
	_, err := c.Call(t.Context(), "ShopDetailV2", productdata.ShopeeSG, nil, nil)
	require.NoError(t, err)
	_, err = c.Call(t.Context(), "AccountInfo", productdata.NoDomain, nil, nil)
	require.NoError(t, err)
	got := srv.requests()
	assert.Equal(t, "203", got[0].Query.Get("domain"))
	assert.Equal(t, "/api/AccountInfo", got[1].Path)
	assert.Empty(t, got[1].Query)
}

func TestCallDecodesRawData(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply {
		return ok(t, []any{[]any{"2024-11-01", 1200, 2}, []any{"2024-10-25", 280, 1}}, 10, 1)
	})
	c := newClient(t, srv)
	var raw json.RawMessage
	_, err := c.Call(t.Context(), productdata.EndpointAsinSalesVolume, productdata.AmazonUS, map[string]string{"ASIN": "B0CVM8TXHP"}, &raw)
	require.NoError(t, err)
	assert.JSONEq(t, `[["2024-11-01",1200,2],["2024-10-25",280,1]]`, string(raw))
}

func TestTheKeyNeverLeaksIntoErrorsOrLogs(t *testing.T) {
	t.Parallel()
	// A server that echoes the Authorization header in its error message and body.
	srv := newAPI(t, nil, func(r received) reply {
		return fail(401, "endpoint not open for "+r.Header.Get("Authorization"))
	})
	var logs bytes.Buffer
	c := newClient(t, srv, productdata.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	_, err := c.Call(t.Context(), productdata.EndpointProductRequest, productdata.AmazonUS, map[string]string{"asin": "B0CVM8TXHP"}, nil)
	require.ErrorIs(t, err, productdata.ErrUnauthorized)
	ae := testkit.APIError(t, err)
	assert.NotContains(t, err.Error(), testKey)
	assert.NotContains(t, ae.Message, testKey)
	assert.NotContains(t, string(ae.Body), testKey)
	assert.NotContains(t, logs.String(), testKey)
	assert.Contains(t, logs.String(), "/api/ProductRequest", "the log has the path")
	for _, r := range srv.requests() {
		assert.NotContains(t, r.Query.Encode(), testKey, "the key is never in the URL")
	}
}

func TestSetAccountKeyReplacesTheKey(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return ok(t, nil, 1, 0) })
	c := newClient(t, srv)
	require.NoError(t, c.SetAccountKey("second-key-0123456789"))
	_, err := c.Call(t.Context(), productdata.EndpointCoinQuery, productdata.NoDomain, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "BasicAuth second-key-0123456789", srv.requests()[0].Header.Get("Authorization"))
	assert.Equal(t, "account key", testkit.ValidationError(t, c.SetAccountKey("two words")).Field)
}

// TestRequestUnitsKeepTheUnitsLeftOfTheNewestRequest: two calls run at once and the server answers
// the newer one first (90 units left) and the older one last (91, counted before the newer
// request was): RequestUnits().Left keeps 90, the figure of the most recently sent request, not
// that of the answer that happened to arrive last.
func TestRequestUnitsKeepTheUnitsLeftOfTheNewestRequest(t *testing.T) {
	t.Parallel()
	olderIn, releaseOlder := make(chan struct{}), make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(releaseOlder) }) })
	var n atomic.Int32
	srv := newAPI(t, nil, func(r received) reply {
		if n.Add(1) == 1 {
			close(olderIn)
			<-releaseOlder
			return ok(t, nil, 91, 1)
		}
		return ok(t, nil, 90, 1)
	})
	c := newClient(t, srv)
	older := make(chan error, 1)
	go func() {
		_, err := c.Call(t.Context(), productdata.EndpointCoinQuery, productdata.NoDomain, nil, nil)
		older <- err
	}()
	<-olderIn
	meta, err := c.Call(t.Context(), productdata.EndpointCoinQuery, productdata.NoDomain, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, 90, *meta.Units.Left)
	once.Do(func() { close(releaseOlder) })
	require.NoError(t, <-older)

	counted := c.RequestUnits()
	assert.Equal(t, int64(2), counted.Sent)
	assert.Equal(t, int64(2), counted.Consumed)
	require.NotNil(t, counted.Left)
	assert.Equal(t, 90, *counted.Left, "a late answer to an older request does not replace a newer one's figure")
}
