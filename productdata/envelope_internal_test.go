package productdata

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/testkit"
)

// gzipped returns s compressed with gzip.
func gzipped(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.Bytes()
}

func TestParseEnvelopeReadsEveryForm(t *testing.T) {
	t.Parallel()
	const plain = `{"RequestLeft":1052670,"RequestConsumed":5,"Code":0,"Message":null,"Data":{"ASIN":"B0CVM8TXHP"}}`
	b64 := base64.StdEncoding.EncodeToString(gzipped(t, plain))
	wrapped := base64.StdEncoding.EncodeToString(gzipped(t, `[{"ASIN":"B0CVM8TXHP"}]`))
	lines := b64[:20] + "\r\n" + b64[20:] // base64 with a line break
	cases := map[string]struct {
		body string
		data string
	}{
		"PascalCase":             {plain, `{"ASIN":"B0CVM8TXHP"}`},
		"camelCase":              {`{"requestLeft":7,"requestConsumed":5,"code":0,"message":"","data":{"ASIN":"B0CVM8TXHP"}}`, `{"ASIN":"B0CVM8TXHP"}`},
		"body base64 of gzip":    {b64, `{"ASIN":"B0CVM8TXHP"}`},
		"body base64 unpadded":   {strings.TrimRight(b64, "="), `{"ASIN":"B0CVM8TXHP"}`},
		"body base64 in lines":   {lines, `{"ASIN":"B0CVM8TXHP"}`},
		"body quoted base64":     {`"` + b64 + `"`, `{"ASIN":"B0CVM8TXHP"}`},
		"body bare gzip":         {string(gzipped(t, plain)), `{"ASIN":"B0CVM8TXHP"}`},
		"Data base64 of gzip":    {`{"RequestLeft":1052670,"RequestConsumed":5,"Code":0,"Message":null,"Data":"` + wrapped + `"}`, `[{"ASIN":"B0CVM8TXHP"}]`},
		"Data a plain string":    {`{"RequestLeft":1052670,"RequestConsumed":5,"Code":0,"Message":null,"Data":"123456"}`, `"123456"`},
		"Data null is present":   {`{"RequestLeft":1052670,"RequestConsumed":5,"Code":0,"Message":null,"Data":null}`, `null`},
		"surrounding whitespace": {"\n " + plain + "\n", `{"ASIN":"B0CVM8TXHP"}`},
	}
	for name, tc := range cases {
		p, err := parseEnvelope([]byte(tc.body), nil)
		require.NoError(t, err, name)
		assert.Equal(t, 0, p.code, name)
		assert.JSONEq(t, tc.data, string(p.data), name)
	}
	p, err := parseEnvelope([]byte(plain), nil)
	require.NoError(t, err)
	require.NotNil(t, p.units.Left)
	assert.Equal(t, 1052670, *p.units.Left)
	assert.Equal(t, 5, *p.units.Consumed)
}

func TestParseEnvelopeChecksCodeBeforeData(t *testing.T) {
	t.Parallel()
	// A failure with a Data that would not decode: the code is what counts.
	p, err := parseEnvelope([]byte(`{"code":11,"message":"No data available","data":"H4sI-not-base64"}`), nil)
	require.NoError(t, err)
	assert.Equal(t, 11, p.code)
	assert.Equal(t, "No data available", p.message)
	assert.Nil(t, p.data, "Data is not read when Code is not 0")

	p, err = parseEnvelope([]byte(`{"code":-1,"message":{"detail":"x"}}`), nil)
	require.NoError(t, err)
	assert.Equal(t, -1, p.code)
	assert.Equal(t, `{"detail":"x"}`, p.message, "a message that is not a string is kept as its JSON")
}

func TestParseEnvelopeRefusesWhatTheSpecRulesOut(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"no Code":              `{"Message":null,"Data":{}}`,
		"null Code":            `{"Code":null,"Data":{}}`,
		"Code as text":         `{"Code":"0","Data":{}}`,
		"Code not an integer":  `{"Code":0.5,"Data":{}}`,
		"success without Data": `{"RequestLeft":1,"Code":0,"Message":null}`,
		"not JSON":             `<html>busy</html>`,
		"empty":                ``,
		"broken JSON":          `{"Code":0,"Data":`,
		"bad base64 body":      `H4sI%%%%`,
		"base64 not gzip":      base64.StdEncoding.EncodeToString([]byte("H4sI plain text")),
		"Data bad gzip":        `{"Code":0,"Data":"H4sIAAAAAAAA"}`,
		"Data gzip not JSON":   `{"Code":0,"Data":"` + base64.StdEncoding.EncodeToString(gzipped(t, "not json")) + `"}`,
	}
	for name, body := range cases {
		_, err := parseEnvelope([]byte(body), nil)
		assert.Error(t, err, name)
	}
}

func TestInflateIsBounded(t *testing.T) {
	t.Parallel()
	// A stream of gzip members (gzip reads them as one) of 64 KiB of zeros each: a few
	// kilobytes that inflate to 1 MiB and one byte.
	member := gzipped(t, string(make([]byte, 64<<10)))
	bomb := append(bytes.Repeat(member, 16), gzipped(t, "x")...)
	require.Less(t, len(bomb), 2<<10)
	out, err := inflate(bomb, 1<<20+1)
	require.NoError(t, err)
	assert.Len(t, out, 1<<20+1, "exactly the limit is allowed")
	_, err = inflate(bomb, 1<<20)
	require.ErrorContains(t, err, "exceeds 1048576 bytes")
	assert.Equal(t, httpcore.MaxResponseBytes, maxInflated, "bodies inflate no larger than a body may be read")
}

func TestDecodeErrorBodyReadsTheEnvelope(t *testing.T) {
	t.Parallel()
	code, msg := decodeErrorBody([]byte(`{"Code":401,"Message":"Unauthorized"}`))
	assert.Equal(t, "401", code)
	assert.Equal(t, "Unauthorized", msg)
	code, msg = decodeErrorBody([]byte(`{"code":501,"message":"too many"}`))
	assert.Equal(t, "501", code)
	assert.Equal(t, "too many", msg)
	code, msg = decodeErrorBody([]byte(`{"error":"invalid_key","message":"bad key"}`))
	assert.Equal(t, "invalid_key", code, "other shapes fall back to the common decoder")
	assert.Equal(t, "bad key", msg)
	code, msg = decodeErrorBody([]byte(`Unauthorized`))
	assert.Empty(t, code)
	assert.Empty(t, msg)
}

// FuzzParseEnvelope feeds arbitrary bodies to the envelope parser: it never panics, a success
// always has Data that is valid JSON, and a failure code is never 0.
func FuzzParseEnvelope(f *testing.F) {
	f.Add([]byte(`{"RequestLeft":1,"RequestConsumed":1,"Code":0,"Message":null,"Data":{"ASIN":"B0CVM8TXHP"}}`))
	f.Add([]byte(`{"code":11,"message":"No data available"}`))
	f.Add([]byte(base64.StdEncoding.EncodeToString(gzipped(f, `{"Code":0,"Data":[1,2]}`))))
	f.Add([]byte(`{"Code":0,"Data":"` + base64.StdEncoding.EncodeToString(gzipped(f, `{"a":1}`)) + `"}`))
	f.Add([]byte(`{"Code":501,"Message":"per minute"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := parseEnvelope(body, nil)
		if err != nil {
			return
		}
		if p.code == 0 {
			if !json.Valid(p.data) {
				t.Fatalf("success with invalid Data %q", p.data)
			}
			return
		}
		if p.data != nil {
			t.Fatalf("Data read for code %d", p.code)
		}
		code, _ := decodeErrorBody(body)
		if code != strconv.Itoa(p.code) {
			t.Fatalf("error body decoder read code %q, envelope %d", code, p.code)
		}
	})
}

func TestDecodeTurnsCodesIntoFailures(t *testing.T) {
	t.Parallel()
	c := &Client{units: &unitCounter{}}
	err := c.decode([]byte(`{"RequestLeft":40,"RequestConsumed":0,"Code":501,"Message":"per minute"}`), nil)
	var f *httpcore.Failure
	require.True(t, errors.As(err, &f))
	assert.Equal(t, "501", f.Code)
	assert.True(t, f.Retry, "the per-minute limit is retried")
	assert.Equal(t, perMinuteWait, f.RetryAfter)

	for _, code := range []int{-1, 4, 10, 11, 20, 97, 99, 401, 500, 502, 694} {
		err := c.decode([]byte(`{"Code":`+strconv.Itoa(code)+`,"Message":"m"}`), nil)
		require.True(t, errors.As(err, &f), "code %d", code)
		assert.False(t, f.Retry, "code %d is not retried by the retry loop", code)
	}
	assert.Equal(t, RequestUnits{Sent: 0, Consumed: 0, Left: testkit.Ptr(40)}, c.units.snapshot(), "failures report units too")
}

// spy is a Data target that records what it was given.
type spy struct {
	got []string
	err error
}

// UnmarshalJSON records b.
func (s *spy) UnmarshalJSON(b []byte) error {
	s.got = append(s.got, string(b))
	return s.err
}

func TestDataIsDecodedOnceAndOnlyAfterACodeOfZero(t *testing.T) {
	t.Parallel()
	packed := base64.StdEncoding.EncodeToString(gzipped(t, `{"a":2}`))
	for body, want := range map[string][]string{
		`{"Code":0,"Data":{"a":1}}`:               {`{"a":1}`},
		`{"Data":{"a":1},"Code":0}`:               {`{"a":1}`},
		`{"Data":{"a":1},"Code":11}`:              nil,
		`{"Code":11,"Data":{"a":1}}`:              nil,
		`{"code":0,"data":"` + packed + `"}`:      {`{"a":2}`},
		`{"Data":"` + packed + `","Code":0}`:      {`{"a":2}`},
		`{"Code":0,"Data":null}`:                  {`null`},
		`{"RequestLeft":1,"Code":0,"Data":[1,2]}`: {`[1,2]`},
	} {
		var s spy
		_, err := parseEnvelope([]byte(body), &s)
		require.NoError(t, err, body)
		assert.Equal(t, want, s.got, body)
	}
	s := spy{err: errors.New("bad product")}
	_, err := parseEnvelope([]byte(`{"Code":0,"Data":{"a":1}}`), &s)
	require.ErrorContains(t, err, "bad product")
	_, err = parseEnvelope([]byte(`{"Data":{"a":1},"Code":0}`), &s)
	require.ErrorContains(t, err, "bad product")
}

// FuzzProductsAnswer feeds arbitrary bodies to the reading of a ProductRequest answer, the
// envelope and then its products: it never panics, and every product it accepts has its
// required fields and a Raw that is valid JSON and a copy of its own bytes, which a later
// change of the body does not reach.
func FuzzProductsAnswer(f *testing.F) {
	for _, name := range []string{"product.json", "products_multi.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "fixtures", name))
		if err != nil {
			f.Fatal(err)
		}
		var fx struct {
			Response struct {
				Body json.RawMessage `json:"body"`
			} `json:"response"`
		}
		if err := json.Unmarshal(b, &fx); err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(fx.Response.Body))
	}
	f.Add([]byte(`{"code":0,"data":[{"ASIN":"B0","SalesPrice":1,"ListingSalesVolumeOfMonth":2,"Photo":null}],"requestleft":"7"}`))
	f.Add([]byte(`{"Code":0,"Message":"ok","Data":[{"ASIN":"B0","SalesPrice":"1","ListingSalesVolumeOfMonth":-1,"Code":1,"code":2}],"RequestLeft":1,"RequestLeft":2}`))
	f.Add([]byte(`{"Code":0,"Data":{"ASIN":"B0","SalesPrice":1,"ListingSalesVolumeOfMonth":2,"Size":[1,"2",null],"BsrCategory":[["a","1","3"]]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var list productsData
		p, err := parseEnvelope(body, &list)
		if err != nil || p.code != 0 {
			return
		}
		raws := make([]string, len(list))
		for i, prod := range list {
			if prod.ASIN == "" || !json.Valid(prod.Raw) {
				t.Fatalf("product %d of %q accepted without an ASIN or with invalid Raw %q", i, body, prod.Raw)
			}
			raws[i] = string(prod.Raw)
		}
		for i := range body {
			body[i] = 'x'
		}
		for i, prod := range list {
			if string(prod.Raw) != raws[i] {
				t.Fatalf("product %d's Raw shares the body's bytes", i)
			}
		}
	})
}
