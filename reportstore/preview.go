package reportstore

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// Preview is the free latest-year cross-section of a report: one row per covered economy.
type Preview struct {
	// ID is the report id that was asked for.
	ID string
	// Year is the year of the cross-section; nil when the body does not say.
	Year *int
	// Rows holds one row per economy.
	Rows []PreviewRow
	// Raw is the body as the store sent it, with every field this type does not name (such as
	// a field dictionary).
	Raw json.RawMessage
	// Response describes the HTTP answer.
	Response sdk.Response `json:"-"`
}

// PreviewRow is one economy of a Preview.
type PreviewRow struct {
	// Economy is the economy's code, such as "US".
	Economy string
	// Name is the economy's name; "" when the row does not give it.
	Name string
	// Year is the year of the value: the row's own, else the preview's; nil when neither
	// says.
	Year *int
	// Indicator is the indicator code of Value; "" when the row does not give it.
	Indicator string
	// Value is the row's value; nil when it is absent (missing data is not 0).
	Value *float64
	// Values holds the values of a report with several indicators, by indicator code, when the
	// row gives them as an object; a nil entry is a missing value.
	Values map[string]*float64
	// Raw is the row as the store sent it.
	Raw json.RawMessage
}

// Preview returns the latest-year cross-section of report id for every covered economy. The
// call is free and needs no wallet. An empty id, or one with "/", "?" or "#", is an
// *sdk.ValidationError; an id the store does not know is an *sdk.APIError matching
// ErrNotFound.
//
// The body is read leniently: a JSON array of rows, or an object holding them under a key
// such as "rows", "data", "economies" or "values", or an object mapping economy codes to
// values. A body with none of these is an *sdk.DecodeError.
func (c *Client) Preview(ctx context.Context, id string) (*Preview, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	p, resp, err := getFree(ctx, c, httpcore.Path("preview", id), parsePreview)
	if err != nil {
		return nil, err
	}
	p.ID, p.Response = id, resp
	return p, nil
}

// Preview row list keys, in normalised form.
var previewListKeys = []string{"rows", "data", "economies", "crosssection", "values", "items", "results", "countries", "records", "preview"}

// parsePreview reads a /preview body.
func parsePreview(body []byte) (*Preview, error) {
	f, items, err := decodeTop(body)
	if err != nil {
		return nil, err
	}
	p := &Preview{Raw: ownCopy(body), Rows: []PreviewRow{}}
	if items == nil {
		if f == nil {
			return nil, errors.New("body is neither a JSON array nor an object")
		}
		p.Year = f.optInt("year", "latestyear", "asof")
		found := false
		for _, k := range previewListKeys {
			if items, found = arrayItems(f.value(k)); found {
				break
			}
		}
		if !found {
			for _, k := range previewListKeys {
				if m, isObj := rawObject(f.value(k)); isObj {
					p.Rows = rowsFromMap(m, p.Year)
					return p, nil
				}
			}
			return nil, errors.New("no rows found (looked for an array, or one under " + strings.Join(previewListKeys, ", ") + ")")
		}
	}
	for i, raw := range items {
		row, err := parsePreviewRow(raw, p.Year)
		if err != nil {
			return nil, errors.New("preview row " + strconv.Itoa(i) + ": " + err.Error())
		}
		p.Rows = append(p.Rows, row)
	}
	return p, nil
}

// parsePreviewRow reads one row, whose year defaults to the preview's year (nil when the
// preview gives none); only a row that is not a JSON object is an error.
func parsePreviewRow(raw json.RawMessage, year *int) (PreviewRow, error) {
	f, ok := objectFields(raw)
	if !ok {
		return PreviewRow{}, errors.New("not a JSON object")
	}
	r := PreviewRow{
		Economy:   f.str("economy", "economycode", "countrycode", "country", "iso2", "iso3", "iso", "code"),
		Name:      f.str("name", "economyname", "countryname"),
		Indicator: f.str("indicator", "indicatorcode", "series"),
		Year:      f.optInt("year", "date"),
		Raw:       raw,
	}
	if r.Year == nil {
		r.Year = cloneInt(year)
	}
	if v, ok := f.get("value", "latestvalue", "latest"); ok {
		if n, ok := number(v); ok {
			r.Value = &n
		}
	}
	if values, ok := rawObject(f.value("values")); ok {
		r.Values = valueMap(values)
	}
	return r, nil
}

// rowsFromMap reads a preview given as an object of economy code to value (or to a row
// object), sorted by economy code.
func rowsFromMap(m map[string]json.RawMessage, year *int) []PreviewRow {
	codes := make([]string, 0, len(m))
	for k := range m {
		codes = append(codes, k)
	}
	sort.Strings(codes)
	rows := make([]PreviewRow, 0, len(codes))
	for _, code := range codes {
		raw := m[code]
		row, err := parsePreviewRow(raw, year)
		if err != nil {
			row = PreviewRow{Year: cloneInt(year), Raw: raw}
			if n, ok := number(raw); ok {
				row.Value = &n
			}
		}
		if row.Economy == "" {
			row.Economy = code
		}
		rows = append(rows, row)
	}
	return rows
}

// valueMap reads an object of indicator code to value; missing values are nil entries.
func valueMap(values map[string]json.RawMessage) map[string]*float64 {
	out := make(map[string]*float64, len(values))
	for code, raw := range values {
		var v *float64
		if n, ok := number(raw); ok {
			v = &n
		}
		out[code] = v
	}
	return out
}
