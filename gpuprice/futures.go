package gpuprice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/agentapis/sdk"
)

// FuturesIndex is the live compute futures index of GET /v1/futures/index: the price of an
// H100-equivalent GPU-hour across the platforms and models it covers, with its bid and ask.
// The API description does not show the body, so every value is nil or empty when the
// service did not send it; Raw holds the body.
type FuturesIndex struct {
	// Symbol is the index's ticker, such as "GCFI".
	Symbol string
	// Name is its display name.
	Name string
	// Value is the index level, in USD per H100-equivalent hour.
	Value *float64
	// Bid, Ask and Spread are the best bid, the best ask and their difference.
	Bid, Ask, Spread *float64
	// SpreadBPS is the spread in basis points.
	SpreadBPS *float64
	// Currency, Unit and Basis describe the value (such as "USD", "USD per H100-equivalent
	// hour", "H100").
	Currency, Unit, Basis string
	// Platforms and Models are how many platforms and models the index covers.
	Platforms, Models *int
	// Timestamp is when the index was computed.
	Timestamp *time.Time
	// Raw is the response body.
	Raw json.RawMessage
	// Response describes the HTTP response.
	Response sdk.Response
}

// UnmarshalJSON reads the index under the spellings of its members.
func (x *FuturesIndex) UnmarshalJSON(b []byte) error {
	m, err := readMembers(b)
	if err != nil {
		return err
	}
	*x = FuturesIndex{
		Symbol:    m.text(fieldSymbol),
		Name:      m.text(fieldDisplayName),
		Value:     m.number(fieldIndexValue, fieldHourPrice),
		Bid:       m.number(fieldBid),
		Ask:       m.number(fieldAsk),
		Spread:    m.number(fieldSpread),
		SpreadBPS: m.number(fieldSpreadBPS),
		Currency:  m.text(fieldCurrency),
		Unit:      m.text(fieldUnit),
		Basis:     m.text(fieldBasis),
		Platforms: m.integer(fieldPlatformCount),
		Models:    m.integer(fieldModelCount),
		Timestamp: m.time(fieldTime),
		Raw:       bytes.Clone(b),
	}
	return nil
}

// FuturesIndex returns the live compute futures index (GET /v1/futures/index).
func (c *Client) FuturesIndex(ctx context.Context) (*FuturesIndex, error) {
	return get(ctx, c, "/futures/index", nil,
		func(f *FuturesIndex) *sdk.Response { return &f.Response })
}

// FuturesComponents are the components of the futures index, from GET
// /v1/futures/components: one per GPU model, with its spot price, H100 equivalence and
// weight.
type FuturesComponents struct {
	// Symbol is the index's ticker, when the service said.
	Symbol string
	// Timestamp is when the components were computed, when the service said.
	Timestamp *time.Time
	// Components are the index's components.
	Components []Component
	// Raw is the response body.
	Raw json.RawMessage
	// Response describes the HTTP response.
	Response sdk.Response
}

// Component is one GPU model's part of the futures index. A value the service did not send
// is nil.
type Component struct {
	// Model is the GPU model.
	Model string
	// SpotPriceUSDHr is its spot price in USD per GPU-hour.
	SpotPriceUSDHr *float64
	// H100Equivalent is how many H100s one GPU of the model is worth (H100 is 1).
	H100Equivalent *float64
	// VRAMGB is the GPU's memory in GB.
	VRAMGB *float64
	// PricePerH100eUSDHr is the spot price normalised to an H100-equivalent hour.
	PricePerH100eUSDHr *float64
	// Weight is the component's weight in the index (the weights add up to 1).
	Weight *float64
	// Platforms is how many platforms quote the model.
	Platforms *int
	// Raw is the component as the service sent it.
	Raw json.RawMessage
}

// UnmarshalJSON reads a component under the spellings of its members.
func (c *Component) UnmarshalJSON(b []byte) error {
	m, err := readMembers(b)
	if err != nil {
		return err
	}
	*c = Component{
		Model:              m.text(fieldModel),
		SpotPriceUSDHr:     m.number(fieldSpotPrice, fieldHourPrice),
		H100Equivalent:     m.number(fieldH100Equivalent),
		VRAMGB:             m.number(fieldMemoryGB),
		PricePerH100eUSDHr: m.number(fieldPerH100e),
		Weight:             m.number(fieldWeight),
		Platforms:          m.integer(fieldPlatformCount),
		Raw:                bytes.Clone(b),
	}
	return nil
}

// UnmarshalJSON reads a bare list, or an object with the list under components, data, items
// or results, in any of their spellings (a count of 0 with no list is empty).
func (f *FuturesComponents) UnmarshalJSON(b []byte) error {
	all, m, err := listAnswer[Component](b, "futures components", fieldComponentList)
	if err != nil {
		return err
	}
	*f = FuturesComponents{Symbol: m.text(fieldSymbol), Timestamp: m.time(fieldTime), Components: all, Raw: bytes.Clone(b)}
	return nil
}

// FuturesComponents returns the components of the futures index (GET
// /v1/futures/components).
func (c *Client) FuturesComponents(ctx context.Context) (*FuturesComponents, error) {
	return get(ctx, c, "/futures/components", nil,
		func(f *FuturesComponents) *sdk.Response { return &f.Response })
}

// OrderBook is the spot order book of GET /v1/exchange/book: live bids and asks for
// GPU-hours of one model, and the recent matches.
type OrderBook struct {
	// Market and Model name the book, such as "H100-USD" and "H100".
	Market, Model string
	// Unit is the unit of the prices, such as "USD per GPU-hour".
	Unit string
	// BestBid, BestAsk, Mid and Spread sum up the book; nil when the service did not send
	// them (the levels may still be there).
	BestBid, BestAsk, Mid, Spread *float64
	// Bids are the buy orders, best (highest) first as the service sent them; empty for an
	// empty side, nil when the answer carried only asks.
	Bids []BookLevel
	// Asks are the sell orders, best (lowest) first as the service sent them; empty for an
	// empty side, nil when the answer carried only bids.
	Asks []BookLevel
	// RecentMatches are the latest trades; nil when the answer carried no such list.
	RecentMatches []Match
	// Timestamp is when the book was read.
	Timestamp *time.Time
	// Raw is the response body.
	Raw json.RawMessage
	// Response describes the HTTP response.
	Response sdk.Response
}

// BookLevel is one price level of the order book. A level the service sent without a
// readable price is kept, its Price nil, with its Raw.
type BookLevel struct {
	// Price is the level's price in USD per GPU-hour; nil when the level had none.
	Price *float64
	// Quantity is the size offered at the level, when the service said: GPU-hours, or GPUs
	// for a level that counts them (gpus).
	Quantity *float64
	// Orders is the number of orders at the level, when the service said.
	Orders *int
	// Raw is the level as the service sent it.
	Raw json.RawMessage
}

// errNoSide is the decoding error of an order book with neither bids nor asks.
var errNoSide = errors.New("order book: no list found (looked for " + strings.Join(fieldNames[fieldBids], ", ") + ", " +
	strings.Join(fieldNames[fieldAsks], ", ") + ")")

// UnmarshalJSON reads a level as an object (price, quantity and orders under their
// spellings) or as an array [price, quantity, orders]; a value it cannot read is nil.
func (l *BookLevel) UnmarshalJSON(b []byte) error {
	var m members
	if bareArray(b) {
		var a []json.RawMessage
		if err := json.Unmarshal(b, &a); err != nil {
			return err
		}
		named := map[string]json.RawMessage{}
		for i, name := range []string{"price", "quantity", "orders"} { // the positions of an array level
			if i < len(a) {
				named[name] = a[i]
			}
		}
		m = newMembers(named)
	} else {
		var err error
		if m, err = readMembers(b); err != nil {
			return err
		}
	}
	*l = BookLevel{Price: m.number(fieldHourPrice), Quantity: m.number(fieldQuantity), Orders: m.integer(fieldOrders), Raw: bytes.Clone(b)}
	return nil
}

// Match is a recent trade of the order book. A match the service sent without a readable
// price is kept, its Price nil, with its Raw.
type Match struct {
	// Price is the trade's price in USD per GPU-hour; nil when the match had none.
	Price *float64
	// Quantity is the GPU-hours traded, when the service said.
	Quantity *float64
	// Side is the taker's side, such as "buy" or "sell", when the service said.
	Side string
	// MatchedAt is when the trade happened, when the service said.
	MatchedAt *time.Time
	// Raw is the match as the service sent it.
	Raw json.RawMessage
}

// UnmarshalJSON reads a match under the spellings of its members.
func (m *Match) UnmarshalJSON(b []byte) error {
	f, err := readMembers(b)
	if err != nil {
		return err
	}
	*m = Match{
		Price:     f.number(fieldHourPrice),
		Quantity:  f.number(fieldQuantity),
		Side:      f.text(fieldSide),
		MatchedAt: f.time(fieldMatchedAt, fieldTime),
		Raw:       bytes.Clone(b),
	}
	return nil
}

// UnmarshalJSON reads the book under the spellings of its members. An answer with neither
// bids nor asks is an error, never an empty book.
func (o *OrderBook) UnmarshalJSON(b []byte) error {
	m, err := readMembers(b)
	if err != nil {
		return err
	}
	bids, hasBids, err := carried[BookLevel](m, fieldBids)
	if err != nil {
		return err
	}
	asks, hasAsks, err := carried[BookLevel](m, fieldAsks)
	if err != nil {
		return err
	}
	if !hasBids && !hasAsks {
		return errNoSide
	}
	matches, _, err := carried[Match](m, fieldMatches)
	if err != nil {
		return err
	}
	*o = OrderBook{
		Market:        m.text(fieldMarket),
		Model:         m.text(fieldModel),
		Unit:          m.text(fieldUnit),
		BestBid:       m.number(fieldBid),
		BestAsk:       m.number(fieldAsk),
		Mid:           m.number(fieldMid),
		Spread:        m.number(fieldSpread),
		Bids:          sideOf(bids, hasBids),
		Asks:          sideOf(asks, hasAsks),
		RecentMatches: matches,
		Timestamp:     m.time(fieldTime),
		Raw:           bytes.Clone(b),
	}
	return nil
}

// sideOf returns one side of the book: nil when the answer did not carry it, and otherwise
// its levels (empty for an empty or null list).
func sideOf(levels []BookLevel, carried bool) []BookLevel {
	if carried && levels == nil {
		return []BookLevel{}
	}
	return levels
}

// OrderBook returns the spot order book (GET /v1/exchange/book) of model, such as "H100";
// an empty model asks for the service's default book.
func (c *Client) OrderBook(ctx context.Context, model string) (*OrderBook, error) {
	q := url.Values{}
	if err := setName(q, "model", model); err != nil {
		return nil, err
	}
	return get(ctx, c, "/exchange/book", q, func(o *OrderBook) *sdk.Response { return &o.Response })
}
