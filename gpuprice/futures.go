package gpuprice

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"time"
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
	Response Response
}

// UnmarshalJSON reads the index under the likely spellings of its members.
func (x *FuturesIndex) UnmarshalJSON(b []byte) error {
	var w struct {
		Symbol         opt[text]      `json:"symbol"`
		Ticker         opt[text]      `json:"ticker"`
		Name           opt[text]      `json:"name"`
		Value          opt[number]    `json:"value"`
		Index          opt[number]    `json:"index"`
		IndexValue     opt[number]    `json:"index_value"`
		Level          opt[number]    `json:"level"`
		Price          opt[number]    `json:"price"`
		Bid            opt[number]    `json:"bid"`
		BestBid        opt[number]    `json:"best_bid"`
		Ask            opt[number]    `json:"ask"`
		BestAsk        opt[number]    `json:"best_ask"`
		Spread         opt[number]    `json:"spread"`
		SpreadBPS      opt[number]    `json:"spread_bps"`
		Currency       opt[text]      `json:"currency"`
		Unit           opt[text]      `json:"unit"`
		Basis          opt[text]      `json:"basis"`
		Platforms      opt[integer]   `json:"platforms"`
		PlatformCount  opt[integer]   `json:"platform_count"`
		Models         opt[integer]   `json:"models"`
		ModelCount     opt[integer]   `json:"model_count"`
		Timestamp      opt[timestamp] `json:"timestamp"`
		Time           opt[timestamp] `json:"time"`
		UpdatedAt      opt[timestamp] `json:"updated_at"`
		PlatformsCount opt[integer]   `json:"platforms_count"`
		ModelsCount    opt[integer]   `json:"models_count"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*x = FuturesIndex{
		Symbol:    texts(w.Symbol, w.Ticker),
		Name:      texts(w.Name),
		Value:     floats(w.Value, w.Index, w.IndexValue, w.Level, w.Price),
		Bid:       floats(w.Bid, w.BestBid),
		Ask:       floats(w.Ask, w.BestAsk),
		Spread:    floats(w.Spread),
		SpreadBPS: floats(w.SpreadBPS),
		Currency:  texts(w.Currency),
		Unit:      texts(w.Unit),
		Basis:     texts(w.Basis),
		Platforms: ints(w.Platforms, w.PlatformCount, w.PlatformsCount),
		Models:    ints(w.Models, w.ModelCount, w.ModelsCount),
		Timestamp: times(w.Timestamp, w.Time, w.UpdatedAt),
		Raw:       keepRaw(b),
	}
	return nil
}

// FuturesIndex returns the live compute futures index (GET /v1/futures/index).
func (c *Client) FuturesIndex(ctx context.Context) (*FuturesIndex, error) {
	var out FuturesIndex
	resp, err := c.get(ctx, "/futures/index", nil, &out)
	if err != nil {
		return nil, err
	}
	out.Response = newResponse(resp)
	return &out, nil
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
	Response Response
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
	// PricePerH100eUSDHr is the spot price normalised to an H100-equivalent hour.
	PricePerH100eUSDHr *float64
	// Weight is the component's weight in the index (the weights add up to 1).
	Weight *float64
	// Platforms is how many platforms quote the model.
	Platforms *int
	// Raw is the component as the service sent it.
	Raw json.RawMessage
}

// UnmarshalJSON reads a component under the likely spellings of its members.
func (c *Component) UnmarshalJSON(b []byte) error {
	var w struct {
		Model          opt[text]    `json:"model"`
		GPU            opt[text]    `json:"gpu"`
		SpotPriceUSDHr opt[number]  `json:"spot_price_usd_hr"`
		SpotUSDHr      opt[number]  `json:"spot_usd_hr"`
		SpotPrice      opt[number]  `json:"spot_price"`
		PriceUSDHr     opt[number]  `json:"price_usd_hr"`
		Price          opt[number]  `json:"price"`
		H100Equivalent opt[number]  `json:"h100_equivalent"`
		H100e          opt[number]  `json:"h100e"`
		H100Ratio      opt[number]  `json:"h100_ratio"`
		PerH100e       opt[number]  `json:"price_per_h100e_usd_hr"`
		PerH100eShort  opt[number]  `json:"price_per_h100e"`
		Normalized     opt[number]  `json:"normalized_price_usd_hr"`
		Weight         opt[number]  `json:"weight"`
		IndexWeight    opt[number]  `json:"index_weight"`
		Platforms      opt[integer] `json:"platforms"`
		PlatformCount  opt[integer] `json:"platform_count"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = Component{
		Model:              texts(w.Model, w.GPU),
		SpotPriceUSDHr:     floats(w.SpotPriceUSDHr, w.SpotUSDHr, w.SpotPrice, w.PriceUSDHr, w.Price),
		H100Equivalent:     floats(w.H100Equivalent, w.H100e, w.H100Ratio),
		PricePerH100eUSDHr: floats(w.PerH100e, w.PerH100eShort, w.Normalized),
		Weight:             floats(w.Weight, w.IndexWeight),
		Platforms:          ints(w.Platforms, w.PlatformCount),
		Raw:                keepRaw(b),
	}
	return nil
}

// UnmarshalJSON reads a bare list, or an object with the list under components, data, items
// or results (a count of 0 with no list is empty).
func (f *FuturesComponents) UnmarshalJSON(b []byte) error {
	if bareArray(b) {
		var all []Component
		if err := json.Unmarshal(b, &all); err != nil {
			return err
		}
		*f = FuturesComponents{Components: all, Raw: keepRaw(b)}
		return nil
	}
	var w struct {
		Symbol     opt[text]       `json:"symbol"`
		Timestamp  opt[timestamp]  `json:"timestamp"`
		UpdatedAt  opt[timestamp]  `json:"updated_at"`
		Count      opt[integer]    `json:"count"`
		Components list[Component] `json:"components"`
		Data       list[Component] `json:"data"`
		Items      list[Component] `json:"items"`
		Results    list[Component] `json:"results"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	all, found := firstList(w.Components, w.Data, w.Items, w.Results)
	all, err := checkList("futures components", all, found, ints(w.Count), "components", "data", "items", "results")
	if err != nil {
		return err
	}
	*f = FuturesComponents{Symbol: texts(w.Symbol), Timestamp: times(w.Timestamp, w.UpdatedAt), Components: all, Raw: keepRaw(b)}
	return nil
}

// FuturesComponents returns the components of the futures index (GET
// /v1/futures/components).
func (c *Client) FuturesComponents(ctx context.Context) (*FuturesComponents, error) {
	var out FuturesComponents
	resp, err := c.get(ctx, "/futures/components", nil, &out)
	if err != nil {
		return nil, err
	}
	out.Response = newResponse(resp)
	return &out, nil
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
	Response Response
}

// BookLevel is one price level of the order book.
type BookLevel struct {
	// Price is the level's price in USD per GPU-hour.
	Price float64
	// Quantity is the GPU-hours offered at the level, when the service said.
	Quantity *float64
	// Orders is the number of orders at the level, when the service said.
	Orders *int
}

// errNoPrice is the decoding error of a book level or match without a price.
var errNoPrice = errors.New("order book: a level or match has no price")

// UnmarshalJSON reads a level as an object ({price, quantity, orders} under their likely
// spellings) or as an array [price, quantity, orders?]. A level without a price is an error.
func (l *BookLevel) UnmarshalJSON(b []byte) error {
	if bareArray(b) {
		var a []number
		if err := json.Unmarshal(b, &a); err != nil {
			return err
		}
		if len(a) == 0 {
			return errNoPrice
		}
		*l = BookLevel{Price: float64(a[0])}
		if len(a) > 1 {
			q := float64(a[1])
			l.Quantity = &q
		}
		if len(a) > 2 {
			n := int(a[2])
			l.Orders = &n
		}
		return nil
	}
	var w struct {
		Price    opt[number]  `json:"price"`
		Px       opt[number]  `json:"px"`
		Quantity opt[number]  `json:"quantity"`
		Qty      opt[number]  `json:"qty"`
		Size     opt[number]  `json:"size"`
		Amount   opt[number]  `json:"amount"`
		Orders   opt[integer] `json:"orders"`
		Count    opt[integer] `json:"count"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	p := floats(w.Price, w.Px)
	if p == nil {
		return errNoPrice
	}
	*l = BookLevel{Price: *p, Quantity: floats(w.Quantity, w.Qty, w.Size, w.Amount), Orders: ints(w.Orders, w.Count)}
	return nil
}

// Match is a recent trade of the order book.
type Match struct {
	// Price is the trade's price in USD per GPU-hour.
	Price float64
	// Quantity is the GPU-hours traded, when the service said.
	Quantity *float64
	// Side is the taker's side, such as "buy" or "sell", when the service said.
	Side string
	// MatchedAt is when the trade happened, when the service said.
	MatchedAt *time.Time
	// Raw is the match as the service sent it.
	Raw json.RawMessage
}

// UnmarshalJSON reads a match under the likely spellings of its members. A match without a
// price is an error.
func (m *Match) UnmarshalJSON(b []byte) error {
	var w struct {
		Price     opt[number]    `json:"price"`
		Px        opt[number]    `json:"px"`
		Quantity  opt[number]    `json:"quantity"`
		Qty       opt[number]    `json:"qty"`
		Size      opt[number]    `json:"size"`
		Side      opt[text]      `json:"side"`
		MatchedAt opt[timestamp] `json:"matched_at"`
		Time      opt[timestamp] `json:"time"`
		Timestamp opt[timestamp] `json:"timestamp"`
		TS        opt[timestamp] `json:"ts"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	p := floats(w.Price, w.Px)
	if p == nil {
		return errNoPrice
	}
	*m = Match{
		Price:     *p,
		Quantity:  floats(w.Quantity, w.Qty, w.Size),
		Side:      texts(w.Side),
		MatchedAt: times(w.MatchedAt, w.Time, w.Timestamp, w.TS),
		Raw:       keepRaw(b),
	}
	return nil
}

// UnmarshalJSON reads the book under the likely spellings of its members. An answer with
// neither bids nor asks is an error, never an empty book.
func (o *OrderBook) UnmarshalJSON(b []byte) error {
	var w struct {
		Market        opt[text]       `json:"market"`
		Symbol        opt[text]       `json:"symbol"`
		Model         opt[text]       `json:"model"`
		Unit          opt[text]       `json:"unit"`
		BestBid       opt[number]     `json:"best_bid"`
		BestAsk       opt[number]     `json:"best_ask"`
		Mid           opt[number]     `json:"mid"`
		MidPrice      opt[number]     `json:"mid_price"`
		Spread        opt[number]     `json:"spread"`
		Bids          list[BookLevel] `json:"bids"`
		Buys          list[BookLevel] `json:"buys"`
		Asks          list[BookLevel] `json:"asks"`
		Sells         list[BookLevel] `json:"sells"`
		Offers        list[BookLevel] `json:"offers"`
		RecentMatches list[Match]     `json:"recent_matches"`
		Matches       list[Match]     `json:"matches"`
		Trades        list[Match]     `json:"trades"`
		RecentTrades  list[Match]     `json:"recent_trades"`
		Timestamp     opt[timestamp]  `json:"timestamp"`
		Time          opt[timestamp]  `json:"time"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	bids, hasBids := firstList(w.Bids, w.Buys)
	asks, hasAsks := firstList(w.Asks, w.Sells, w.Offers)
	if !hasBids && !hasAsks {
		return noList("order book", "bids", "buys", "asks", "sells", "offers")
	}
	matches, _ := firstList(w.RecentMatches, w.Matches, w.Trades, w.RecentTrades)
	*o = OrderBook{
		Market:        texts(w.Market, w.Symbol),
		Model:         texts(w.Model),
		Unit:          texts(w.Unit),
		BestBid:       floats(w.BestBid),
		BestAsk:       floats(w.BestAsk),
		Mid:           floats(w.Mid, w.MidPrice),
		Spread:        floats(w.Spread),
		Bids:          sideOf(bids, hasBids),
		Asks:          sideOf(asks, hasAsks),
		RecentMatches: matches,
		Timestamp:     times(w.Timestamp, w.Time),
		Raw:           keepRaw(b),
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
	var out OrderBook
	resp, err := c.get(ctx, "/exchange/book", q, &out)
	if err != nil {
		return nil, err
	}
	out.Response = newResponse(resp)
	return &out, nil
}
