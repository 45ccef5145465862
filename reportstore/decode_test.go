package reportstore

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentapis/sdk/x402/usdc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture reads a file of testdata.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func TestParseCatalogShapes(t *testing.T) {
	t.Parallel()

	t.Run("array", func(t *testing.T) {
		t.Parallel()
		ps, err := parseCatalog(fixture(t, "catalog_array.json"))
		require.NoError(t, err)
		require.Len(t, ps, 3)
		assert.Equal(t, "macro-gdp", ps[0].ID)
		require.NotNil(t, ps[0].Price)
		assert.Equal(t, int64(130000), ps[0].Price.Int64())
		assert.Equal(t, "0.13", ps[0].PriceText)
		assert.Equal(t, intRef(3), ps[0].Economies, "a list of economies is counted")
		assert.Equal(t, KindCatalog, ps[0].Kind)

		assert.Equal(t, "bundle-all", ps[1].ID)
		assert.Equal(t, "All reports", ps[1].Title)
		assert.Equal(t, KindBundle, ps[1].Kind)
		assert.Equal(t, intRef(20), ps[1].Economies, "a numeric string")
		assert.Equal(t, int64(950000), ps[1].Price.Int64())

		assert.Equal(t, "macro-fx", ps[2].ID)
		assert.Nil(t, ps[2].Price, "null price is absent, not $0")
		assert.Empty(t, ps[2].PriceText)
		assert.Nil(t, ps[2].Economies, "not given, so absent rather than 0")
		assert.Contains(t, string(ps[2].Raw), `"dataPoints": 220`)
	})

	t.Run("nested", func(t *testing.T) {
		t.Parallel()
		ps, err := parseCatalog(fixture(t, "catalog_nested.json"))
		require.NoError(t, err)
		require.Len(t, ps, 2)
		assert.Equal(t, "Inflation", ps[0].Title)
		assert.Equal(t, "$0.13", usdc.Format(ps[0].Price))
		assert.Equal(t, intRef(20), ps[0].Economies)
		assert.Equal(t, "/report/macro-inflation", ps[0].Path)
		assert.Equal(t, KindBespoke, ps[1].Kind, "inferred from the custom id")
		assert.Nil(t, ps[1].Economies)
		assert.Nil(t, ps[1].Price)
		assert.Equal(t, "$0.20-$0.95", ps[1].PriceText)
	})

	t.Run("split lists", func(t *testing.T) {
		t.Parallel()
		ps, err := parseCatalog(fixture(t, "catalog_split.json"))
		require.NoError(t, err)
		require.Len(t, ps, 3)
		assert.Equal(t, KindCatalog, ps[0].Kind)
		assert.Equal(t, "$0.25", usdc.Format(ps[0].Price), "price object")
		assert.Equal(t, intRef(10), ps[0].Economies)
		assert.Equal(t, KindBespoke, ps[1].Kind, "from the bespoke list")
		assert.Nil(t, ps[1].Price)
		assert.Equal(t, "from $0.20", ps[1].PriceText)
		assert.Equal(t, KindBundle, ps[2].Kind, "from the bundles list")
		assert.Equal(t, "$0.54", usdc.Format(ps[2].Price))
	})

	t.Run("economies absent, null, unreadable or zero", func(t *testing.T) {
		t.Parallel()
		ps, err := parseCatalog([]byte(`[
			{"id": "a"},
			{"id": "b", "economies": null},
			{"id": "c", "economies": "many"},
			{"id": "d", "economies": 0},
			{"id": "e", "economies": []},
			{"id": "f", "countryCount": "7"}
		]`))
		require.NoError(t, err)
		require.Len(t, ps, 6)
		assert.Nil(t, ps[0].Economies, "absent")
		assert.Nil(t, ps[1].Economies, "null")
		assert.Nil(t, ps[2].Economies, "not a number or a list")
		assert.Equal(t, intRef(0), ps[3].Economies, "a stated 0 is kept")
		assert.Equal(t, intRef(0), ps[4].Economies, "an empty list counts 0")
		assert.Equal(t, intRef(7), ps[5].Economies)
	})

	t.Run("empty list is empty, not an error", func(t *testing.T) {
		t.Parallel()
		ps, err := parseCatalog([]byte(`{"products": []}`))
		require.NoError(t, err)
		assert.NotNil(t, ps)
		assert.Empty(t, ps)
	})

	for _, bad := range []string{`{"message": "welcome", "count": 80}`, `"catalog"`, `[1, 2]`, `{"data": {"x": 1}}`} {
		_, err := parseCatalog([]byte(bad))
		assert.Error(t, err, bad)
	}
	_, err := parseCatalog(fixture(t, "catalog_no_list.json"))
	assert.ErrorContains(t, err, "no list of products")
}

func TestParsePreviewShapes(t *testing.T) {
	t.Parallel()

	p, err := parsePreview(fixture(t, "preview_rows.json"))
	require.NoError(t, err)
	assert.Equal(t, intRef(2024), p.Year)
	require.Len(t, p.Rows, 3)
	us, cn, jp := p.Rows[0], p.Rows[1], p.Rows[2]
	assert.Equal(t, "US", us.Economy)
	assert.Equal(t, "United States", us.Name)
	assert.Equal(t, intRef(2024), us.Year, "the preview's year")
	require.NotNil(t, us.Value)
	assert.Equal(t, 27360935000000.0, *us.Value)
	assert.Equal(t, "CN", cn.Economy)
	assert.Equal(t, intRef(2023), cn.Year, "the row's own year")
	assert.Nil(t, cn.Value, `".." is a missing value`)
	assert.Equal(t, "JP", jp.Economy)
	require.Len(t, jp.Values, 2)
	require.NotNil(t, jp.Values["NE.TRD.GNFS.ZS"])
	assert.Equal(t, 45.1, *jp.Values["NE.TRD.GNFS.ZS"])
	assert.Nil(t, jp.Values["TG.VAL.TOTL.GD.ZS"])
	assert.Contains(t, string(p.Raw), `"fields"`)
	// Each row has its own year: changing one changes neither the preview nor another row.
	require.NotNil(t, jp.Year)
	*us.Year = 1999
	assert.Equal(t, intRef(2024), p.Year)
	assert.Equal(t, intRef(2024), jp.Year)

	m, err := parsePreview(fixture(t, "preview_map.json"))
	require.NoError(t, err)
	require.Len(t, m.Rows, 3)
	assert.Equal(t, "CN", m.Rows[0].Economy)
	assert.Nil(t, m.Rows[0].Value)
	assert.Equal(t, "jp", m.Rows[1].Economy)
	assert.Equal(t, "Japan", m.Rows[1].Name)
	require.NotNil(t, m.Rows[1].Value)
	assert.Equal(t, 3.0, *m.Rows[1].Value)
	assert.Equal(t, "us", m.Rows[2].Economy)
	assert.Equal(t, intRef(2025), m.Rows[2].Year, "a bare value has the preview's year")
	assert.Equal(t, intRef(2025), m.Rows[1].Year, "a row object without a year has the preview's")

	a, err := parsePreview(fixture(t, "preview_array.json"))
	require.NoError(t, err)
	require.Len(t, a.Rows, 1)
	assert.Equal(t, "SP.POP.TOTL", a.Rows[0].Indicator)
	assert.Nil(t, a.Year, "an array body gives no preview year")
	assert.Equal(t, intRef(2025), a.Rows[0].Year, "the row's own year")

	n, err := parsePreview([]byte(`{"rows": [{"economy": "US", "value": 1}, {"economy": "CN", "year": null}, {"economy": "JP", "year": "later"}]}`))
	require.NoError(t, err)
	assert.Nil(t, n.Year, "absent rather than 0")
	require.Len(t, n.Rows, 3)
	for _, r := range n.Rows {
		assert.Nil(t, r.Year, "%s: neither the row nor the preview says", r.Economy)
	}
	nm, err := parsePreview([]byte(`{"data": {"US": 1.5}}`))
	require.NoError(t, err)
	require.Len(t, nm.Rows, 1)
	assert.Nil(t, nm.Year)
	assert.Nil(t, nm.Rows[0].Year)

	for _, bad := range []string{`{"title": "x"}`, `3`, `[3]`} {
		_, err := parsePreview([]byte(bad))
		assert.Error(t, err, bad)
	}
}

func TestParseStartShapes(t *testing.T) {
	t.Parallel()
	s, err := parseStart(fixture(t, "start_string.json"))
	require.NoError(t, err)
	assert.Equal(t, "macro-gdp", s.ReportID)
	assert.Equal(t, "$0.13", usdc.Format(s.Price))
	assert.Equal(t, "curl -i https://store.example/report/macro-gdp", s.Code)
	assert.Nil(t, s.Snippets)

	o, err := parseStart(fixture(t, "start_object.json"))
	require.NoError(t, err)
	assert.Equal(t, "macro-inflation", o.ReportID)
	assert.Equal(t, "Inflation", o.Title)
	assert.Equal(t, "/report/macro-inflation?format=csv", o.Path)
	assert.Equal(t, "$0.13", usdc.Format(o.Price))
	assert.Equal(t, map[string]string{"python": "import requests", "node": "fetch(...)"}, o.Snippets)
	assert.Equal(t, "fetch(...)", o.Code, "no Go snippet: the first language alphabetically")

	_, err = parseStart([]byte(`{"hello": "world"}`))
	assert.Error(t, err)
	_, err = parseStart([]byte(`[]`))
	assert.Error(t, err)
}

func TestParsePayload(t *testing.T) {
	t.Parallel()
	p, err := parsePayload(fixture(t, "payload.json"))
	require.NoError(t, err)
	assert.Equal(t, "2", p.SchemaVersion)
	assert.Equal(t, "macro-life-expectancy", p.ID)
	assert.Equal(t, "Life expectancy", p.Title)
	assert.Equal(t, "2015:2025", p.Period)
	assert.Equal(t, []string{"US", "CN"}, p.Economies)
	require.Len(t, p.Indicators, 2)
	assert.Equal(t, "SP.DYN.LE00.IN", p.Indicators[0].Code)
	assert.Equal(t, Indicator{Code: "SH.DYN.MORT", Name: "Under-5 mortality", Unit: "per 1,000", Raw: p.Indicators[1].Raw}, p.Indicators[1])
	require.Len(t, p.Records, 4)
	assert.Equal(t, "US", p.Records[0].Economy)
	assert.Equal(t, 2015, p.Records[0].Year)
	require.NotNil(t, p.Records[0].Value)
	assert.Equal(t, 78.7, *p.Records[0].Value)
	assert.Nil(t, p.Records[1].Value, "null")
	require.NotNil(t, p.Records[2].Value)
	assert.Equal(t, 9.1, *p.Records[2].Value, "numeric string")
	assert.Nil(t, p.Records[3].Value, "absent")
	assert.Equal(t, &Source{Name: "World Bank Open Data", License: "CC BY 4.0", URL: "https://data.worldbank.org"}, p.Source)
	assert.Contains(t, string(p.Raw), `"analytics"`)

	for _, bad := range []string{
		`[]`,
		`{"data": [{"economy": "US", "year": 2015, "indicator": "X", "value": "high"}]}`,
		`{"data": [{"economy": "US", "year": 2015, "indicator": "X", "value": {"v": 1}}]}`,
		`{"data": [{"economy": "US", "indicator": "X", "value": 1}]}`,
		`{"data": [7]}`,
	} {
		_, err := parsePayload([]byte(bad))
		assert.Error(t, err, bad)
	}
}

func TestReportJSONNeedsTheJSONFormat(t *testing.T) {
	t.Parallel()
	r := &Report{Format: FormatCSV, Body: []byte(`{}`)}
	_, err := r.JSON()
	require.Error(t, err)
	r = &Report{Format: FormatJSON, Body: []byte(`{"schemaVersion": "1.0"}`)}
	p, err := r.JSON()
	require.NoError(t, err)
	assert.Equal(t, "1.0", p.SchemaVersion)
	assert.Empty(t, p.Records)
}

func TestCatalogReportWithoutIDIsRefusedUnlessItsPathNamesIt(t *testing.T) {
	t.Parallel()
	products, err := parseCatalog(json.RawMessage(`{"reports": [{"title": "GDP", "path": "/report/macro-gdp"}, {"id": "custom", "path": "/report/custom"}]}`))
	require.NoError(t, err)
	assert.Equal(t, "macro-gdp", products[0].ID, "the path /report/<id> gives the id")
	_, err = parseCatalog(json.RawMessage(`{"reports": [{"title": "GDP", "price": "$0.13"}]}`))
	require.Error(t, err, "a report the description gives an id cannot come without one")
	assert.Contains(t, err.Error(), `catalog entry 0: field "id" is missing`)
	products, err = parseCatalog(json.RawMessage(`{"reports": [], "bundles": [{"title": "Everything", "price": "$0.95"}]}`))
	require.NoError(t, err, "bespoke and bundle products are not described: no id is needed")
	assert.Equal(t, KindBundle, products[0].Kind)
}

func TestFieldLookupPrefersTheExactKeyThenTheFirstInByteOrder(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"year": 1, "Year": 2}`:               `1`,
		`{"Year": 1, "year": 2}`:               `2`,
		`{"Year": 1, "YEAR": 2}`:               `2`,
		`{"YEAR": 2, "Year": 1}`:               `2`,
		`{"year": 1, "year": 3}`:               `3`,
		`{"latest_year": 1, "Latest-Year": 2}`: `2`,
		`{"y\u0065ar": 4, "Year": 5}`:          `4`,
		`{"years": 1}`:                         ``,
	} {
		f, ok := objectFields([]byte(body))
		require.True(t, ok, body)
		norm := "year"
		if body[2] == 'l' {
			norm = "latestyear"
		}
		assert.Equal(t, want, string(f[norm]), body)
	}
}

func TestPreviewRowsKeepTheirOwnBytes(t *testing.T) {
	t.Parallel()
	body := []byte(` {"year": 2024, "rows": [ {"economy":"US","value":"1.5"} , {"economy":"CN","value":null,"year":"2023"} ]} `)
	p, err := parsePreview(body)
	require.NoError(t, err)
	assert.Equal(t, string(bytes.TrimSpace(body)), string(p.Raw))
	require.Len(t, p.Rows, 2)
	assert.Equal(t, `{"economy":"US","value":"1.5"}`, string(p.Rows[0].Raw))
	assert.Equal(t, `{"economy":"CN","value":null,"year":"2023"}`, string(p.Rows[1].Raw))
	assert.Equal(t, 1.5, *p.Rows[0].Value)
	assert.Nil(t, p.Rows[1].Value)
	assert.Equal(t, 2024, *p.Rows[0].Year)
	assert.Equal(t, 2023, *p.Rows[1].Year)
	// A row's Raw cannot grow into the next row's bytes.
	_ = append(p.Rows[0].Raw, 'x')
	assert.Equal(t, `{"economy":"CN","value":null,"year":"2023"}`, string(p.Rows[1].Raw))
	assert.Equal(t, string(bytes.TrimSpace(body)), string(p.Raw))
}

func TestParsersRefuseBodiesThatAreNotJSON(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"rows": [{"economy": tru}]}`, `{"rows": []} x`, `[1,]`, "", `{"a":"\x01"}`} {
		_, err := parsePreview([]byte(body))
		var syntax *json.SyntaxError
		assert.ErrorAs(t, err, &syntax, "preview %q", body)
		_, err = parseCatalog([]byte(body))
		assert.ErrorAs(t, err, &syntax, "catalog %q", body)
		_, err = parseStart([]byte(body))
		assert.ErrorAs(t, err, &syntax, "start %q", body)
		_, err = parsePayload([]byte(body))
		assert.ErrorAs(t, err, &syntax, "payload %q", body)
	}
}
