package productdatatest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/productdata/productdatatest"
	"github.com/agentapis/sdk/sdktest"
)

const asin = "B0CVM8TXHP"

func TestEnvelopeMembersInTheServiceOrder(t *testing.T) {
	t.Parallel()
	srv := start(t)
	r := post(t, srv, "ProductRequest", 1, `{"asin":"`+asin+`","Trend":2}`)
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, "application/json; charset=utf-8", r.header.Get("Content-Type"))
	body := string(r.raw)
	assert.True(t, strings.HasPrefix(body, `{"RequestLeft":6499,"RequestConsumed":1,"Code":0,"Message":null,"Data":[{"ASIN":"B0CVM8TXHP",`), body)
	assert.NotContains(t, r.env, "RequestCount", "only the Walmart site sends RequestCount")
}

func TestRoutingIsCaseInsensitiveAndRejectsUnderscores(t *testing.T) {
	t.Parallel()
	srv := start(t)
	for _, name := range []string{"ProductRequest", "productrequest", "PRODUCTREQUEST", "pRoDuCtReQuEsT"} {
		r := post(t, srv, name, 1, `{"asin":"`+asin+`"}`)
		assert.Equal(t, 0, r.code(t), name)
	}
	before := srv.RequestLeft()
	for _, name := range []string{"Product_Request", "product_request", "NoSuchEndpoint", "ProductRequest/extra", ""} {
		r := post(t, srv, name, 1, `{"asin":"`+asin+`"}`)
		assert.Equal(t, http.StatusNotFound, r.status, name)
		assert.Equal(t, "Not Found", string(r.raw), name)
	}
	r := send(t, srv, req{method: http.MethodGet, endpoint: "ProductRequest", query: "domain=1"})
	assert.Equal(t, http.StatusMethodNotAllowed, r.status)
	assert.Equal(t, "POST", r.header.Get("Allow"))
	assert.Equal(t, before, srv.RequestLeft(), "nothing routed away was charged")
}

func TestEndpointsOfTheServiceTheFakeDoesNotServeAreNotOpen(t *testing.T) {
	t.Parallel()
	srv := start(t)
	msg := post(t, srv, "KeywordExtends", 1, `{"Keyword":"power bank"}`).failed(t, 401)
	assert.Contains(t, msg, "Endpoint not open")
	left, consumed := post(t, srv, "CoinQuery", 1, `{}`).units(t)
	assert.Equal(t, productdatatest.DefaultRequests, left)
	assert.Zero(t, consumed)
}

func TestKeyErrorsAreCode401InHTTP200(t *testing.T) {
	t.Parallel()
	srv := start(t)
	for name, value := range map[string]string{
		"no header":     "",
		"wrong key":     "BasicAuth pdfake0000000000000000000000000000",
		"Basic scheme":  "Basic " + productdatatest.DefaultKey,
		"Bearer scheme": "Bearer " + productdatatest.DefaultKey,
		"lower scheme":  "basicauth " + productdatatest.DefaultKey,
		"bare key":      productdatatest.DefaultKey,
		"two spaces":    "BasicAuth  " + productdatatest.DefaultKey,
	} {
		r := send(t, srv, req{endpoint: "ProductRequest", query: "domain=1", body: `{"asin":"` + asin + `"}`, header: map[string]string{"Authorization": value}})
		msg := r.failed(t, 401)
		assert.Contains(t, msg, "Account-SK", name)
		left, consumed := r.units(t)
		assert.Zero(t, left, "%s: an unknown caller learns no balance", name)
		assert.Zero(t, consumed, name)
		assert.NotContains(t, string(r.raw), productdatatest.DefaultKey, name)
	}
	for _, c := range srv.Exchanges() {
		assert.NotContains(t, c.AuthScheme, productdatatest.DefaultKey)
		assert.False(t, c.Authorized)
	}
	r := send(t, srv, req{endpoint: "ProductRequest", query: "domain=1", body: `{}`, header: map[string]string{"Authorization": productdatatest.DefaultKey + " BasicAuth"}})
	r.failed(t, 401)
	calls := srv.Exchanges()
	assert.Empty(t, calls[len(calls)-1].AuthScheme, "a key in the place of the scheme is not recorded")
	assert.Equal(t, productdatatest.DefaultRequests, srv.RequestLeft())
}

func TestKeyErrorsAsHTTP401(t *testing.T) {
	t.Parallel()
	srv := start(t, productdatatest.WithHTTP401OnBadKey())
	r := send(t, srv, req{endpoint: "ProductRequest", query: "domain=1", body: `{"asin":"` + asin + `"}`, header: map[string]string{"Authorization": "BasicAuth nope"}})
	assert.Equal(t, http.StatusUnauthorized, r.status)
	assert.Equal(t, 401, r.code(t), "the envelope still says why")
	assert.Equal(t, 0, post(t, srv, "ProductRequest", 1, `{"asin":"`+asin+`"}`).code(t), "a good key still works")
}

func TestWithKeyReplacesTheDefaultKey(t *testing.T) {
	t.Parallel()
	const mine, other = "abcdefghijklmnopqrstuvwxyz012345", "zyxwvutsrqponmlkjihgfedcba543210"
	srv := start(t, productdatatest.WithKey(mine), productdatatest.WithKey(other))
	for key, want := range map[string]int{mine: 0, other: 0, productdatatest.DefaultKey: 401} {
		r := send(t, srv, req{endpoint: "ProductRequest", query: "domain=1", body: `{"asin":"` + asin + `"}`, header: map[string]string{"Authorization": "BasicAuth " + key}})
		assert.Equal(t, want, r.code(t), key)
	}
}

func TestContentType(t *testing.T) {
	t.Parallel()
	srv := start(t)
	for _, ct := range []string{"application/json;charset=UTF-8", "application/json", "application/json; charset=utf-8", "Application/JSON;Charset=UTF-8"} {
		r := send(t, srv, req{endpoint: "ProductRequest", query: "domain=1", body: `{"asin":"` + asin + `"}`, header: map[string]string{"Content-Type": ct}})
		assert.Equal(t, 0, r.code(t), ct)
	}
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "application/json;charset=latin1", "application/json; boundary=x"} {
		r := send(t, srv, req{endpoint: "ProductRequest", query: "domain=1", body: `{"asin":"` + asin + `"}`, header: map[string]string{"Content-Type": ct}})
		msg := r.failed(t, 10)
		assert.Contains(t, msg, "Content-Type", ct)
		_, consumed := r.units(t)
		assert.Zero(t, consumed, ct)
	}
}

func TestDomainInQueryOrBody(t *testing.T) {
	t.Parallel()
	srv := start(t)
	body := `"asin":"` + asin + `"`
	served := func(r reply) int {
		var list []map[string]any
		r.ok(t, &list)
		return srv.Exchanges()[len(srv.Exchanges())-1].Domain
	}
	assert.Equal(t, 7, served(send(t, srv, req{endpoint: "ProductRequest", query: "domain=7", body: "{" + body + "}"})), "query only, as the real service reads it")
	assert.Equal(t, 3, served(send(t, srv, req{endpoint: "ProductRequest", body: `{"domain":3,` + body + "}"})), "body only, as the API description says")
	assert.Equal(t, 2, served(send(t, srv, req{endpoint: "ProductRequest", query: "domain=2", body: `{"Domain":2,` + body + "}"})), "both, agreeing")

	for name, r := range map[string]req{
		"missing":          {body: "{" + body + "}"},
		"differ":           {query: "domain=1", body: `{"domain":2,` + body + "}"},
		"unknown in query": {query: "domain=15", body: "{" + body + "}"},
		"unused TikTok":    {query: "domain=302", body: "{" + body + "}"},
		"unknown in body":  {body: `{"domain":0,` + body + "}"},
		"text in query":    {query: "domain=us", body: "{" + body + "}"},
		"string in body":   {body: `{"domain":"1",` + body + "}"},
		"twice in query":   {query: "domain=1&domain=1", body: "{" + body + "}"},
	} {
		r.endpoint = "ProductRequest"
		a := send(t, srv, r)
		msg := a.failed(t, 401)
		assert.Contains(t, msg, "domain", name)
		_, consumed := a.units(t)
		assert.Zero(t, consumed, name)
	}
	send(t, srv, req{endpoint: "ProductRequest", query: "domain=1", body: `{"domain":2,` + body + "}"})
	calls := srv.Exchanges()
	last := calls[len(calls)-1]
	assert.Equal(t, "1", last.Query.Get("domain"))
	assert.JSONEq(t, "2", string(last.Params["domain"]))
	assert.Zero(t, last.Domain, "a refused call was served for no site")
	assert.Equal(t, 401, last.Code)
}

func TestEveryPublishedSiteCodeIsAccepted(t *testing.T) {
	t.Parallel()
	srv := start(t)
	codes := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 21, 201, 202, 203, 204, 205, 206, 207, 208, 601, 701, 705, 301, 303, 304, 305, 306, 307, 309, 312}
	for _, d := range codes {
		r := post(t, srv, "CategoryTree", d, `{}`)
		assert.Equal(t, http.StatusOK, r.status, d)
		assert.NotEmpty(t, r.raw, d)
	}
	for _, c := range srv.Exchanges() {
		assert.NotZero(t, c.Domain, "every call was served for its site")
	}
}

func TestBodyKeysAreCaseInsensitive(t *testing.T) {
	t.Parallel()
	srv := start(t)
	for _, key := range []string{"asin", "ASIN", "Asin"} {
		list := post(t, srv, "ProductRequest", 1, `{"`+key+`":"`+asin+`","trend":2}`).objects(t)
		require.Len(t, list, 1, key)
		assert.Equal(t, asin, list[0]["ASIN"], key)
		assert.NotContains(t, list[0], "PriceTrend", "trend matched Trend")
	}
	msg := post(t, srv, "ProductRequest", 1, `{"asin":"`+asin+`","ASIN":"`+asin+`"}`).failed(t, 10)
	assert.Contains(t, msg, "more than once")
	for _, body := range []string{`[1]`, `"x"`, `{"asin":`, `null`} {
		post(t, srv, "ProductRequest", 1, body).failed(t, 10)
	}
}

func TestCallsRecordWhatWasSentButNeverTheKey(t *testing.T) {
	t.Parallel()
	srv := start(t)
	send(t, srv, req{endpoint: "productRequest", query: "domain=1", body: `{"asin":"` + asin + `","domain":1}`, header: map[string]string{"User-Agent": "probe/1"}})
	calls := srv.Exchanges()
	require.Len(t, calls, 1)
	c := calls[0]
	assert.Equal(t, epoch, c.Time)
	assert.Equal(t, "POST", c.Method)
	assert.Equal(t, "productRequest", c.Endpoint)
	assert.Equal(t, "1", c.Query.Get("domain"))
	assert.Equal(t, "BasicAuth", c.AuthScheme)
	assert.True(t, c.Authorized)
	assert.Equal(t, []string{sdktest.Redacted}, c.Header.Values("Authorization"))
	assert.Equal(t, "probe/1", c.Header.Get("User-Agent"))
	assert.Equal(t, "application/json;charset=UTF-8", c.Header.Get("Content-Type"))
	assert.JSONEq(t, `"`+asin+`"`, string(c.Params["asin"]))
	assert.JSONEq(t, `1`, string(c.Params["domain"]))
	assert.Equal(t, 1, c.Domain)
	assert.Equal(t, 200, c.Status)
	assert.Equal(t, 0, c.Code)
	assert.Equal(t, 1, c.Consumed)
	dump, err := json.Marshal(calls)
	require.NoError(t, err)
	assert.NotContains(t, string(dump), productdatatest.DefaultKey)
	assert.Equal(t, 1, srv.RequestCount(http.MethodPost, "/api/productRequest"))
	assert.Equal(t, 0, srv.RequestCount(http.MethodPost, "/api/CategoryTree"))
	assert.Equal(t, 1, srv.RequestCount("", ""))
}

func TestRequestLeftDecreasesByOnePerExecutedCall(t *testing.T) {
	t.Parallel()
	srv := start(t, productdatatest.WithRequests(5))
	for want := 4; want >= 0; want-- {
		left, consumed := post(t, srv, "KeywordRequest", 1, `{"Keyword":"power bank"}`).units(t)
		assert.Equal(t, want, left)
		assert.Equal(t, 1, consumed)
		assert.Equal(t, want, srv.RequestLeft())
	}
	r := post(t, srv, "KeywordRequest", 1, `{"Keyword":"power bank"}`)
	assert.Contains(t, r.failed(t, 694), "Insufficient request remaining")
	left, consumed := r.units(t)
	assert.Zero(t, left)
	assert.Zero(t, consumed)

	srv.SetRequestLeft(2)
	left, _ = post(t, srv, "KeywordRequest", 1, `{"Keyword":"power bank"}`).units(t)
	assert.Equal(t, 1, left)
}

func TestWithCostChargesMoreThanOneUnit(t *testing.T) {
	t.Parallel()
	srv := start(t, productdatatest.WithRequests(12), productdatatest.WithCost("categoryproducts", 5), productdatatest.WithCost("CategoryTree", 0))
	left, consumed := post(t, srv, "CategoryProducts", 1, `{"NodeId":"3743561"}`).units(t)
	assert.Equal(t, 7, left)
	assert.Equal(t, 5, consumed)
	left, consumed = post(t, srv, "CategoryTree", 1, `{}`).units(t)
	assert.Equal(t, 7, left)
	assert.Zero(t, consumed)
	post(t, srv, "CategoryProducts", 1, `{"NodeId":"3743561"}`)
	r := post(t, srv, "CategoryProducts", 1, `{"NodeId":"3743561"}`)
	r.failed(t, 694)
	assert.Equal(t, 2, srv.RequestLeft(), "a call dearer than the balance is refused whole")
}

func TestWhatConsumesUnits(t *testing.T) {
	t.Parallel()
	srv := start(t)
	for _, tc := range []struct {
		name, endpoint string
		domain         int
		body           string
		code, consumed int
	}{
		{"success", "ProductRequest", 1, `{"asin":"` + asin + `"}`, 0, 1},
		{"missing product", "ProductRequest", 1, `{"asin":"B0NONE0001"}`, 97, 1},
		{"no more data", "CategoryProducts", 1, `{"NodeId":"3743561","Page":9}`, 11, 1},
		{"parameter error", "ProductRequest", 1, `{}`, 10, 0},
		{"too many ASINs", "ProductRequest", 1, `{"asin":"` + strings.Repeat(asin+",", 10) + asin + `"}`, 15, 0},
		{"not on this site", "ProductRequest", 201, `{"asin":"` + asin + `"}`, 16, 0},
		{"older than two years", "ProductTrend", 1, `{"asin":"` + asin + `","dateRange":"20230101,20230201"}`, 23, 0},
		{"look-back not on this site", "CategoryRequest", 11, `{"NodeId":"3743561","QueryDate":"2026-01-10","QueryDays":5}`, 16, 0},
		{"status query finding nothing", "ProductRealtimeRequestStatusQuery", 1, `{"ASINs":["` + asin + `"]}`, 11, 1},
		{"review query before collection", "ProductReviewsQuery", 1, `{"ASIN":"` + asin + `"}`, 13, 1},
	} {
		before := srv.RequestLeft()
		r := post(t, srv, tc.endpoint, tc.domain, tc.body)
		assert.Equal(t, tc.code, r.code(t), tc.name)
		left, consumed := r.units(t)
		assert.Equal(t, tc.consumed, consumed, tc.name)
		assert.Equal(t, before-tc.consumed, left, tc.name)
	}
}

func TestPerMinuteLimitOnAFakeClock(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	srv := start(t, productdatatest.WithClock(clock), productdatatest.WithPerMinuteLimit(3))
	call := func() reply { return post(t, srv, "KeywordRequest", 1, `{"Keyword":"desk lamp"}`) }
	for range 3 {
		assert.Equal(t, 0, call().code(t))
		clock.Advance(10 * time.Second)
	}
	// Calls at 0, 10 and 20 s fill the window until 60 s.
	r := call()
	assert.Contains(t, r.failed(t, 501), "Per-minute request limit")
	left, consumed := r.units(t)
	assert.Equal(t, productdatatest.DefaultRequests-3, left, "a refused call executes nothing")
	assert.Zero(t, consumed)
	clock.Advance(29*time.Second + 999*time.Millisecond) // 59.999 s
	call().failed(t, 501)
	clock.Advance(time.Millisecond) // 60 s: the first call leaves the window
	assert.Equal(t, 0, call().code(t))
	call().failed(t, 501)
	clock.Advance(10 * time.Second) // 70 s: the call at 10 s leaves
	assert.Equal(t, 0, call().code(t))
	assert.Equal(t, productdatatest.DefaultRequests-5, srv.RequestLeft())
}

func TestDefaultPerMinuteLimitIs200(t *testing.T) {
	t.Parallel()
	srv, clock := startClock(t)
	for range 200 {
		require.Equal(t, 0, post(t, srv, "KeywordRequest", 1, `{"Keyword":"desk lamp"}`).code(t))
	}
	post(t, srv, "KeywordRequest", 1, `{"Keyword":"desk lamp"}`).failed(t, 501)
	clock.Advance(time.Minute)
	assert.Equal(t, 0, post(t, srv, "KeywordRequest", 1, `{"Keyword":"desk lamp"}`).code(t))
}

func TestIPWhitelist(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		addresses []string
		code      int
	}{
		"empty whitelist":          {nil, 400},
		"other address":            {[]string{"10.1.2.3"}, 400},
		"caller's address on list": {[]string{"10.1.2.3", "127.0.0.1"}, 0},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := start(t, productdatatest.WithIPWhitelist(tc.addresses...))
			r := post(t, srv, "ProductRequest", 1, `{"asin":"`+asin+`"}`)
			if tc.code == 0 {
				assert.Equal(t, 0, r.code(t))
				return
			}
			assert.Contains(t, r.failed(t, tc.code), "whitelist")
			_, consumed := r.units(t)
			assert.Zero(t, consumed)
		})
	}
}

func TestExecutionFailures(t *testing.T) {
	t.Parallel()
	srv := start(t, productdatatest.WithFailEvery(3))
	var codes []int
	for range 6 {
		codes = append(codes, post(t, srv, "KeywordRequest", 1, `{"Keyword":"tent"}`).code(t))
	}
	assert.Equal(t, []int{0, 0, -1, 0, 0, -1}, codes)
	assert.Equal(t, productdatatest.DefaultRequests-4, srv.RequestLeft(), "failed calls consume nothing")

	srv.InjectFaults(sdktest.Fault{Status: http.StatusOK, Code: "-1", Times: 2})
	r := post(t, srv, "KeywordRequest", 1, `{"Keyword":"tent"}`)
	assert.Contains(t, r.failed(t, -1), "Execution failed", "the fake's message for the code")
	post(t, srv, "KeywordRequest", 1, `{"Keyword":"tent"}`).failed(t, -1)
	assert.Equal(t, 0, post(t, srv, "KeywordRequest", 1, `{"Keyword":"tent"}`).code(t), "two faults, then the endpoint")
	assert.Equal(t, productdatatest.DefaultRequests-5, srv.RequestLeft(), "injected failures consume nothing")

	srv.InjectFaults(sdktest.Fault{Path: "/api/ProductRequest", Status: http.StatusOK, Code: "11", Message: "nothing here"})
	assert.Equal(t, 0, post(t, srv, "KeywordRequest", 1, `{"Keyword":"tent"}`).code(t), "the fault waits for its path")
	r = post(t, srv, "ProductRequest", 1, `{"asin":"`+asin+`"}`)
	assert.Equal(t, "nothing here", r.failed(t, 11))
	assert.JSONEq(t, "null", string(r.env["Data"]))
}

func TestHTTPFaultsAndDroppedConnections(t *testing.T) {
	t.Parallel()
	srv := start(t)
	srv.InjectFaults(sdktest.Fault{Status: http.StatusBadGateway, Times: 2})
	for range 2 {
		r := post(t, srv, "ProductRequest", 1, `{"asin":"`+asin+`"}`)
		assert.Equal(t, http.StatusBadGateway, r.status)
		assert.Equal(t, "Bad Gateway", string(r.raw))
	}
	srv.InjectFaults(sdktest.Fault{Drop: true})
	hr, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/api/ProductRequest?domain=1", strings.NewReader(`{"asin":"`+asin+`"}`))
	require.NoError(t, err)
	hr.Header.Set("Authorization", "BasicAuth "+productdatatest.DefaultKey)
	hr.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(hr)
	if err == nil {
		resp.Body.Close()
	}
	require.Error(t, err, "the connection closes without an answer")
	assert.Equal(t, 0, post(t, srv, "ProductRequest", 1, `{"asin":"`+asin+`"}`).code(t))
	assert.Equal(t, productdatatest.DefaultRequests-1, srv.RequestLeft())
	calls := srv.Exchanges()
	require.Len(t, calls, 4)
	assert.Equal(t, []int{502, 502, 0, 200}, []int{calls[0].Status, calls[1].Status, calls[2].Status, calls[3].Status})
	assert.Equal(t, "ProductRequest", calls[0].Endpoint, "a faulted request keeps its endpoint")

	srv.InjectFaults(sdktest.Fault{Status: http.StatusUnauthorized, Code: "401", RetryAfter: time.Second})
	r := post(t, srv, "ProductRequest", 1, `{"asin":"`+asin+`"}`)
	assert.Equal(t, http.StatusUnauthorized, r.status)
	assert.Equal(t, 401, r.code(t), "a code with another status answers the envelope with that status")
	assert.Equal(t, "Endpoint not open: check the endpoint name and whether your plan includes it", r.message(t))
	assert.Equal(t, "1", r.header.Get("Retry-After"))
	left, consumed := r.units(t)
	assert.Equal(t, productdatatest.DefaultRequests-1, left)
	assert.Zero(t, consumed)
}

func TestConcurrentCallsAreCountedExactly(t *testing.T) {
	t.Parallel()
	srv := start(t, productdatatest.WithPerMinuteLimit(0), productdatatest.WithRequests(1000))
	// codeOf sends one call from a goroutine, where the test may not stop.
	codeOf := func(endpoint, body string) (int, error) {
		hr, err := http.NewRequest(http.MethodPost, srv.URL+"/api/"+endpoint+"?domain=1", strings.NewReader(body))
		if err != nil {
			return 0, err
		}
		hr.Header.Set("Authorization", "BasicAuth "+productdatatest.DefaultKey)
		hr.Header.Set("Content-Type", "application/json")
		resp, err := srv.Client().Do(hr)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		var env struct{ Code int }
		return env.Code, json.NewDecoder(resp.Body).Decode(&env)
	}
	var wg sync.WaitGroup
	for i := range 40 {
		endpoint, body := "ProductRequest", `{"asin":"`+asin+`"}`
		if i%2 == 1 {
			endpoint, body = "ProductRealtimeRequest", `{"ASIN":"B0FAILTASK","Update":1}`
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				code, err := codeOf(endpoint, body)
				assert.NoError(t, err)
				assert.Contains(t, []int{0, 99}, code)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 800, srv.RequestLeft())
	assert.Equal(t, 200, srv.RequestCount("", ""))
}

func TestRequestsAreTheRecordsOfTheExchanges(t *testing.T) {
	t.Parallel()
	srv := start(t)
	post(t, srv, "KeywordRequest", 1, `{"Keyword":"desk lamp"}`)
	exchanges := srv.Exchanges()
	require.Len(t, exchanges, 1)
	assert.Equal(t, []sdktest.Request{exchanges[0].Request}, srv.Requests())
	assert.Equal(t, "KeywordRequest", exchanges[0].Endpoint)
	assert.Equal(t, sdktest.Redacted, srv.Requests()[0].Header.Get("Authorization"))
}
