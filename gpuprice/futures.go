package gpuprice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/lenient"
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

// UnmarshalJSON reads the index under the likely spellings of its members.
func (x *FuturesIndex) UnmarshalJSON(b []byte) error {
	var w struct {
		Symbol         lenient.Opt[lenient.Text]   `json:"symbol"`
		Ticker         lenient.Opt[lenient.Text]   `json:"ticker"`
		Name           lenient.Opt[lenient.Text]   `json:"name"`
		Value          lenient.Opt[lenient.Number] `json:"value"`
		Index          lenient.Opt[lenient.Number] `json:"index"`
		IndexValue     lenient.Opt[lenient.Number] `json:"index_value"`
		Level          lenient.Opt[lenient.Number] `json:"level"`
		Price          lenient.Opt[lenient.Number] `json:"price"`
		Bid            lenient.Opt[lenient.Number] `json:"bid"`
		BestBid        lenient.Opt[lenient.Number] `json:"best_bid"`
		Ask            lenient.Opt[lenient.Number] `json:"ask"`
		BestAsk        lenient.Opt[lenient.Number] `json:"best_ask"`
		Spread         lenient.Opt[lenient.Number] `json:"spread"`
		SpreadBPS      lenient.Opt[lenient.Number] `json:"spread_bps"`
		Currency       lenient.Opt[lenient.Text]   `json:"currency"`
		Unit           lenient.Opt[lenient.Text]   `json:"unit"`
		Basis          lenient.Opt[lenient.Text]   `json:"basis"`
		Platforms      lenient.Opt[integer]        `json:"platforms"`
		PlatformCount  lenient.Opt[integer]        `json:"platform_count"`
		Models         lenient.Opt[integer]        `json:"models"`
		ModelCount     lenient.Opt[integer]        `json:"model_count"`
		Timestamp      lenient.Opt[timestamp]      `json:"timestamp"`
		Time           lenient.Opt[timestamp]      `json:"time"`
		UpdatedAt      lenient.Opt[timestamp]      `json:"updated_at"`
		PlatformsCount lenient.Opt[integer]        `json:"platforms_count"`
		ModelsCount    lenient.Opt[integer]        `json:"models_count"`
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
		Raw:       bytes.Clone(b),
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
	out.Response = resp.Meta()
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
		Model          lenient.Opt[lenient.Text]   `json:"model"`
		GPU            lenient.Opt[lenient.Text]   `json:"gpu"`
		SpotPriceUSDHr lenient.Opt[lenient.Number] `json:"spot_price_usd_hr"`
		SpotUSDHr      lenient.Opt[lenient.Number] `json:"spot_usd_hr"`
		SpotPrice      lenient.Opt[lenient.Number] `json:"spot_price"`
		PriceUSDHr     lenient.Opt[lenient.Number] `json:"price_usd_hr"`
		Price          lenient.Opt[lenient.Number] `json:"price"`
		H100Equivalent lenient.Opt[lenient.Number] `json:"h100_equivalent"`
		H100e          lenient.Opt[lenient.Number] `json:"h100e"`
		H100Ratio      lenient.Opt[lenient.Number] `json:"h100_ratio"`
		PerH100e       lenient.Opt[lenient.Number] `json:"price_per_h100e_usd_hr"`
		PerH100eShort  lenient.Opt[lenient.Number] `json:"price_per_h100e"`
		Normalized     lenient.Opt[lenient.Number] `json:"normalized_price_usd_hr"`
		Weight         lenient.Opt[lenient.Number] `json:"weight"`
		IndexWeight    lenient.Opt[lenient.Number] `json:"index_weight"`
		Platforms      lenient.Opt[integer]        `json:"platforms"`
		PlatformCount  lenient.Opt[integer]        `json:"platform_count"`
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
		Raw:                bytes.Clone(b),
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
		*f = FuturesComponents{Components: all, Raw: bytes.Clone(b)}
		return nil
	}
	var w struct {
		Symbol     lenient.Opt[lenient.Text]  `json:"symbol"`
		Timestamp  lenient.Opt[timestamp]     `json:"timestamp"`
		UpdatedAt  lenient.Opt[timestamp]     `json:"updated_at"`
		Count      lenient.Opt[integer]       `json:"count"`
		Components lenient.Field[[]Component] `json:"components"`
		Data       lenient.Field[[]Component] `json:"data"`
		Items      lenient.Field[[]Component] `json:"items"`
		Results    lenient.Field[[]Component] `json:"results"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	all, found := lenient.FirstField(w.Components, w.Data, w.Items, w.Results)
	all, err := lenient.List("futures components", all, found, ints(w.Count), "components", "data", "items", "results")
	if err != nil {
		return err
	}
	*f = FuturesComponents{Symbol: texts(w.Symbol), Timestamp: times(w.Timestamp, w.UpdatedAt), Components: all, Raw: bytes.Clone(b)}
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
	out.Response = resp.Meta()
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
	Response sdk.Response
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

// errNoSide is the decoding error of an order book with neither bids nor asks.
var errNoSide = errors.New("order book: no list found (looked for bids, buys, asks, sells, offers)")

// errNoPrice is the decoding error of a book level or match without a price.
var errNoPrice = errors.New("order book: a level or match has no price")

// UnmarshalJSON reads a level as an object ({price, quantity, orders} under their likely
// spellings) or as an array [price, quantity, orders?]. A level without a price is an error.
func (l *BookLevel) UnmarshalJSON(b []byte) error {
	if bareArray(b) {
		var a []json.RawMessage
		if err := json.Unmarshal(b, &a); err != nil {
			return err
		}
		var price, quantity lenient.Opt[lenient.Number]
		var orders lenient.Opt[integer]
		for i, dst := range []json.Unmarshaler{&price, &quantity, &orders} {
			if i < len(a) {
				_ = dst.UnmarshalJSON(a[i]) // an Opt never fails
			}
		}
		p := floats(price)
		if p == nil {
			return errNoPrice
		}
		*l = BookLevel{Price: *p, Quantity: floats(quantity), Orders: ints(orders)}
		return nil
	}
	var w struct {
		Price    lenient.Opt[lenient.Number] `json:"price"`
		Px       lenient.Opt[lenient.Number] `json:"px"`
		Quantity lenient.Opt[lenient.Number] `json:"quantity"`
		Qty      lenient.Opt[lenient.Number] `json:"qty"`
		Size     lenient.Opt[lenient.Number] `json:"size"`
		Amount   lenient.Opt[lenient.Number] `json:"amount"`
		Orders   lenient.Opt[integer]        `json:"orders"`
		Count    lenient.Opt[integer]        `json:"count"`
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
		Price     lenient.Opt[lenient.Number] `json:"price"`
		Px        lenient.Opt[lenient.Number] `json:"px"`
		Quantity  lenient.Opt[lenient.Number] `json:"quantity"`
		Qty       lenient.Opt[lenient.Number] `json:"qty"`
		Size      lenient.Opt[lenient.Number] `json:"size"`
		Side      lenient.Opt[lenient.Text]   `json:"side"`
		MatchedAt lenient.Opt[timestamp]      `json:"matched_at"`
		Time      lenient.Opt[timestamp]      `json:"time"`
		Timestamp lenient.Opt[timestamp]      `json:"timestamp"`
		TS        lenient.Opt[timestamp]      `json:"ts"`
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
		Raw:       bytes.Clone(b),
	}
	return nil
}

// UnmarshalJSON reads the book under the likely spellings of its members. An answer with
// neither bids nor asks is an error, never an empty book.
func (o *OrderBook) UnmarshalJSON(b []byte) error {
	var w struct {
		Market        lenient.Opt[lenient.Text]   `json:"market"`
		Symbol        lenient.Opt[lenient.Text]   `json:"symbol"`
		Model         lenient.Opt[lenient.Text]   `json:"model"`
		Unit          lenient.Opt[lenient.Text]   `json:"unit"`
		BestBid       lenient.Opt[lenient.Number] `json:"best_bid"`
		BestAsk       lenient.Opt[lenient.Number] `json:"best_ask"`
		Mid           lenient.Opt[lenient.Number] `json:"mid"`
		MidPrice      lenient.Opt[lenient.Number] `json:"mid_price"`
		Spread        lenient.Opt[lenient.Number] `json:"spread"`
		Bids          lenient.Field[[]BookLevel]  `json:"bids"`
		Buys          lenient.Field[[]BookLevel]  `json:"buys"`
		Asks          lenient.Field[[]BookLevel]  `json:"asks"`
		Sells         lenient.Field[[]BookLevel]  `json:"sells"`
		Offers        lenient.Field[[]BookLevel]  `json:"offers"`
		RecentMatches lenient.Field[[]Match]      `json:"recent_matches"`
		Matches       lenient.Field[[]Match]      `json:"matches"`
		Trades        lenient.Field[[]Match]      `json:"trades"`
		RecentTrades  lenient.Field[[]Match]      `json:"recent_trades"`
		Timestamp     lenient.Opt[timestamp]      `json:"timestamp"`
		Time          lenient.Opt[timestamp]      `json:"time"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	bids, hasBids := lenient.FirstField(w.Bids, w.Buys)
	asks, hasAsks := lenient.FirstField(w.Asks, w.Sells, w.Offers)
	if !hasBids && !hasAsks {
		return errNoSide
	}
	matches, _ := lenient.FirstField(w.RecentMatches, w.Matches, w.Trades, w.RecentTrades)
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
	var out OrderBook
	resp, err := c.get(ctx, "/exchange/book", q, &out)
	if err != nil {
		return nil, err
	}
	out.Response = resp.Meta()
	return &out, nil
}
