package productdatatest_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/productdata/productdatatest"
)

func TestLowercaseErrorEnvelopes(t *testing.T) {
	t.Parallel()
	srv := start(t, productdatatest.WithLowercaseErrors())
	r := post(t, srv, "CategoryProducts", 1, `{"NodeId":"3743561","Page":50}`)
	assert.JSONEq(t, `{"code":11,"message":"No data available"}`, string(r.raw))
	r = send(t, srv, req{endpoint: "ProductRequest", query: "domain=1", body: `{}`, header: map[string]string{"Authorization": "BasicAuth wrong"}})
	assert.JSONEq(t, `{"code":401,"message":"Endpoint not open: invalid Account-SK"}`, string(r.raw))
	r = post(t, srv, "ProductRealtimeRequest", 1, `{"ASIN":"`+asin+`","Update":1}`)
	assert.Equal(t, 99, r.code(t), "a running task is a non-zero code too")
	assert.NotContains(t, r.env, "RequestLeft")

	ok := post(t, srv, "KeywordRequest", 1, `{"Keyword":"lamp"}`)
	assert.Equal(t, 0, ok.code(t))
	assert.Contains(t, ok.env, "RequestLeft", "success keeps the PascalCase envelope")
	assert.Contains(t, ok.env, "Data")
}

func TestTheLowercasePlatformsAlwaysAnswerFailuresInCamelCase(t *testing.T) {
	t.Parallel()
	srv := start(t)
	for _, d := range []int{601, 701, 705, 301, 312} {
		r := post(t, srv, "ProductRequest", d, `{"asin":"`+asin+`"}`)
		assert.JSONEq(t, `{"code":401,"message":"Endpoint not open: check the endpoint name and whether your plan includes it"}`, string(r.raw), "domain %d", d)
		ok := post(t, srv, "CategoryTree", d, `{}`)
		assert.Equal(t, 0, ok.code(t))
		assert.Contains(t, ok.env, "RequestConsumed", "domain %d: success is PascalCase", d)
	}
	r := post(t, srv, "ProductRequest", 1, `{"asin":"B0NONE0001"}`)
	assert.Contains(t, r.env, "Code", "the Amazon sites answer failures in PascalCase")
	assert.Contains(t, r.env, "RequestLeft")
}

func TestGzipBase64DataDecodesToThePlainPayload(t *testing.T) {
	t.Parallel()
	calls := []struct{ endpoint, body string }{
		{"CategoryTree", `{}`},
		{"ProductRequest", `{"asin":"` + asin + `"}`},
		{"KeywordRequest", `{"Keyword":"lamp"}`},
	}
	// The data are deterministic: a plain fake and a zipping one on the same clock answer the
	// same payloads.
	plain := map[string]json.RawMessage{}
	t.Run("plain", func(t *testing.T) {
		srv := start(t)
		for _, c := range calls {
			var data json.RawMessage
			post(t, srv, c.endpoint, 1, c.body).ok(t, &data)
			plain[c.endpoint] = data
		}
	})
	t.Run("zipped", func(t *testing.T) {
		srv := start(t, productdatatest.WithGzipBase64Data())
		for _, c := range calls {
			r := post(t, srv, c.endpoint, 1, c.body)
			var encoded string
			r.ok(t, &encoded)
			decoded := gunzipBase64(t, encoded)
			assert.JSONEq(t, string(plain[c.endpoint]), string(decoded), c.endpoint)
			if c.endpoint == "CategoryTree" {
				assert.Less(t, len(encoded)*5, len(decoded), "the large tree compresses well")
			}
			left, consumed := r.units(t)
			assert.Equal(t, srv.RequestLeft(), left, "the rest of the envelope stays plain")
			assert.Equal(t, 1, consumed)
		}
		failure := post(t, srv, "ProductRequest", 1, `{"asin":"B0NONE0001"}`)
		assert.JSONEq(t, "null", string(failure.env["Data"]), "failures have no payload to encode")
	})
}

func TestGzipBase64DataPerEndpoint(t *testing.T) {
	t.Parallel()
	srv := start(t, productdatatest.WithGzipBase64Data("categorytree"))
	var encoded string
	post(t, srv, "CategoryTree", 1, `{}`).ok(t, &encoded)
	assert.NotEmpty(t, gunzipBase64(t, encoded))
	var list []map[string]any
	post(t, srv, "ProductRequest", 1, `{"asin":"`+asin+`"}`).ok(t, &list)
	assert.Len(t, list, 1, "other endpoints stay plain")
}

func TestShopeeAndWalmartSendWholeBodiesAsBase64OfGzip(t *testing.T) {
	t.Parallel()
	srv := start(t)
	for _, d := range []int{21, 201, 208} {
		r := post(t, srv, "CategoryTree", d, `{}`)
		require.True(t, r.encoded, "domain %d", d)
		assert.Equal(t, "text/plain; charset=utf-8", r.header.Get("Content-Type"))
		var nodes []map[string]any
		r.ok(t, &nodes)
		assert.NotEmpty(t, nodes)
		left, consumed := r.units(t)
		assert.Equal(t, 1, consumed)
		assert.Positive(t, left)
	}
	walmart := post(t, srv, "CategoryTree", 21, `{}`)
	var count int
	walmart.member(t, "RequestCount", &count)
	assert.Zero(t, count, "Walmart adds RequestCount, always 0")
	shopee := post(t, srv, "CategoryTree", 201, `{}`)
	assert.NotContains(t, shopee.env, "RequestCount")
	assert.Equal(t, 16, post(t, srv, "ProductRequest", 201, `{"asin":"`+asin+`"}`).code(t), "failures are encoded too")
	var node []struct{ URL string }
	shopee.ok(t, &node)
	assert.Contains(t, node[0].URL, "https://shopee.vn/")
}

func TestGzipBase64BodyOption(t *testing.T) {
	t.Parallel()
	srv := start(t, productdatatest.WithGzipBase64Body("KeywordRequest"))
	r := post(t, srv, "KeywordRequest", 1, `{"Keyword":"lamp"}`)
	require.True(t, r.encoded)
	assert.Equal(t, 0, r.code(t))
	plain := post(t, srv, "ProductRequest", 1, `{"asin":"`+asin+`"}`)
	assert.False(t, plain.encoded)
	assert.Equal(t, http.StatusOK, plain.status)
	assert.Equal(t, 0, plain.code(t))
}
