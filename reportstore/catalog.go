package reportstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/lenient"
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
	// Price is the live price per fetch; nil when the entry gives none, or gives one that is
	// not a single exact USDC amount (such as a range "$0.20-$0.95"; see PriceText).
	Price *Price
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
	add := func(keys []string, kind ProductKind, first bool) {
		for _, k := range keys {
			if items, ok := arrayItems(f.value(k)); ok {
				lists = append(lists, productList{items: items, kind: kind})
				if first {
					return
				}
			}
		}
	}
	add(catalogListKeys, "", true)
	add(bespokeListKeys, KindBespoke, true)
	add(bundleListKeys, KindBundle, true)
	if len(lists) > 0 {
		return lists, nil
	}
	if depth == 0 {
		for _, k := range catalogListKeys {
			if inner, isObj := objectFields(f.value(k)); isObj {
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
// returned as sent; the Price only when it is a single exact amount.
func priceField(f fields, keys ...string) (*Price, string) {
	raw, ok := f.get(keys...)
	if !ok {
		return nil, ""
	}
	if obj, isObj := objectFields(raw); isObj {
		return priceField(obj, "usd", "value", "amountusd", "decimal", "display")
	}
	text, ok := lenient.ScalarText(raw)
	if !ok {
		return nil, string(bytes.TrimSpace(raw))
	}
	p, err := ParsePrice(text)
	if err != nil {
		return nil, text
	}
	return &p, text
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
