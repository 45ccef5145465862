package productdata_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/logbuf"
	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/productdata"
)

// assertNoSecret fails when err, rendered in any of the ways a caller may print it, holds one
// of keys in any letter case; it also hands err to the suite's scanner.
func assertNoSecret(t *testing.T, err error, keys ...string) {
	t.Helper()
	require.Error(t, err)
	scan.Record(err)
	for _, text := range []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
		for _, key := range keys {
			assert.NotContains(t, strings.ToLower(text), strings.ToLower(key), "the key leaked into an error rendering of %T", err)
		}
	}
}

// echoingAPI is a server that repeats the key it receives everywhere it can: in messages of
// business codes, in HTTP error bodies and headers, in the fields of successful answers and in
// the headers of successful answers. What it does depends on the endpoint and the ASIN.
func echoingAPI(t *testing.T) *api {
	return newAPI(t, nil, func(r received) reply {
		auth := r.Header.Get("Authorization")
		key := strings.TrimPrefix(auth, productdata.AuthScheme+" ")
		upper := strings.ToUpper(key)
		echo := http.Header{"X-Echo-Authorization": {auth}, "X-Debug": {"key=" + upper}}
		envelope := func(code any, message string, data any) string {
			b, _ := json.Marshal(map[string]any{"Code": code, "Message": message, "Data": data, "RequestLeft": 10, "RequestConsumed": 1})
			return string(b)
		}
		asin, _ := r.Body["asin"].(string)
		if asin == "" {
			asin, _ = r.Body["ASIN"].(string)
		}
		switch r.Endpoint {
		case "ProductReviewsCollection":
			return reply{header: echo, body: envelope(0, "", key)} // the task id echoes the key
		case "ProductReviewsCollectionStatusQuery":
			return reply{header: echo, body: envelope(501, "per-minute limit for "+auth, nil)}
		case "ProductRealtimeRequest":
			return reply{header: echo, body: envelope(98, "fetch failed for account "+key, nil)}
		}
		switch asin {
		case "B0AUTH0401":
			return reply{status: http.StatusUnauthorized, header: http.Header{"Www-Authenticate": {auth}},
				body: envelope(401, "invalid Account-SK: "+auth, nil)}
		case "B0CODE0401":
			return reply{header: echo, body: envelope(401, "Endpoint not open: invalid Account-SK "+key, nil)}
		case "B0LOWER401":
			b, _ := json.Marshal(map[string]any{"code": 401, "message": "no such key " + strings.ToLower(key)})
			return reply{header: echo, body: string(b)}
		case "B0SERVER50":
			return reply{status: http.StatusServiceUnavailable, header: echo, body: "upstream failed for Authorization: " + auth}
		case "B0BADCODE0":
			return reply{header: echo, body: envelope(key, "", nil)}
		case "B0BADDATA0":
			return reply{header: echo, body: envelope(0, "", []any{map[string]any{"ASIN": key, "Title": auth}})}
		case "B0NOTJSON0":
			return reply{header: echo, body: "<html>key " + key + "</html>"}
		case "B0MISSING0":
			return reply{header: echo, body: envelope(0, "", []any{})}
		}
		return reply{status: http.StatusTeapot, body: "unexpected " + r.Endpoint}
	})
}

func TestKeyNeverReachesURLsLogsOrErrors(t *testing.T) {
	t.Parallel()
	srv := echoingAPI(t)
	logs := &logbuf.Buffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	retry := sdk.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxRetryAfter: time.Millisecond}
	c := newClient(t, srv, productdata.WithLogger(logger), productdata.WithRetry(retry))
	ctx := t.Context()

	for _, tc := range []struct {
		asin  string
		check func(t *testing.T, err error)
	}{
		{"B0AUTH0401", func(t *testing.T, err error) {
			require.ErrorIs(t, err, productdata.ErrUnauthorized)
			assert.Equal(t, http.StatusUnauthorized, testkit.APIError(t, err).StatusCode)
		}},
		{"B0CODE0401", func(t *testing.T, err error) { require.ErrorIs(t, err, productdata.ErrUnauthorized) }},
		{"B0LOWER401", func(t *testing.T, err error) { require.ErrorIs(t, err, productdata.ErrUnauthorized) }},
		{"B0SERVER50", func(t *testing.T, err error) {
			ae := testkit.APIError(t, err)
			assert.Equal(t, http.StatusServiceUnavailable, ae.StatusCode)
			assert.Equal(t, 2, ae.Attempts)
		}},
		{"B0BADCODE0", func(t *testing.T, err error) { testkit.DecodeError(t, err) }},
		{"B0BADDATA0", func(t *testing.T, err error) { testkit.DecodeError(t, err) }},
		{"B0NOTJSON0", func(t *testing.T, err error) { testkit.DecodeError(t, err) }},
		{"B0MISSING0", func(t *testing.T, err error) {
			var nf *productdata.NotFoundError
			require.ErrorAs(t, err, &nf)
			assert.Equal(t, []string{"B0MISSING0"}, nf.Missing)
		}},
	} {
		_, err := c.Product(ctx, productdata.AmazonUS, tc.asin)
		tc.check(t, err)
		assertNoSecret(t, err, testKey)
	}

	// A review collection whose task id and status messages echo the key: the wait ends
	// with an *sdk.WaitError holding the last status error.
	_, err := newClient(t, srv, productdata.WithLogger(logger), productdata.WithRetry(retry),
		productdata.WithWait(sdk.WaitPolicy{MinDelay: time.Millisecond, MaxAttempts: 2})).
		CollectReviews(ctx, productdata.AmazonUS, &productdata.CollectReviewsParams{ASIN: "B0CVM8TXHP"})
	testkit.As[*sdk.WaitError](t, err)
	require.ErrorIs(t, err, productdata.ErrRateLimited)
	assertNoSecret(t, err, testKey)

	_, err = c.RefreshProduct(ctx, productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP"})
	require.ErrorIs(t, err, productdata.ErrTaskFailed)
	assertNoSecret(t, err, testKey)

	// A key set later is kept out of errors too, and so is the one it replaced.
	const newKey = "n3wk3yn3wk3yn3wk3yn3wk3yn3wk3y00"
	require.NoError(t, c.SetAccountKey(newKey))
	_, err = c.Product(ctx, productdata.AmazonUS, "B0CODE0401")
	require.ErrorIs(t, err, productdata.ErrUnauthorized)
	assertNoSecret(t, err, testKey, newKey)

	// The key travelled in the Authorization header only: never in a URL, never in the body.
	reqs := srv.requests()
	require.Len(t, reqs, 14, "8 lookups (one retried), a collection and its status query, a refresh, a lookup")
	for _, r := range reqs {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), productdata.AuthScheme+" ")
		require.Contains(t, []string{testKey, newKey}, key)
		assert.NotContains(t, strings.ToLower(r.Path+"?"+r.Query.Encode()), strings.ToLower(key))
		body, _ := json.Marshal(r.Body)
		assert.NotContains(t, string(body), key)
	}
	text := logs.String()
	assert.Contains(t, text, `"path":"/api/ProductRequest"`, "the client logged its requests")
	for _, key := range []string{testKey, newKey} {
		assert.NotContains(t, strings.ToLower(text), strings.ToLower(key))
	}
}

func TestKeyNeverReachesValidationErrors(t *testing.T) {
	t.Parallel()
	const key = "bad key with spaces 0123456789abcdef"
	_, err := productdata.New(productdata.WithBaseURL("https://example.invalid"), productdata.WithAccountKey(key))
	var ve *sdk.ValidationError
	require.True(t, errors.As(err, &ve))
	assert.Equal(t, "account key", ve.Field)
	scan.Add(key)
	assertNoSecret(t, err, key)
}

// hostileKey is the account key of the hostile-server tests, with characters that URL
// escaping changes.
const hostileKey = "pdK+ey/9f8e7d6c5b4a3928=1716"

// echoForms are the forms the hostile server echoes the key in.
var echoForms = secrettest.EchoesOf(productdata.AuthScheme)

// TestKeyNeverShowsWhateverTheServerEchoes runs every place a hostile server can put the
// account key (a redirect's path, the redirect staying on the host or leaving for one that does
// not answer; a message, a body, a header and the request id, in every encoded form, in an
// error status, a business code, an undecodable answer and a lookup answered without the
// product) against every way a caller prints the error, and against the log.
func TestKeyNeverShowsWhateverTheServerEchoes(t *testing.T) {
	t.Parallel()
	dead := httptest.NewServer(http.NotFoundHandler())
	away := dead.URL
	dead.Close()
	srv := newAPI(t, nil, func(r received) reply {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), productdata.AuthScheme+" ")
		if strings.HasPrefix(r.Endpoint, "gone/") {
			return reply{status: http.StatusNotFound, body: `{"Code":404,"Message":"no such path"}`}
		}
		asins, _ := r.Body["asin"].(string)
		kind, n := strings.TrimRight(asins, "0123456789"), strings.TrimLeft(asins, "0ABCDEFGHIJKLMNOPQRSTUVWXYZ")
		i, _ := strconv.Atoi(n)
		e := echoForms[max(i-1, 0)].Encode(key)
		echo := func(status int, body string) reply {
			return reply{status: status, header: http.Header{"X-Request-Id": {e}, "X-Echo": {"seen " + e}},
				body: strings.ReplaceAll(body, "ECHO", e)}
		}
		switch kind {
		case "B0REDIRECT":
			return reply{status: http.StatusTemporaryRedirect, header: http.Header{"Location": {"/api/gone/" + url.PathEscape(key) + "/x?k=1"}}}
		case "B0AWAYAWAY":
			return reply{status: http.StatusTemporaryRedirect, header: http.Header{"Location": {away + "/k/" + url.PathEscape(key) + "?k=1"}}}
		case "B0STATUS":
			return echo(http.StatusConflict, `{"Code":409,"Message":"key ECHO refused"}`)
		case "B0CODEXX":
			return echo(http.StatusOK, `{"Code":401,"Message":"Endpoint not open for ECHO","Data":null}`)
		case "B0GARBLE":
			return echo(http.StatusOK, `{"Code":"ECHO","Data":null}`)
		case "B0NOTFND":
			return echo(http.StatusOK, `{"Code":0,"Message":"nothing for ECHO","Data":[],"RequestLeft":9}`)
		}
		return reply{status: http.StatusTeapot, body: "unexpected " + asins}
	})
	logs := &logbuf.Buffer{}
	c := newClient(t, srv, productdata.WithAccountKey(hostileKey),
		productdata.WithLogger(slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	ctx := t.Context()
	check := func(what string, err error) {
		t.Helper()
		testkit.NoSecretInError(t, scan, echoForms, what, []string{hostileKey}, err)
	}

	_, err := c.Product(ctx, productdata.AmazonUS, "B0REDIRECT")
	check("the key in a redirected path", err)
	assert.Equal(t, "/api/gone/[REDACTED]/x", testkit.APIError(t, err).Path)

	_, err = c.Product(ctx, productdata.AmazonUS, "B0AWAYAWAY")
	check("the key in the path of a redirect to a host that does not answer", err)
	testkit.NoSecretInURLError(t, echoForms, []string{hostileKey}, err, "k=1")

	for i, f := range echoForms {
		n := strconv.Itoa(i + 1)
		for _, asin := range []string{"B0STATUS0" + n, "B0CODEXX0" + n} {
			_, err = c.Product(ctx, productdata.AmazonUS, asin)
			check("the key echoed "+f.Name+" for "+asin, err)
			testkit.NoSecretInAPIError(t, echoForms, f, []string{hostileKey}, err)
		}
		_, err = c.Product(ctx, productdata.AmazonUS, "B0GARBLE0"+n)
		check("the key echoed "+f.Name+" in an undecodable answer", err)
		testkit.DecodeError(t, err)

		_, err = c.Product(ctx, productdata.AmazonUS, "B0NOTFND0"+n)
		check("the key echoed "+f.Name+" around a lookup without the product", err)
		var nf *productdata.NotFoundError
		require.ErrorAs(t, err, &nf, f.Name)
		echoForms.AssertNoTelltale(t, f.Name, []string{hostileKey}, nf.Response.RequestID, fmt.Sprint(nf.Response.Header))
	}

	assert.Contains(t, logs.String(), `"path":"/api/gone/[REDACTED]/x"`, "the logger saw the redirect")
	echoForms.AssertNoTelltale(t, "the log", []string{hostileKey}, logs.String())
}
