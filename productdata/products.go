package productdata

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/agentapis/sdk"
)

// MaxASINs is the most ASINs one ProductRequest takes; each is charged.
const MaxASINs = 10

// asinLen is the length of an ASIN: ten letters and digits.
const asinLen = 10

// ProductsParams are the parameters of ProductRequest, for Products.
type ProductsParams struct {
	// ASINs are the products, 1 to MaxASINs, without repeats; each is charged.
	ASINs []string
	// NoTrend leaves the trends out of the answer (Trend 2); by default they are included.
	NoTrend bool
	// TrendStart and TrendEnd ask for the trends of that period instead of the recent 15 days
	// (QueryTrendStartDt, QueryTrendEndDt); more than 15 days costs two units per ASIN.
	// TrendEnd needs TrendStart.
	TrendStart, TrendEnd time.Time
}

// productRequestBody is ProductRequest's body. The API description names the parameter asin,
// which the service reads in any letter case.
type productRequestBody struct {
	ASIN              string `json:"asin"`
	Trend             int    `json:"Trend,omitempty"`
	QueryTrendStartDt string `json:"QueryTrendStartDt,omitempty"`
	QueryTrendEndDt   string `json:"QueryTrendEndDt,omitempty"`
}

// dateLayout is the service's date format.
const dateLayout = "2006-01-02"

// formatDate writes t in dateLayout, and the zero time as "" (a parameter not sent).
func formatDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(dateLayout)
}

// body validates p and returns ProductRequest's body.
func (p *ProductsParams) body() (*productRequestBody, error) {
	if p == nil {
		p = &ProductsParams{}
	}
	switch n := len(p.ASINs); {
	case n == 0:
		return nil, invalid("asin", "at least one ASIN is needed")
	case n > MaxASINs:
		return nil, invalid("asin", "at most 10 ASINs per request")
	}
	for i, a := range p.ASINs {
		if err := checkASIN("asin", a); err != nil {
			return nil, err
		}
		if slices.ContainsFunc(p.ASINs[:i], func(seen string) bool { return strings.EqualFold(seen, a) }) {
			return nil, invalid("asin", a+" is listed twice (each ASIN is charged)")
		}
	}
	b := &productRequestBody{ASIN: strings.Join(p.ASINs, ","), QueryTrendStartDt: formatDate(p.TrendStart),
		QueryTrendEndDt: formatDate(p.TrendEnd)}
	switch {
	case p.NoTrend && (!p.TrendStart.IsZero() || !p.TrendEnd.IsZero()):
		return nil, invalid("Trend", "a trend period was given with NoTrend")
	case p.NoTrend:
		b.Trend = 2
	case p.TrendStart.IsZero() && !p.TrendEnd.IsZero():
		return nil, invalid("QueryTrendEndDt", "needs QueryTrendStartDt")
	case !p.TrendEnd.IsZero() && p.TrendEnd.Before(p.TrendStart):
		return nil, invalid("QueryTrendEndDt", "is before QueryTrendStartDt")
	}
	return b, nil
}

// checkASIN refuses anything but ten ASCII letters and digits. The message quotes the value:
// an ASIN is not a secret.
func checkASIN(field, asin string) error {
	if len(asin) != asinLen || !isAlnum(asin) {
		return invalid(field, "ASIN "+quoteShort(asin)+" is not ten letters and digits")
	}
	return nil
}

// isAlnum reports whether s holds only ASCII letters and digits.
func isAlnum(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	})
}

// quoteShort quotes at most 20 bytes of s.
func quoteShort(s string) string {
	if len(s) > 20 {
		s = s[:20] + "..."
	}
	return `"` + strings.ToValidUTF8(s, "?") + `"`
}

// ProductList is the answer of ProductRequest for several ASINs.
type ProductList struct {
	// Products are the products the answer held, in its order.
	Products []Product
	// Missing lists the ASINs asked for that the answer did not hold: they do not exist or
	// their listing is gone. They are charged all the same.
	Missing []string
	// Units are the request units the answer reported.
	Units Units
	// Response describes the answer.
	Response sdk.Response
}

// productsData is the Data of ProductRequest: one ProductObject, a list of them, or null.
type productsData []Product

// UnmarshalJSON reads an object as a list of one, and null as no product.
func (p *productsData) UnmarshalJSON(b []byte) error {
	if !strings.HasPrefix(strings.TrimSpace(string(b)), "{") {
		return json.Unmarshal(b, (*[]Product)(p))
	}
	var one Product
	if err := json.Unmarshal(b, &one); err != nil {
		return err
	}
	*p = productsData{one}
	return nil
}

// Products looks up 1 to MaxASINs Amazon products with ProductRequest, one unit per ASIN
// (two with a trend period of more than 15 days). ASINs the answer does not hold are listed
// in Missing: the service charges for them and returns nothing. Only Amazon sites are
// accepted; params is validated before any request.
func (c *Client) Products(ctx context.Context, domain Domain, params *ProductsParams) (*ProductList, error) {
	if err := checkAmazon(domain, "Products"); err != nil {
		return nil, err
	}
	body, err := params.body()
	if err != nil {
		return nil, err
	}
	var data productsData
	env := &envelope{data: &data}
	resp, err := c.call(ctx, EndpointProductRequest, domain, body, env)
	if err != nil {
		return nil, err
	}
	out := &ProductList{Products: append([]Product{}, data...), Units: env.units, Response: resp.Meta()}
	for _, asin := range params.ASINs {
		if indexOfASIN(out.Products, asin) < 0 {
			out.Missing = append(out.Missing, asin)
		}
	}
	return out, nil
}

// indexOfASIN returns the index of the product with asin (in any letter case), or -1.
func indexOfASIN(products []Product, asin string) int {
	for i := range products {
		if strings.EqualFold(products[i].ASIN, asin) {
			return i
		}
	}
	return -1
}

// Product looks up one Amazon product by ASIN with ProductRequest (one unit), trends of the
// recent 15 days included. A product the service has no data for (Code 0 with no product, as
// it answers for an ASIN that does not exist; charged) is a *NotFoundError, and code 97 an
// *sdk.APIError: both match ErrNotFound.
func (c *Client) Product(ctx context.Context, domain Domain, asin string) (*Product, error) {
	if err := checkAmazon(domain, "Product"); err != nil {
		return nil, err
	}
	list, err := c.Products(ctx, domain, &ProductsParams{ASINs: []string{asin}})
	if err != nil {
		return nil, err
	}
	i := indexOfASIN(list.Products, asin)
	if i < 0 {
		return nil, c.notFound(EndpointProductRequest, domain, []string{asin}, list.Units, list.Response)
	}
	p := list.Products[i]
	p.Units, p.Response = list.Units, list.Response
	return &p, nil
}

// ProductTrendParams are the parameters of ProductTrend.
type ProductTrendParams struct {
	// ASIN is the product.
	ASIN string
	// From and To bound the period (dateRange, "yyyyMMdd,yyyyMMdd"); both or neither. Without
	// them the service's default period applies.
	From, To time.Time
	// TrendType selects the trend (trendType); 0 leaves it to the service.
	TrendType int
}

// productTrendBody is ProductTrend's body, in the parameter names the service documents.
type productTrendBody struct {
	ASIN      string `json:"asin"`
	DateRange string `json:"dateRange,omitempty"`
	TrendType int    `json:"trendType,omitempty"`
}

// compactDate is the date format of dateRange.
const compactDate = "20060102"

// body validates p and returns ProductTrend's body.
func (p *ProductTrendParams) body() (*productTrendBody, error) {
	if p == nil {
		p = &ProductTrendParams{}
	}
	if err := checkASIN("asin", p.ASIN); err != nil {
		return nil, err
	}
	b := &productTrendBody{ASIN: p.ASIN, TrendType: p.TrendType}
	switch {
	case p.TrendType < 0:
		return nil, invalid("trendType", "must not be negative")
	case p.From.IsZero() != p.To.IsZero():
		return nil, invalid("dateRange", "needs both From and To")
	case p.To.Before(p.From):
		return nil, invalid("dateRange", "To is before From")
	case !p.From.IsZero():
		b.DateRange = p.From.Format(compactDate) + "," + p.To.Format(compactDate)
	}
	return b, nil
}

// ProductTrend is the answer of ProductTrend: the product's history, one Series per trend.
type ProductTrend struct {
	// Trends holds each trend of the answer under its field name, such as "PriceTrend" or
	// "SalesVolumeTrend"; a Data that is a single flat list is held under "Trend".
	Trends map[string]Series
	// Raw is Data as sent.
	Raw json.RawMessage
	// Units are the request units the answer reported.
	Units Units
	// Response describes the answer.
	Response sdk.Response
}

// UnmarshalJSON reads Data: an object whose fields ending in "Trend" are flat lists, or one
// flat list. An answer with no trend in either form is refused, so that a changed shape never
// reads as a product without history; null is an empty trend.
func (t *ProductTrend) UnmarshalJSON(b []byte) error {
	var fields map[string]json.RawMessage
	if strings.HasPrefix(strings.TrimSpace(string(b)), "[") {
		fields = map[string]json.RawMessage{"Trend": b}
	} else if err := json.Unmarshal(b, &fields); err != nil {
		return err
	}
	t.Trends = map[string]Series{}
	for name, raw := range fields {
		var s Series // nil unless raw is a flat list
		if strings.HasSuffix(strings.ToLower(name), "trend") && json.Unmarshal(raw, &s) == nil && s != nil {
			t.Trends[name] = s
		}
	}
	if len(t.Trends) == 0 && len(fields) > 0 {
		return errors.New(`product trend: Data holds no trend (a field ending in "Trend" with a flat [date, value, ...] list)`)
	}
	return nil
}

// ProductTrend returns the history of an Amazon product with ProductTrend (one unit): price,
// sales, rank and the other trends the service keeps. params is validated before any request.
func (c *Client) ProductTrend(ctx context.Context, domain Domain, params *ProductTrendParams) (*ProductTrend, error) {
	if err := checkAmazon(domain, "ProductTrend"); err != nil {
		return nil, err
	}
	body, err := params.body()
	if err != nil {
		return nil, err
	}
	var out ProductTrend
	env := &envelope{data: &out}
	resp, err := c.call(ctx, EndpointProductTrend, domain, body, env)
	if err != nil {
		return nil, err
	}
	out.Raw, out.Units, out.Response = env.raw, env.units, resp.Meta()
	return &out, nil
}
