package productdata

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/jsonmember"
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
// without them is an *sdk.DecodeError, so a renamed field can never read as an empty value.
// The other fields are optional: a nil pointer, "" or a nil slice means the answer did not
// carry the field (or carried a value of another type); Raw holds a copy of the object as
// sent, every field included.
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

	// Raw is a copy of the product's JSON object as the service sent it, unknown fields
	// included.
	Raw json.RawMessage `json:"-"`
	// Units and Response describe the answer, for a Product returned by Client.Product or
	// Client.RefreshProduct; they are zero for a product inside a list.
	Units    Units        `json:"-"`
	Response sdk.Response `json:"-"`
}

// plainProduct is Product without its UnmarshalJSON method.
type plainProduct Product

// productWire is a product as sent: the required fields, and every optional field that is
// not a string, shadow the Product fields of the same names in forms that tell absent from
// zero and never fail on an unexpected type.
type productWire struct {
	plainProduct
	ASIN                      jsonmember.Required[string] `json:"ASIN"`
	SalesPrice                jsonmember.Required[int]    `json:"SalesPrice"`
	ListingSalesVolumeOfMonth jsonmember.Required[int]    `json:"ListingSalesVolumeOfMonth"`

	Photo                     textList                     `json:"Photo"`
	EBCPhoto                  textList                     `json:"EBCPhoto"`
	Price                     jsonmember.Optional[int]     `json:"Price"`
	ListPrice                 jsonmember.Optional[int]     `json:"ListPrice"`
	Coupon                    jsonmember.Optional[int]     `json:"Coupon"`
	ListingSalesOfMonth       jsonmember.Optional[int]     `json:"ListingSalesOfMonth"`
	ListingSalesVolumeOfDaily jsonmember.Optional[int]     `json:"ListingSalesVolumeOfDaily"`
	ListingSalesOfDaily       jsonmember.Optional[int]     `json:"ListingSalesOfDaily"`
	IsFBA                     jsonmember.Optional[bool]    `json:"IsFBA"`
	FbaFee                    jsonmember.Optional[int]     `json:"FbaFee"`
	FbaDetetail               textList                     `json:"FbaDetetail"`
	ShipCost                  jsonmember.Optional[int]     `json:"ShipCost"`
	PlatformFee               jsonmember.Optional[int]     `json:"PlatformFee"`
	Profit                    jsonmember.Optional[int]     `json:"Profit"`
	ProfitRate                jsonmember.Optional[float64] `json:"ProfitRate"`
	OnlineDays                jsonmember.Optional[int]     `json:"OnlineDays"`
	Ratings                   jsonmember.Optional[float64] `json:"Ratings"`
	RatingsCount              jsonmember.Optional[int]     `json:"RatingsCount"`
	Rank                      jsonmember.Optional[int]     `json:"Rank"`
	Category                  textList                     `json:"Category"`
	BsrCategory               rankList                     `json:"BsrCategory"`
	VariationASINCount        jsonmember.Optional[int]     `json:"VariationASINCount"`
	SellerCount               jsonmember.Optional[int]     `json:"SellerCount"`
	HasVideo                  jsonmember.Optional[bool]    `json:"HasVideo"`
	APlus                     jsonmember.Optional[bool]    `json:"APlus"`
	HasBrandStore             jsonmember.Optional[bool]    `json:"HasBrandStore"`
	Size                      textList                     `json:"Size"`
	Weight                    jsonmember.Optional[float64] `json:"Weight"`
}

// UnmarshalJSON decodes a product, keeps a copy of its object as Raw, and refuses one without
// ASIN, SalesPrice or ListingSalesVolumeOfMonth.
func (p *Product) UnmarshalJSON(b []byte) error {
	var w productWire
	if err := lenientUnmarshal(b, &w); err != nil {
		return err
	}
	asin, err1 := w.ASIN.Value("ASIN")
	price, err2 := w.SalesPrice.Value("SalesPrice")
	monthly, err3 := w.ListingSalesVolumeOfMonth.Value("ListingSalesVolumeOfMonth")
	if err := cmp.Or(err1, err2, err3); err != nil {
		return fmt.Errorf("product: %w", err)
	}
	if asin == "" {
		return errors.New(`product: field "ASIN" is empty`)
	}
	*p = Product(w.plainProduct)
	p.ASIN, p.SalesPrice, p.ListingSalesVolumeOfMonth = asin, price, monthly
	p.Photo, p.EBCPhoto, p.FbaDetetail, p.Category, p.Size = w.Photo, w.EBCPhoto, w.FbaDetetail, w.Category, w.Size
	p.BsrCategory = w.BsrCategory
	p.Price, p.ListPrice, p.Coupon = w.Price.Ptr(), w.ListPrice.Ptr(), w.Coupon.Ptr()
	p.ListingSalesOfMonth, p.ListingSalesVolumeOfDaily, p.ListingSalesOfDaily = w.ListingSalesOfMonth.Ptr(), w.ListingSalesVolumeOfDaily.Ptr(), w.ListingSalesOfDaily.Ptr()
	p.IsFBA, p.FbaFee, p.ShipCost, p.PlatformFee = w.IsFBA.Ptr(), w.FbaFee.Ptr(), w.ShipCost.Ptr(), w.PlatformFee.Ptr()
	p.Profit, p.ProfitRate, p.OnlineDays = w.Profit.Ptr(), w.ProfitRate.Ptr(), w.OnlineDays.Ptr()
	p.Ratings, p.RatingsCount, p.Rank = w.Ratings.Ptr(), w.RatingsCount.Ptr(), w.Rank.Ptr()
	p.VariationASINCount, p.SellerCount, p.Weight = w.VariationASINCount.Ptr(), w.SellerCount.Ptr(), w.Weight.Ptr()
	p.HasVideo, p.APlus, p.HasBrandStore = w.HasVideo.Ptr(), w.APlus.Ptr(), w.HasBrandStore.Ptr()
	p.Raw = bytes.Clone(b)
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
	// Value is the value; nil when the service sent null (never NaN or 0 in its place).
	Value *float64
}

// Series is a trend. The service sends it flat, [date, value, date, value, ...]; Series pairs
// them up. A trend that is not such a list decodes as nil (Raw keeps it).
type Series []Point

// UnmarshalJSON pairs a flat [date, value, ...] list, each date a string or a number and each
// value a number or null; anything else leaves the series nil.
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
		var v *float64
		switch x := flat[i+1].(type) {
		case float64:
			v = &x
		case nil:
		default:
			return nil
		}
		out = append(out, Point{Date: date, Value: v})
	}
	*s = out
	return nil
}

// MarshalJSON writes the series flat, as the service sends it (an absent value as null).
func (s Series) MarshalJSON() ([]byte, error) {
	flat := make([]any, 0, 2*len(s))
	for _, p := range s {
		flat = append(flat, p.Date, p.Value)
	}
	return json.Marshal(flat)
}

// textList is a list of texts that may arrive with numbers among them (sizes, node ids); a
// value that is not a list leaves it as it was.
type textList []string

// UnmarshalJSON reads a list of strings, numbers (in JSON form) and nulls (as ""); null, or
// an item of another kind, leaves it nil.
func (t *textList) UnmarshalJSON(b []byte) error {
	var items []any
	if json.Unmarshal(b, &items) != nil {
		return nil
	}
	*t = nil
	if items == nil {
		return nil
	}
	out := make(textList, 0, len(items))
	for _, item := range items {
		s, ok := anyText(item)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	*t = out
	return nil
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
	var rows []textList
	if json.Unmarshal(b, &rows) != nil {
		return nil
	}
	out := make([]CategoryRank, 0, len(rows))
	for _, row := range rows {
		if len(row) < 2 {
			return nil
		}
		entry := CategoryRank{Name: row[0], NodeID: row[1]}
		if len(row) > 2 {
			if n, ok := wholeNumber(row[2]); ok {
				entry.Rank = &n
			}
		}
		out = append(out, entry)
	}
	*r = out
	return nil
}

// wholeNumber reads a whole number sent as text (a rank, a task's status or id) by the SDK's
// one rule for numbers sent as text, jsonmember.ParseNumber (JSON's grammar, finite: 12, 1e2 and
// 3.0 are numbers; NaN, Infinity, 1e999 and +7 are not), and reports false for anything else,
// a fraction and a value beyond 2^53 included.
func wholeNumber(s string) (int, bool) {
	v, err := jsonmember.ParseNumber(s)
	if err != nil || v != math.Trunc(v) || math.Abs(v) > 1<<53 {
		return 0, false
	}
	return int(v), true
}

// lenientUnmarshal decodes b into a wire struct whose fields of unshown types are strings or
// never-failing types: a string field that met another type is left "" and does not fail the
// answer (encoding/json goes on with the other members and reports the first type mismatch),
// while a syntax error does.
func lenientUnmarshal(b []byte, wire any) error {
	err := json.Unmarshal(b, wire)
	if _, typeOnly := err.(*json.UnmarshalTypeError); typeOnly {
		return nil
	}
	return err
}
