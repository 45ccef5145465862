package productdata

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/agentapis/sdk/internal/lenient"
)

// Unknown is the value of a sales field (ListingSalesVolumeOfMonth and the others) that the
// service cannot estimate.
const Unknown = -1

// Product is one product (an Amazon listing) under the service's official field names, the
// ProductObject of ProductRequest, CategoryRequest, CategoryProducts and the other product
// lists. Money is in the site's smallest unit (US cents, yen): 1999 is $19.99 on AmazonUS.
//
// ASIN, SalesPrice (the price after coupon, the one to quote) and ListingSalesVolumeOfMonth
// (units sold in the last 30 days, the one to judge sales by) are required: a product
// without them is a *DecodeError, so a renamed field can never read as an empty value. The
// other fields are optional: a nil pointer, "" or a nil slice means the answer did not carry
// the field (or carried a value of another type); Raw holds the object as sent, every field
// included.
type Product struct {
	// ASIN is the product's ASIN.
	ASIN string `json:"ASIN"`
	// ParentAsin is the parent ASIN of a product with variations; "" without variations.
	ParentAsin string `json:"ParentAsin,omitempty"`
	// Title is the product's name.
	Title string `json:"Title,omitempty"`
	// Photo lists the URLs of the main images.
	Photo []string `json:"Photo,omitempty"`
	// EBCPhoto lists the URLs of the A+ content images.
	EBCPhoto []string `json:"EBCPhoto,omitempty"`
	// StoreName is the store's name.
	StoreName string `json:"StoreName,omitempty"`
	// Brand is the brand.
	Brand string `json:"Brand,omitempty"`
	// ProductType is the product's classification.
	ProductType string `json:"ProductType,omitempty"`

	// SalesPrice is the actual price, after the coupon.
	SalesPrice int `json:"SalesPrice"`
	// Price is the selling price before the coupon.
	Price *int `json:"Price,omitempty"`
	// ListPrice is the list (struck-through) price.
	ListPrice *int `json:"ListPrice,omitempty"`
	// Coupon is the coupon: above 0 an amount off, below 0 a percentage off (-10 is 10%).
	Coupon *int `json:"Coupon,omitempty"`

	// ListingSalesVolumeOfMonth is the listing's units sold in the last 30 days, all
	// variations together; Unknown (-1) when it cannot be estimated.
	ListingSalesVolumeOfMonth int `json:"ListingSalesVolumeOfMonth"`
	// ListingSalesOfMonth is the listing's estimated sales over 30 days, in money; -1 when
	// unknown.
	ListingSalesOfMonth *int `json:"ListingSalesOfMonth,omitempty"`
	// ListingSalesVolumeOfDaily is the listing's daily units sold; -1 when unknown.
	ListingSalesVolumeOfDaily *int `json:"ListingSalesVolumeOfDaily,omitempty"`
	// ListingSalesOfDaily is the listing's daily sales in money; -1 when unknown.
	ListingSalesOfDaily *int `json:"ListingSalesOfDaily,omitempty"`

	// BuyboxSeller is the name of the seller holding the buy box.
	BuyboxSeller string `json:"BuyboxSeller,omitempty"`
	// BuyboxSellerId is that seller's id.
	BuyboxSellerId string `json:"BuyboxSellerId,omitempty"`
	// BuyboxSellerAddress is that seller's country code (such as CN); "" when Amazon sells.
	BuyboxSellerAddress string `json:"BuyboxSellerAddress,omitempty"`
	// IsFBA reports whether the buy-box seller ships through FBA.
	IsFBA *bool `json:"IsFBA,omitempty"`
	// FbaFee is the FBA fee.
	FbaFee *int `json:"FbaFee,omitempty"`
	// FbaDetetail is the FBA fee's breakdown, such as ["475","1-9:5","10-12:15"] (the
	// delivery fee, then month ranges and their storage fees); the name is the service's own
	// spelling.
	FbaDetetail []string `json:"FbaDetetail,omitempty"`
	// ShipCost is the shipping cost of a merchant-fulfilled offer (0 when none is shown).
	ShipCost *int `json:"ShipCost,omitempty"`
	// PlatformFee is the marketplace's commission.
	PlatformFee *int `json:"PlatformFee,omitempty"`
	// Profit is the gross profit: SalesPrice less the FBA fee and the commission.
	Profit *int `json:"Profit,omitempty"`
	// ProfitRate is the gross margin in percent (25.83 is 25.83%).
	ProfitRate *float64 `json:"ProfitRate,omitempty"`

	// OnlineDate is the listing date, yyyy-MM-dd.
	OnlineDate string `json:"OnlineDate,omitempty"`
	// OnlineDays is the number of days since the listing date.
	OnlineDays *int `json:"OnlineDays,omitempty"`
	// Ratings is the star rating, such as 4.8.
	Ratings *float64 `json:"Ratings,omitempty"`
	// RatingsCount is the number of ratings.
	RatingsCount *int `json:"RatingsCount,omitempty"`
	// Rank is the best-seller rank in the top category.
	Rank *int `json:"Rank,omitempty"`
	// Category is the top category as [name, node id].
	Category []string `json:"Category,omitempty"`
	// BsrCategory lists the sub-categories the product ranks in.
	BsrCategory []CategoryRank `json:"BsrCategory,omitempty"`
	// VariationASINCount is the number of variations.
	VariationASINCount *int `json:"VariationASINCount,omitempty"`
	// SellerCount is the number of sellers.
	SellerCount *int `json:"SellerCount,omitempty"`
	// HasVideo reports a main-image video; APlus an A+ page; HasBrandStore a brand store.
	HasVideo      *bool `json:"HasVideo,omitempty"`
	APlus         *bool `json:"APlus,omitempty"`
	HasBrandStore *bool `json:"HasBrandStore,omitempty"`
	// Size is the package's size in cm, longest side first, as sent (such as "11.10").
	Size []string `json:"Size,omitempty"`
	// Weight is the weight in grams.
	Weight *float64 `json:"Weight,omitempty"`
	// ExtraSavings are linked promotions.
	ExtraSavings []ExtraSaving `json:"ExtraSavings,omitempty"`
	// BrandPromotion is the brand promotion's text; DealType the deal label.
	BrandPromotion string `json:"BrandPromotion,omitempty"`
	DealType       string `json:"DealType,omitempty"`

	// The trends of ProductRequest (recent 15 days unless asked otherwise), each flat as the
	// service sends it; nil when the answer had none.
	PriceTrend        Series `json:"PriceTrend,omitempty"`
	RankTrend         Series `json:"RankTrend,omitempty"`
	RatingsCountTrend Series `json:"RatingsCountTrend,omitempty"`
	RatingsTrend      Series `json:"RatingsTrend,omitempty"`
	SalesVolumeTrend  Series `json:"SalesVolumeTrend,omitempty"`

	// Raw is the product's JSON object as the service sent it, unknown fields included.
	Raw json.RawMessage `json:"-"`
	// Meta describes the answer, for a Product returned by Client.Product or
	// Client.RefreshProduct; it is zero for a product inside a list.
	Meta Meta `json:"-"`
}

// plainProduct is Product without its UnmarshalJSON method.
type plainProduct Product

// productWire is a product as sent: the required fields, and every optional field that is
// not a string, shadow the Product fields of the same names in forms that tell absent from
// zero and never fail on an unexpected type.
type productWire struct {
	plainProduct
	ASIN                      required[string] `json:"ASIN"`
	SalesPrice                required[int]    `json:"SalesPrice"`
	ListingSalesVolumeOfMonth required[int]    `json:"ListingSalesVolumeOfMonth"`

	Photo                     textList       `json:"Photo"`
	EBCPhoto                  textList       `json:"EBCPhoto"`
	Price                     maybe[int]     `json:"Price"`
	ListPrice                 maybe[int]     `json:"ListPrice"`
	Coupon                    maybe[int]     `json:"Coupon"`
	ListingSalesOfMonth       maybe[int]     `json:"ListingSalesOfMonth"`
	ListingSalesVolumeOfDaily maybe[int]     `json:"ListingSalesVolumeOfDaily"`
	ListingSalesOfDaily       maybe[int]     `json:"ListingSalesOfDaily"`
	IsFBA                     maybe[bool]    `json:"IsFBA"`
	FbaFee                    maybe[int]     `json:"FbaFee"`
	FbaDetetail               textList       `json:"FbaDetetail"`
	ShipCost                  maybe[int]     `json:"ShipCost"`
	PlatformFee               maybe[int]     `json:"PlatformFee"`
	Profit                    maybe[int]     `json:"Profit"`
	ProfitRate                maybe[float64] `json:"ProfitRate"`
	OnlineDays                maybe[int]     `json:"OnlineDays"`
	Ratings                   maybe[float64] `json:"Ratings"`
	RatingsCount              maybe[int]     `json:"RatingsCount"`
	Rank                      maybe[int]     `json:"Rank"`
	Category                  textList       `json:"Category"`
	BsrCategory               rankList       `json:"BsrCategory"`
	VariationASINCount        maybe[int]     `json:"VariationASINCount"`
	SellerCount               maybe[int]     `json:"SellerCount"`
	HasVideo                  maybe[bool]    `json:"HasVideo"`
	APlus                     maybe[bool]    `json:"APlus"`
	HasBrandStore             maybe[bool]    `json:"HasBrandStore"`
	Size                      textList       `json:"Size"`
	Weight                    maybe[float64] `json:"Weight"`
}

// UnmarshalJSON decodes a product in one pass, keeps its raw object, and refuses one without
// ASIN, SalesPrice or ListingSalesVolumeOfMonth.
func (p *Product) UnmarshalJSON(b []byte) error {
	var w productWire
	if err := lenientUnmarshal(b, &w); err != nil {
		return err
	}
	one, err := w.product(append(json.RawMessage(nil), b...))
	if err != nil {
		return err
	}
	*p = one
	return nil
}

// CategoryRank is one entry of BsrCategory, sent as [name, node id, rank].
type CategoryRank struct {
	// Name is the sub-category's name.
	Name string
	// NodeID is its node id, as CategoryRequest takes it.
	NodeID string
	// Rank is the product's rank in it; nil when the entry had none that reads as a number.
	Rank *int
}

// MarshalJSON writes the entry back as the service sends it.
func (r CategoryRank) MarshalJSON() ([]byte, error) {
	rank := ""
	if r.Rank != nil {
		rank = strconv.Itoa(*r.Rank)
	}
	return json.Marshal([]string{r.Name, r.NodeID, rank})
}

// ExtraSaving is a linked promotion.
type ExtraSaving struct {
	// Asin is the promoted product; Text the promotion.
	Asin string `json:"Asin"`
	Text string `json:"Text"`
}

// Point is one value of a trend.
type Point struct {
	// Date is the point's date or month as sent, such as "2024-11-01", "20241101" or "202410".
	Date string
	// Value is the value; NaN when the service sent null.
	Value float64
}

// Series is a trend. The service sends it flat, [date, value, date, value, ...]; Series pairs
// them up. A trend that is not such a list decodes as nil (Raw keeps it).
type Series []Point

// UnmarshalJSON pairs a flat [date, value, ...] list; anything else leaves the series nil.
func (s *Series) UnmarshalJSON(b []byte) error {
	var flat []any
	if json.Unmarshal(b, &flat) != nil || len(flat)%2 != 0 {
		return nil
	}
	out := make(Series, 0, len(flat)/2)
	for i := 0; i < len(flat); i += 2 {
		date, ok := anyText(flat[i])
		if !ok || date == "" {
			return nil
		}
		v := math.NaN()
		switch x := flat[i+1].(type) {
		case float64:
			v = x
		case nil:
		default:
			return nil
		}
		out = append(out, Point{Date: date, Value: v})
	}
	*s = out
	return nil
}

// MarshalJSON writes the series flat, as the service sends it (a NaN value as null).
func (s Series) MarshalJSON() ([]byte, error) {
	flat := make([]any, 0, 2*len(s))
	for _, p := range s {
		var v any = p.Value
		if math.IsNaN(p.Value) {
			v = nil
		}
		flat = append(flat, p.Date, v)
	}
	return json.Marshal(flat)
}

// required is a field the API description names: decoding records whether it was present,
// null, or of another type than T, and check reports which.
type required[T any] struct {
	v     T
	state presence
}

// presence is what the answer carried for a required field.
type presence uint8

// The states of a required field.
const (
	absent presence = iota
	null
	wrongType
	present
)

// UnmarshalJSON records the value, or that it was null or of the wrong type.
func (r *required[T]) UnmarshalJSON(b []byte) error {
	switch {
	case string(b) == "null":
		r.state = null
	case decodeScalar(b, &r.v):
		r.state = present
	default:
		r.state = wrongType
	}
	return nil
}

// check returns the decoding error of a field that is not present with a value of its type.
func (r *required[T]) check(what, name string) error {
	switch r.state {
	case absent:
		return fmt.Errorf("%s: field %q is missing", what, name)
	case null:
		return fmt.Errorf("%s: field %q is null", what, name)
	case wrongType:
		return fmt.Errorf("%s: field %q has the wrong type (want %T)", what, name, r.v)
	}
	return nil
}

// maybe is a field the API description does not show: set when the answer carried it with a
// value of type T, and left unset (never failing the answer) otherwise.
type maybe[T any] struct{ v *T }

// UnmarshalJSON sets the value when b decodes as a T and is not null.
func (m *maybe[T]) UnmarshalJSON(b []byte) error {
	var v T
	if string(b) != "null" && decodeScalar(b, &v) {
		m.v = &v
	}
	return nil
}

// decodeScalar decodes one JSON value b (already checked to be valid JSON by the decoder that
// handed it over) into v, reporting whether it had v's type. Integers, floats, booleans and
// strings without escapes are read directly, sparing encoding/json's second scan of the value.
func decodeScalar[T any](b []byte, v *T) bool {
	switch p := any(v).(type) {
	case *int:
		n, err := strconv.Atoi(string(b))
		*p = n
		return err == nil
	case *float64:
		if len(b) == 0 || b[0] == '"' || b[0] == 't' || b[0] == 'f' || b[0] == 'n' {
			return false
		}
		f, err := strconv.ParseFloat(string(b), 64)
		*p = f
		return err == nil
	case *bool:
		*p = string(b) == "true"
		return *p || string(b) == "false"
	case *string:
		if s, ok := lenient.Unquote(b); ok {
			*p = s
			return true
		}
	}
	return json.Unmarshal(b, v) == nil
}

// textList is a list of texts that may arrive with numbers among them (sizes, node ids); a
// value that is not such a list leaves it nil.
type textList []string

// UnmarshalJSON reads a list of strings and numbers.
func (t *textList) UnmarshalJSON(b []byte) error {
	var plain []string
	if json.Unmarshal(b, &plain) == nil {
		*t = plain // the usual case: strings only
		return nil
	}
	var items []any
	if json.Unmarshal(b, &items) != nil {
		return nil
	}
	out, ok := texts(items)
	if ok {
		*t = out
	}
	return nil
}

// texts returns the text of each item (strings as they are, numbers in JSON form, null as
// ""), and false when an item is of another kind.
func texts(items []any) ([]string, bool) {
	out := make([]string, 0, len(items))
	for _, item := range items {
		s, ok := anyText(item)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// anyText returns a decoded JSON scalar as text: a string as it is, a number in its shortest
// form (20241101, 7.9), null as "".
func anyText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case nil:
		return "", true
	}
	return "", false
}

// rankList is BsrCategory as sent, [[name, node id, rank], ...]; a value that is not such a
// list leaves it nil.
type rankList []CategoryRank

// UnmarshalJSON reads the entries, each a list of at least a name and a node id.
func (r *rankList) UnmarshalJSON(b []byte) error {
	var rows [][]string
	if json.Unmarshal(b, &rows) != nil {
		var mixed [][]any
		if json.Unmarshal(b, &mixed) != nil {
			return nil
		}
		rows = make([][]string, len(mixed))
		for i, items := range mixed {
			var ok bool
			if rows[i], ok = texts(items); !ok {
				return nil
			}
		}
	}
	out := make([]CategoryRank, 0, len(rows))
	for _, row := range rows {
		if len(row) < 2 {
			return nil
		}
		entry := CategoryRank{Name: row[0], NodeID: row[1]}
		if len(row) > 2 {
			if n, err := strconv.Atoi(row[2]); err == nil {
				entry.Rank = &n
			}
		}
		out = append(out, entry)
	}
	*r = out
	return nil
}

// scalarText returns a JSON string's value, a number's text, "" for null, and false for
// anything else.
func scalarText(raw json.RawMessage) (string, bool) {
	if string(raw) == "null" {
		return "", true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	return "", false
}

// lenientUnmarshal decodes b into a wire struct whose fields of unshown types are strings or
// never-failing types: a string field that met another type is left "" and does not fail the
// answer, while a syntax error does.
func lenientUnmarshal(b []byte, wire any) error {
	err := json.Unmarshal(b, wire)
	if _, typeOnly := err.(*json.UnmarshalTypeError); typeOnly {
		return nil
	}
	return err
}

// firstError returns the first non-nil error.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
