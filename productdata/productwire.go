package productdata

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"

	"github.com/agentapis/sdk/internal/jsonscan"
	"github.com/agentapis/sdk/internal/lenient"
)

// parseProducts reads the usual answer of ProductRequest, a Code of 0 with a list of
// products as Data, in a single pass of encoding/json: the products are decoded with the
// envelope, and their Raw are the parts of the body that jsonscan finds for them, shared
// rather than copied. For any other answer (Code missing or not 0, Data missing, null or not
// a list, a value of another type than the wire's anywhere, a product that does not decode)
// it reports false and leaves out alone: parseEnvelope then reads the body as it always did.
// body must not be modified afterwards, which holds for the bodies the client reads.
func parseProducts(body []byte, out *productsData) (parsed, bool) {
	var w productsEnvelope
	if json.Unmarshal(body, &w) != nil || !w.Code || w.Data == nil {
		return parsed{}, false
	}
	raws, ok := dataItems(body) // body is valid JSON: encoding/json just read it
	if !ok || len(raws) != len(w.Data) {
		return parsed{}, false
	}
	list := make(productsData, len(w.Data))
	for i := range w.Data {
		p, err := w.Data[i].product(raws[i])
		if err != nil {
			return parsed{}, false
		}
		list[i] = p
	}
	*out = list
	return parsed{message: string(w.Message), units: Units{Left: w.RequestLeft.v, Consumed: w.RequestConsumed.v}}, true
}

// dataItems returns the items of the envelope's Data, each a part of body: the value of its
// one member whose key is "Data" in any letter case, as encoding/json matches it. ok is false
// when there are several such members, or when Data is not a list.
func dataItems(body []byte) ([]json.RawMessage, bool) {
	var buf [8]jsonscan.Member
	members, ok := jsonscan.AppendMembers(buf[:0], body)
	if !ok {
		return nil, false
	}
	var data json.RawMessage
	for _, m := range members {
		if bytes.EqualFold(m.Key, dataKey) {
			if data != nil {
				return nil, false
			}
			data = m.Value
		}
	}
	return jsonscan.Items(data)
}

// dataKey is the key of the envelope's Data.
var dataKey = []byte("Data")

// productsEnvelope is the envelope of a ProductRequest answer as parseProducts reads it.
// Like wireEnvelope, its keys match in any letter case.
type productsEnvelope struct {
	Code            zeroCode            `json:"Code"`
	Message         messageField        `json:"Message"`
	Data            []listedProductWire `json:"Data"`
	RequestLeft     lenientInt          `json:"RequestLeft"`
	RequestConsumed lenientInt          `json:"RequestConsumed"`
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

// listedProductWire is a product inside a list, decoded in the list's pass: its lists of
// texts and its trends are kept as their bytes and read item by item afterwards, rather than
// by a decoding of their own or by encoding/json item by item. Where that reading could
// differ from Product.UnmarshalJSON (a list with an item it does not take, a value that is
// not a list, a trend or BsrCategory that is null), product decodes the product with
// Product.UnmarshalJSON instead.
type listedProductWire struct {
	productWire
	Photo       rawList `json:"Photo"`
	EBCPhoto    rawList `json:"EBCPhoto"`
	FbaDetetail rawList `json:"FbaDetetail"`
	Category    rawList `json:"Category"`
	Size        rawList `json:"Size"`
	BsrCategory rawList `json:"BsrCategory"`

	PriceTrend        rawList `json:"PriceTrend"`
	RankTrend         rawList `json:"RankTrend"`
	RatingsCountTrend rawList `json:"RatingsCountTrend"`
	RatingsTrend      rawList `json:"RatingsTrend"`
	SalesVolumeTrend  rawList `json:"SalesVolumeTrend"`
}

// errUnlisted reports a list or trend that listedProductWire leaves to Product.UnmarshalJSON.
var errUnlisted = errors.New("product: decoded on its own")

// product returns the product, with raw as its Raw.
func (w *listedProductWire) product(raw json.RawMessage) (Product, error) {
	p, err := w.productWire.product(raw)
	if err != nil {
		return p, err
	}
	if err = w.lists(&p); err == errUnlisted {
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
	var r listReader
	p.Photo, ok[0] = r.texts(w.Photo, &r.items)
	p.EBCPhoto, ok[1] = r.texts(w.EBCPhoto, &r.items)
	p.FbaDetetail, ok[2] = r.texts(w.FbaDetetail, &r.items)
	p.Category, ok[3] = r.texts(w.Category, &r.items)
	p.Size, ok[4] = r.texts(w.Size, &r.items)
	p.BsrCategory, ok[5] = r.ranks(w.BsrCategory)
	p.PriceTrend, ok[6] = r.series(w.PriceTrend)
	p.RankTrend, ok[7] = r.series(w.RankTrend)
	p.RatingsCountTrend, ok[8] = r.series(w.RatingsCountTrend)
	p.RatingsTrend, ok[9] = r.series(w.RatingsTrend)
	p.SalesVolumeTrend, ok[10] = r.series(w.SalesVolumeTrend)
	for _, o := range ok {
		if !o {
			return errUnlisted
		}
	}
	return nil
}

// rawList is a list inside a listed product, kept as its bytes: a part of the body, which the
// product keeps anyway as its Raw (encoding/json hands UnmarshalJSON a part of its input).
// Its items are read with jsonscan, the body being valid JSON once encoding/json has read it.
type rawList struct{ b []byte }

// UnmarshalJSON keeps b.
func (l *rawList) UnmarshalJSON(b []byte) error {
	l.b = b
	return nil
}

// listReader reads the rawLists of a product into two slices of items it reuses: one for a
// list, one for a row of BsrCategory.
type listReader struct{ items, row []json.RawMessage }

// itemsOf returns the items of l in *scratch, nil when l is absent; ok is false when it is
// null or not a list.
func itemsOf(l rawList, scratch *[]json.RawMessage) ([]json.RawMessage, bool) {
	if l.b == nil {
		return nil, true
	}
	items, ok := jsonscan.AppendItems((*scratch)[:0], l.b)
	*scratch = items
	return items, ok
}

// texts returns l as texts (nil when absent or null), and false when it is not a list of
// texts, as textList reads one. It reads the items into *scratch.
func (r *listReader) texts(l rawList, scratch *[]json.RawMessage) ([]string, bool) {
	if string(l.b) == "null" {
		return nil, true
	}
	items, ok := itemsOf(l, scratch)
	if !ok || l.b == nil {
		return nil, ok
	}
	out := make([]string, len(items))
	for i, raw := range items {
		it := readItem(raw)
		if out[i], ok = it.asText(); !ok {
			return nil, false
		}
	}
	return out, true
}

// ranks returns the entries of BsrCategory (nil when absent), and false when it is null or
// when a row is not a list of at least a name and a node id.
func (r *listReader) ranks(l rawList) ([]CategoryRank, bool) {
	rows, ok := itemsOf(l, &r.items)
	if !ok || l.b == nil {
		return nil, ok
	}
	out := make([]CategoryRank, 0, len(rows))
	for _, raw := range rows {
		row, ok := r.texts(rawList{raw}, &r.row)
		if !ok || len(row) < 2 {
			return nil, false
		}
		entry := CategoryRank{Name: row[0], NodeID: row[1]}
		if len(row) > 2 {
			if n, err := strconv.Atoi(row[2]); err == nil {
				entry.Rank = &n
			}
		}
		out = append(out, entry)
	}
	return out, true
}

// series pairs a flat trend (nil when absent), and returns false when it is null or not a
// list of dates and values, as Series.UnmarshalJSON reads them.
func (r *listReader) series(l rawList) (Series, bool) {
	flat, ok := itemsOf(l, &r.items)
	if !ok || l.b == nil {
		return nil, ok
	}
	if len(flat)%2 != 0 {
		return nil, false
	}
	out := make(Series, 0, len(flat)/2)
	for i := 0; i < len(flat); i += 2 {
		d := readItem(flat[i])
		date, ok := d.asText()
		if !ok || date == "" {
			return nil, false
		}
		v := math.NaN()
		switch it := readItem(flat[i+1]); it.kind {
		case itemNumber:
			v = it.num
		case itemNull:
		default:
			return nil, false
		}
		out = append(out, Point{Date: date, Value: v})
	}
	return out, true
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

// seriesItem is one item of a trend's flat list, or of a list of texts, as readItem reads it.
type seriesItem struct {
	text string
	num  float64
	kind itemKind
}

// readItem reads one JSON value of a list: a string, a number or null, and anything else as
// itemOther.
func readItem(b []byte) seriesItem {
	switch {
	case len(b) == 0:
	case string(b) == "null":
		return seriesItem{kind: itemNull}
	case b[0] == '"':
		if v, ok := lenient.Unquote(b); ok {
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
