package productdata

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// parseProducts reads the usual answer of ProductRequest, a Code of 0 with a list of
// products as Data, in a single pass of encoding/json: the products are decoded as the
// envelope is read, each from its part of the body, and their Raw share the body instead of
// copying it. For any other answer (Code missing or not 0, Data missing, null or not a list,
// a product that does not decode) it reports false and leaves out alone: parseEnvelope then
// reads the body as it always did. body must not be modified afterwards, which holds for the
// bodies the client reads.
func parseProducts(body []byte, out *productsData) (parsed, bool) {
	var w productsEnvelope
	// The envelope's own fields never fail, and each product keeps its own error: a type
	// error can only come from a Data that is not a list.
	if json.Unmarshal(body, &w) != nil || !w.Code || w.Data == nil {
		return parsed{}, false
	}
	list := make(productsData, len(w.Data))
	for i := range w.Data {
		if w.Data[i].err != nil {
			return parsed{}, false
		}
		list[i] = w.Data[i].p
	}
	*out = list
	return parsed{message: string(w.Message), units: Units{Left: w.RequestLeft.v, Consumed: w.RequestConsumed.v}}, true
}

// productsEnvelope is the envelope of a ProductRequest answer as parseProducts reads it.
// Like wireEnvelope, its keys match in any letter case.
type productsEnvelope struct {
	Code            zeroCode        `json:"Code"`
	Message         messageField    `json:"Message"`
	Data            []listedProduct `json:"Data"`
	RequestLeft     lenientInt      `json:"RequestLeft"`
	RequestConsumed lenientInt      `json:"RequestConsumed"`
}

// zeroCode records whether the envelope's Code is the integer 0, as sent.
type zeroCode bool

// UnmarshalJSON records whether b is 0.
func (z *zeroCode) UnmarshalJSON(b []byte) error {
	*z = string(b) == "0"
	return nil
}

// messageField is the envelope's Message, as messageText reads it.
type messageField string

// UnmarshalJSON keeps the message's text.
func (m *messageField) UnmarshalJSON(b []byte) error {
	*m = messageField(messageText(b))
	return nil
}

// listedProduct is one product of a list, decoded with its error, which never fails the
// list.
type listedProduct struct {
	p   Product
	err error
}

// UnmarshalJSON decodes the product from b, which is part of the body and becomes its Raw
// as it is.
func (l *listedProduct) UnmarshalJSON(b []byte) error {
	var w listedProductWire
	if l.err = lenientUnmarshal(b, &w); l.err == nil {
		l.p, l.err = w.product(b[:len(b):len(b)])
	}
	return nil
}

// listedProductWire is a product inside a list, decoded in the list's pass: its lists of
// texts and its trends are read item by item rather than by a decoding of their own. Where
// that reading could differ from Product.UnmarshalJSON (a list with an item it does not
// take, or a trend missing from a product that holds a null), product decodes the product
// with Product.UnmarshalJSON instead.
type listedProductWire struct {
	productWire
	Photo       []textItem   `json:"Photo"`
	EBCPhoto    []textItem   `json:"EBCPhoto"`
	FbaDetetail []textItem   `json:"FbaDetetail"`
	Category    []textItem   `json:"Category"`
	Size        []textItem   `json:"Size"`
	BsrCategory [][]textItem `json:"BsrCategory"`

	PriceTrend        []seriesItem `json:"PriceTrend"`
	RankTrend         []seriesItem `json:"RankTrend"`
	RatingsCountTrend []seriesItem `json:"RatingsCountTrend"`
	RatingsTrend      []seriesItem `json:"RatingsTrend"`
	SalesVolumeTrend  []seriesItem `json:"SalesVolumeTrend"`
}

// errUnlisted reports a list or trend that listedProductWire leaves to Product.UnmarshalJSON.
var errUnlisted = errors.New("product: decoded on its own")

// product returns the product, with raw as its Raw.
func (w *listedProductWire) product(raw json.RawMessage) (Product, error) {
	p, err := w.productWire.product(raw)
	if err != nil {
		return p, err
	}
	err = w.lists(&p)
	if err == nil && bytes.Contains(raw, []byte("null")) &&
		(w.BsrCategory == nil || w.PriceTrend == nil || w.RankTrend == nil || w.RatingsCountTrend == nil ||
			w.RatingsTrend == nil || w.SalesVolumeTrend == nil) {
		// A null trend or BsrCategory decodes as an empty one, which the item-by-item
		// reading cannot tell from an absent one.
		err = errUnlisted
	}
	if err == errUnlisted {
		var one Product
		err = one.UnmarshalJSON(raw)
		one.Raw = raw
		return one, err
	}
	return p, err
}

// lists sets the lists and trends of p, or returns errUnlisted.
func (w *listedProductWire) lists(p *Product) error {
	var ok [11]bool
	p.Photo, ok[0] = textsOf(w.Photo)
	p.EBCPhoto, ok[1] = textsOf(w.EBCPhoto)
	p.FbaDetetail, ok[2] = textsOf(w.FbaDetetail)
	p.Category, ok[3] = textsOf(w.Category)
	p.Size, ok[4] = textsOf(w.Size)
	p.BsrCategory, ok[5] = ranksOf(w.BsrCategory)
	p.PriceTrend, ok[6] = seriesOf(w.PriceTrend)
	p.RankTrend, ok[7] = seriesOf(w.RankTrend)
	p.RatingsCountTrend, ok[8] = seriesOf(w.RatingsCountTrend)
	p.RatingsTrend, ok[9] = seriesOf(w.RatingsTrend)
	p.SalesVolumeTrend, ok[10] = seriesOf(w.SalesVolumeTrend)
	for _, o := range ok {
		if !o {
			return errUnlisted
		}
	}
	return nil
}

// product checks the required fields and returns the product, with raw as its Raw.
func (w *productWire) product(raw json.RawMessage) (Product, error) {
	if err := firstError(w.ASIN.check("product", "ASIN"), w.SalesPrice.check("product", "SalesPrice"),
		w.ListingSalesVolumeOfMonth.check("product", "ListingSalesVolumeOfMonth")); err != nil {
		return Product{}, err
	}
	if w.ASIN.v == "" {
		return Product{}, errors.New(`product: field "ASIN" is empty`)
	}
	p := Product(w.plainProduct)
	p.ASIN, p.SalesPrice, p.ListingSalesVolumeOfMonth = w.ASIN.v, w.SalesPrice.v, w.ListingSalesVolumeOfMonth.v
	p.Photo, p.EBCPhoto, p.FbaDetetail, p.Category, p.Size = w.Photo, w.EBCPhoto, w.FbaDetetail, w.Category, w.Size
	p.BsrCategory = w.BsrCategory
	p.Price, p.ListPrice, p.Coupon = w.Price.v, w.ListPrice.v, w.Coupon.v
	p.ListingSalesOfMonth, p.ListingSalesVolumeOfDaily, p.ListingSalesOfDaily = w.ListingSalesOfMonth.v, w.ListingSalesVolumeOfDaily.v, w.ListingSalesOfDaily.v
	p.IsFBA, p.FbaFee, p.ShipCost, p.PlatformFee, p.Profit, p.ProfitRate = w.IsFBA.v, w.FbaFee.v, w.ShipCost.v, w.PlatformFee.v, w.Profit.v, w.ProfitRate.v
	p.OnlineDays, p.Ratings, p.RatingsCount, p.Rank = w.OnlineDays.v, w.Ratings.v, w.RatingsCount.v, w.Rank.v
	p.VariationASINCount, p.SellerCount, p.Weight = w.VariationASINCount.v, w.SellerCount.v, w.Weight.v
	p.HasVideo, p.APlus, p.HasBrandStore = w.HasVideo.v, w.APlus.v, w.HasBrandStore.v
	p.Raw = raw
	return p, nil
}

// itemKind is the kind of one JSON value inside a list.
type itemKind uint8

// The kinds of list items.
const (
	itemOther itemKind = iota
	itemString
	itemNumber
	itemNull
)

// textItem is one item of a list of texts: a string, a number (as its shortest text) or
// null (as ""); ok is false for anything else.
type textItem struct {
	text string
	ok   bool
}

// UnmarshalJSON reads the item; it never fails.
func (t *textItem) UnmarshalJSON(b []byte) error {
	s := readItem(b)
	t.text, t.ok = s.asText()
	return nil
}

// seriesItem is one item of a trend's flat list, or of a list of texts.
type seriesItem struct {
	text string
	num  float64
	kind itemKind
}

// UnmarshalJSON reads a string, a number or null; anything else is itemOther. It never fails.
func (s *seriesItem) UnmarshalJSON(b []byte) error {
	*s = readItem(b)
	return nil
}

// readItem reads one JSON value of a list: a string, a number or null, and anything else as
// itemOther.
func readItem(b []byte) seriesItem {
	switch {
	case len(b) == 0:
	case string(b) == "null":
		return seriesItem{kind: itemNull}
	case b[0] == '"':
		if v, ok := plainString(b); ok && utf8.ValidString(v) {
			return seriesItem{text: v, kind: itemString}
		}
		var v string
		if json.Unmarshal(b, &v) == nil {
			return seriesItem{text: v, kind: itemString}
		}
	case b[0] == '-' || '0' <= b[0] && b[0] <= '9':
		if f, err := strconv.ParseFloat(string(b), 64); err == nil {
			return seriesItem{num: f, kind: itemNumber}
		}
	}
	return seriesItem{}
}

// asText returns the item as text, as anyText does for a decoded value.
func (s *seriesItem) asText() (string, bool) {
	switch s.kind {
	case itemString:
		return s.text, true
	case itemNumber:
		return strconv.FormatFloat(s.num, 'f', -1, 64), true
	case itemNull:
		return "", true
	}
	return "", false
}

// textsOf returns the texts of items (nil for nil), and false when an item is not a text.
func textsOf(items []textItem) ([]string, bool) {
	if items == nil {
		return nil, true
	}
	out := make([]string, len(items))
	for i, it := range items {
		if !it.ok {
			return nil, false
		}
		out[i] = it.text
	}
	return out, true
}

// ranksOf returns the entries of BsrCategory (nil for nil), and false when a row is not a
// list of at least a name and a node id.
func ranksOf(rows [][]textItem) ([]CategoryRank, bool) {
	if rows == nil {
		return nil, true
	}
	out := make([]CategoryRank, 0, len(rows))
	for _, row := range rows {
		if len(row) < 2 {
			return nil, false
		}
		for _, it := range row {
			if !it.ok {
				return nil, false
			}
		}
		entry := CategoryRank{Name: row[0].text, NodeID: row[1].text}
		if len(row) > 2 {
			if n, err := strconv.Atoi(row[2].text); err == nil {
				entry.Rank = &n
			}
		}
		out = append(out, entry)
	}
	return out, true
}

// seriesOf pairs a flat trend (nil for nil), and returns false when it is not a list of
// dates and values, as Series.UnmarshalJSON reads them.
func seriesOf(flat []seriesItem) (Series, bool) {
	if flat == nil {
		return nil, true
	}
	if len(flat)%2 != 0 {
		return nil, false
	}
	out := make(Series, 0, len(flat)/2)
	for i := 0; i < len(flat); i += 2 {
		date, ok := flat[i].asText()
		if !ok || date == "" {
			return nil, false
		}
		v := math.NaN()
		switch flat[i+1].kind {
		case itemNumber:
			v = flat[i+1].num
		case itemNull:
		default:
			return nil, false
		}
		out = append(out, Point{Date: date, Value: v})
	}
	return out, true
}
