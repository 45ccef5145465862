package reportstore

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/jsonmember"
	"github.com/agentapis/sdk/x402/usdc"
)

// ProductKind says what sort of product a catalog entry is. It is an open type: a kind the
// store adds later is kept as it is sent.
type ProductKind string

// The product kinds of the store's API description.
const (
	// KindCatalog is a catalog report, fetched at /report/<id>.
	KindCatalog ProductKind = "catalog"
	// KindBespoke is a product assembled on request, such as
	// /report/custom?indicators=...&countries=...; fetch it with Client.Fetch.
	KindBespoke ProductKind = "bespoke"
	// KindBundle is a bundle of reports; fetch it with Client.Fetch.
	KindBundle ProductKind = "bundle"
)

// Product is one entry of the store's catalog.
type Product struct {
	// ID is the product id; for a catalog report, the last segment of /report/<id>.
	ID string
	// Title is the human-readable product name.
	Title string
	// Description says what the product measures.
	Description string
	// Price is the live price per fetch, in atomic USDC units (usdc.Format shows it); nil
	// when the entry gives none, or gives one that is not a single exact USDC amount (such as
	// a range "$0.20-$0.95"; see PriceText).
	Price *big.Int
	// PriceText is the entry's price as the store wrote it, "" when it gave none.
	PriceText string
	// Economies is the number of economies covered (10 or 20); nil when the entry does not
	// say. An entry that lists its economies gives their count, so an empty list is 0, not nil.
	Economies *int
	// Period is the period covered, such as "2015:2025"; "" when the entry does not say.
	Period string
	// Kind is catalog, bespoke or bundle: the entry's own kind or type field when it has one,
	// else the kind of the list it came in, else inferred from its id and path (a "custom"
	// product is bespoke, a "bundle" one a bundle, anything else a catalog report).
	Kind ProductKind
	// Path is the product's path when the entry gives one, such as "/report/macro-gdp".
	Path string
	// Raw is the entry as the store sent it, with every field this type does not name.
	Raw json.RawMessage
}

// Catalog is the store's list of products, from the free /catalog operation.
type Catalog struct {
	// Products lists every product with its live price, in the store's order.
	Products []Product
	// Response describes the HTTP answer.
	Response sdk.Response `json:"-"`
}

// Catalog returns every product of the store with its live price. The call is free.
//
// The store does not document the body of /catalog, so it is read leniently: a JSON array of
// products, or an object holding them under a key such as "products", "reports", "items",
// "catalog" or "data" (and bespoke or bundle products under keys such as "bespoke" or
// "bundles"). A body with no list of products is an *sdk.DecodeError; an empty list is an
// empty result.
func (c *Client) Catalog(ctx context.Context) (*Catalog, error) {
	products, resp, err := getFree(ctx, c, "/catalog", parseCatalog)
	if err != nil {
		return nil, err
	}
	return &Catalog{Products: products, Response: resp}, nil
}

// Catalog list keys, in normalised form, and the kind their entries have by default.
var (
	catalogListKeys = []string{"products", "reports", "items", "catalog", "data", "results", "entries"}
	bespokeListKeys = []string{"bespoke", "bespokeproducts", "custom", "customproducts"}
	bundleListKeys  = []string{"bundles", "bundle", "bundleproducts"}
)

// parseCatalog reads the products of a /catalog body.
func parseCatalog(body []byte) ([]Product, error) {
	f, items, err := decodeTop(body)
	if err != nil {
		return nil, err
	}
	lists, err := catalogLists(f, items, 0)
	if err != nil {
		return nil, err
	}
	products := []Product{}
	for _, l := range lists {
		for i, raw := range l.items {
			p, err := parseProduct(raw, l.kind)
			if err == nil && p.ID == "" && p.Kind == KindCatalog {
				err = errors.New(`field "id" is missing`) // the description names it for every report
			}
			if err != nil {
				return nil, errors.New("catalog entry " + strconv.Itoa(i) + ": " + err.Error())
			}
			products = append(products, p)
		}
	}
	return products, nil
}

// productList is one list of catalog entries with the kind the list implies ("" for none).
type productList struct {
	items []json.RawMessage
	kind  ProductKind
}

// catalogLists finds the lists of products in a /catalog body, an object f or an array of
// items, looking one level into a wrapping object such as {"data": {"reports": [...]}}.
func catalogLists(f fields, items []json.RawMessage, depth int) ([]productList, error) {
	if items != nil {
		return []productList{{items: items}}, nil
	}
	if f == nil {
		return nil, errors.New("body is neither a JSON array nor an object")
	}
	var lists []productList
	add := func(keys []string, kind ProductKind) {
		if items, k := f.array(keys...); k != "" {
			lists = append(lists, productList{items: items, kind: kind})
		}
	}
	add(catalogListKeys, "")
	add(bespokeListKeys, KindBespoke)
	add(bundleListKeys, KindBundle)
	if len(lists) > 0 {
		return lists, nil
	}
	if depth == 0 {
		for _, k := range catalogListKeys {
			if inner, isObj := objectFields(f[k]); isObj {
				return catalogLists(inner, nil, depth+1)
			}
		}
	}
	return nil, errors.New("no list of products found (looked for an array, or one under " +
		strings.Join(catalogListKeys, ", ") + ")")
}

// parseProduct reads one catalog entry; only an entry that is not a JSON object is an error.
func parseProduct(raw json.RawMessage, listKind ProductKind) (Product, error) {
	f, ok := objectFields(raw)
	if !ok {
		return Product{}, errors.New("not a JSON object")
	}
	p := Product{
		ID:          f.str("id", "reportid", "productid", "slug", "key"),
		Title:       f.str("title", "name"),
		Description: f.str("description", "summary", "measures", "measure"),
		Period:      f.str("period", "years", "coverageperiod"),
		Path:        f.str("path", "url", "href", "endpoint"),
		Raw:         raw,
	}
	if p.ID == "" {
		if id, ok := strings.CutPrefix(p.Path, "/report/"); ok && !strings.ContainsAny(id, "/?#") {
			p.ID = id // the path names the report
		}
	}
	p.Price, p.PriceText = priceField(f, "price", "priceusd", "usd", "pricedisplay", "cost")
	p.Economies = economiesField(f)
	p.Kind = productKind(f, listKind, p.ID, p.Path)
	return p, nil
}

// priceField reads a price from the first of keys that is present: a JSON string or number,
// or an object holding one under "usd", "value", "amount_usd" or "display". The text is
// returned as sent; the amount only when it is a single exact one that usdc.Parse reads.
func priceField(f fields, keys ...string) (*big.Int, string) {
	raw, ok := f.get(keys...)
	if !ok {
		return nil, ""
	}
	if obj, isObj := objectFields(raw); isObj {
		return priceField(obj, "usd", "value", "amountusd", "decimal", "display")
	}
	text, ok := jsonmember.ScalarText(raw)
	if !ok {
		return nil, string(bytes.TrimSpace(raw))
	}
	p, err := usdc.Parse(text)
	if err != nil {
		return nil, text
	}
	return p, text
}

// economiesField reads the number of economies covered: a number, a numeric string, or a
// list of economies (counted); nil when the entry gives none of these.
func economiesField(f fields) *int {
	keys := []string{"economies", "economiescovered", "economycount", "numeconomies", "countries", "countrycount"}
	if n := f.optInt(keys...); n != nil {
		return n
	}
	if raw, ok := f.get(keys...); ok {
		if items, ok := arrayItems(raw); ok {
			return intRef(len(items))
		}
	}
	return nil
}

// productKind decides the kind of a catalog entry (see Product.Kind).
func productKind(f fields, listKind ProductKind, id, path string) ProductKind {
	switch k := strings.ToLower(f.str("kind", "producttype", "type")); k {
	case "catalog", "report", "single":
		return KindCatalog
	case "bespoke", "custom":
		return KindBespoke
	case "bundle":
		return KindBundle
	case "":
	default:
		if listKind == "" {
			return ProductKind(k)
		}
	}
	if listKind != "" {
		return listKind
	}
	lid, lpath := strings.ToLower(id), strings.ToLower(path)
	switch {
	case strings.HasPrefix(lid, "custom") || strings.HasPrefix(lid, "bespoke") || strings.Contains(lpath, "/report/custom"):
		return KindBespoke
	case strings.HasPrefix(lid, "bundle") || strings.Contains(lpath, "/report/bundle"):
		return KindBundle
	}
	return KindCatalog
}

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
	p := &Preview{Raw: bytes.Clone(bytes.TrimSpace(body)), Rows: []PreviewRow{}}
	if items == nil {
		if f == nil {
			return nil, errors.New("body is neither a JSON array nor an object")
		}
		p.Year = f.optInt("year", "latestyear", "asof")
		var key string
		if items, key = f.array(previewListKeys...); key == "" {
			for _, k := range previewListKeys {
				if m, isObj := rawObject(f[k]); isObj {
					p.Rows = rowsFromMap(m, p.Year)
					return p, nil
				}
			}
			return nil, errors.New("no rows found (looked for an array, or one under " + strings.Join(previewListKeys, ", ") + ")")
		}
	}
	p.Rows = make([]PreviewRow, 0, len(items))
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
	if values, ok := rawObject(f["values"]); ok {
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
		row.Economy = cmp.Or(row.Economy, code)
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

// FirstPurchase is the store's recommended first purchase, from the free /start operation.
type FirstPurchase struct {
	// ReportID is the id of the recommended report.
	ReportID string
	// Path is the recommended request path when the body gives one, such as
	// "/report/macro-gdp?format=json".
	Path string
	// Title is the recommended report's title; "" when the body does not give it.
	Title string
	// Price is the recommended report's price in atomic USDC units, when the body gives a
	// single exact amount.
	Price *big.Int
	// Code is the runnable client code, the Go snippet when several languages are offered.
	Code string
	// Snippets holds the client code by language when the body offers several.
	Snippets map[string]string
	// Raw is the body as the store sent it.
	Raw json.RawMessage
	// Response describes the HTTP answer.
	Response sdk.Response `json:"-"`
}

// Start returns the store's recommended first purchase with its runnable client code. The
// call is free.
func (c *Client) Start(ctx context.Context) (*FirstPurchase, error) {
	s, resp, err := getFree(ctx, c, "/start", parseStart)
	if err != nil {
		return nil, err
	}
	s.Response = resp
	return s, nil
}

// parseStart reads a /start body: an object naming the recommended report (at the top level
// or in an object under "recommended", "recommendation", "firstPurchase" or "report") and its
// client code (a string, or an object of language to code).
func parseStart(body []byte) (*FirstPurchase, error) {
	f, _, err := decodeTop(body)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, errors.New("body is not a JSON object")
	}
	s := &FirstPurchase{Raw: bytes.Clone(bytes.TrimSpace(body))}
	rec := f
	for _, k := range []string{"recommended", "recommendation", "firstpurchase", "report", "product"} {
		v := f[k]
		if v == nil {
			continue
		}
		if obj, isObj := objectFields(v); isObj {
			rec = obj
			break
		}
		if id, isText := jsonmember.ScalarText(v); isText {
			s.ReportID = id
			break
		}
	}
	s.ReportID = cmp.Or(s.ReportID, rec.str("id", "reportid", "productid"))
	s.Path = rec.str("path", "url", "endpoint", "href")
	s.Title = rec.str("title", "name")
	s.Price, _ = priceField(rec, "price", "priceusd", "usd")
	for _, src := range []fields{f, rec} {
		raw, ok := src.get("code", "clientcode", "snippet", "snippets", "example", "client")
		if !ok {
			continue
		}
		if text, ok := jsonmember.ScalarText(raw); ok {
			s.Code = text
			break
		}
		if obj, ok := rawObject(raw); ok {
			s.Snippets, s.Code = snippetMap(obj)
			break
		}
	}
	if s.ReportID == "" && s.Path == "" {
		return nil, errors.New("no recommended report found")
	}
	return s, nil
}

// snippetMap reads an object of language to code and picks the Go snippet (or, without one,
// the first language in alphabetical order).
func snippetMap(obj map[string]json.RawMessage) (map[string]string, string) {
	out := make(map[string]string, len(obj))
	var langs []string
	for k, raw := range obj {
		if text, ok := jsonmember.ScalarText(raw); ok {
			out[k] = text
			langs = append(langs, k)
		}
	}
	sort.Strings(langs)
	for _, lang := range langs {
		if strings.EqualFold(lang, "go") || strings.EqualFold(lang, "golang") {
			return out, out[lang]
		}
	}
	if len(langs) > 0 {
		return out, out[langs[0]]
	}
	return out, ""
}
