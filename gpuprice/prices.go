package gpuprice

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/jsonmember"
)

// GPUsParams narrow the on-demand price table; an empty field does not filter.
type GPUsParams struct {
	// Model is a GPU model such as "H100" (the query parameter model).
	Model string
	// Platform is a platform such as "aws" (the query parameter platform).
	Platform string
}

// PriceTable is the on-demand price table of GET /v1/gpus: a price per model and platform.
type PriceTable struct {
	// Prices are the rows of the table.
	Prices []Price
	// UpdatedAt is when the service last refreshed the table, when it said.
	UpdatedAt *time.Time
	// Currency and Unit are the currency and time unit of the prices, when the service
	// named them (such as "USD" and "hour").
	Currency, Unit string
	// Raw is the response body.
	Raw json.RawMessage
	// Response describes the HTTP response, rate-limit headers included.
	Response sdk.Response
}

// Price is the on-demand price of one GPU model on one platform.
type Price struct {
	// Model is the GPU model, such as "H100".
	Model string
	// Platform is the platform, such as "aws".
	Platform string
	// USDPerHour is the on-demand price in USD per GPU-hour; nil when the row had none. It is
	// third-party market data, never an amount the SDK pays, hence a float64.
	USDPerHour *float64
	// PlatformName is the platform's display name, such as "Amazon Web Services", when the
	// row said.
	PlatformName string
	// VRAMGB is the GPU's memory in GB, when the row said.
	VRAMGB *float64
	// H100Equivalent is how many H100s one GPU of the model is worth, when the row said.
	H100Equivalent *float64
	// UpdatedAt is when the price was last refreshed, when the row said.
	UpdatedAt *time.Time
	// Raw is the row as the service sent it.
	Raw json.RawMessage
}

// UnmarshalJSON reads a row under the spellings of its members.
func (p *Price) UnmarshalJSON(b []byte) error {
	m, err := readMembers(b)
	if err != nil {
		return err
	}
	*p = Price{
		Model:          m.text(fieldModel),
		Platform:       m.text(fieldPlatform),
		USDPerHour:     m.number(fieldHourPrice),
		PlatformName:   m.text(fieldPlatformName),
		VRAMGB:         m.number(fieldMemoryGB),
		H100Equivalent: m.number(fieldH100Equivalent),
		UpdatedAt:      m.time(fieldTime),
		Raw:            bytes.Clone(b),
	}
	return nil
}

// UnmarshalJSON reads the table: an object with the list under prices, gpus, data, items,
// results or rows, in any of their spellings (a count of 0 with no list is an empty table),
// or a bare list. An answer in which no list is found is an error, never an empty table.
func (t *PriceTable) UnmarshalJSON(b []byte) error {
	rows, m, err := listAnswer[Price](b, "price table", fieldPriceRows)
	if err != nil {
		return err
	}
	*t = PriceTable{
		Prices:    rows,
		UpdatedAt: m.time(fieldTime),
		Currency:  m.text(fieldCurrency),
		Unit:      m.text(fieldUnit),
		Raw:       bytes.Clone(b),
	}
	return nil
}

// GPUs returns the on-demand price table (GET /v1/gpus), narrowed by params (nil for the
// whole table).
func (c *Client) GPUs(ctx context.Context, params *GPUsParams) (*PriceTable, error) {
	q := url.Values{}
	if params != nil {
		if err := setName(q, "model", params.Model); err != nil {
			return nil, err
		}
		if err := setName(q, "platform", params.Platform); err != nil {
			return nil, err
		}
	}
	return get(ctx, c, "/gpus", q, func(p *PriceTable) *sdk.Response { return &p.Response })
}

// maxNameLen bounds a model or platform name.
const maxNameLen = 100

// setName sets the query parameter param to a model or platform name, when not empty,
// refusing a blank name, one with control characters and a very long one.
func setName(q url.Values, param, name string) error {
	switch {
	case name == "":
		return nil
	case strings.TrimSpace(name) == "":
		return invalid(param, "must not be blank")
	case len(name) > maxNameLen:
		return invalid(param, "is longer than 100 bytes")
	case strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return invalid(param, "must not contain control characters")
	}
	q.Set(param, name)
	return nil
}

// CheapestPrice is the best on-demand price of one GPU model, from GET /v1/cheapest, in the
// shape the API description shows. Every member is required.
type CheapestPrice struct {
	// Model is the GPU model.
	Model string
	// BestPlatform is the platform with the lowest price.
	BestPlatform string
	// BestPriceUSDHr is that price, in USD per GPU-hour.
	BestPriceUSDHr float64
	// SavingPctVsDearest is the saving of the best price against the dearest platform, in
	// percent.
	SavingPctVsDearest float64
	// AllOnDemand maps every platform to its on-demand price in USD per GPU-hour.
	AllOnDemand map[string]float64
	// Raw is the object as the service sent it.
	Raw json.RawMessage
	// Response describes the HTTP response, for a price returned by Client.Cheapest; zero
	// inside a list.
	Response sdk.Response
}

// UnmarshalJSON reads the object and refuses one that lacks a member the API description
// names (or sends it as null), or carries one of another type.
func (p *CheapestPrice) UnmarshalJSON(b []byte) error {
	var w struct {
		Model              *string             `json:"model"`
		BestPlatform       *string             `json:"best_platform"`
		BestPriceUSDHr     *float64            `json:"best_price_usd_hr"`
		SavingPctVsDearest *float64            `json:"saving_pct_vs_dearest"`
		AllOnDemand        *map[string]float64 `json:"all_on_demand"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	switch {
	case w.Model == nil:
		return jsonmember.Missing("cheapest price", "model")
	case w.BestPlatform == nil:
		return jsonmember.Missing("cheapest price", "best_platform")
	case w.BestPriceUSDHr == nil:
		return jsonmember.Missing("cheapest price", "best_price_usd_hr")
	case w.SavingPctVsDearest == nil:
		return jsonmember.Missing("cheapest price", "saving_pct_vs_dearest")
	case w.AllOnDemand == nil:
		return jsonmember.Missing("cheapest price", "all_on_demand")
	}
	*p = CheapestPrice{
		Model:              *w.Model,
		BestPlatform:       *w.BestPlatform,
		BestPriceUSDHr:     *w.BestPriceUSDHr,
		SavingPctVsDearest: *w.SavingPctVsDearest,
		AllOnDemand:        *w.AllOnDemand,
		Raw:                bytes.Clone(b),
	}
	return nil
}

// Cheapest returns the best on-demand price of model, such as "H100" (GET
// /v1/cheapest?model=). An empty model is an *sdk.ValidationError; CheapestAll lists every
// model.
func (c *Client) Cheapest(ctx context.Context, model string) (*CheapestPrice, error) {
	if model == "" {
		return nil, invalid("model", "is required; CheapestAll lists every model")
	}
	q := url.Values{}
	if err := setName(q, "model", model); err != nil {
		return nil, err
	}
	return get(ctx, c, "/cheapest", q, func(p *CheapestPrice) *sdk.Response { return &p.Response })
}

// CheapestList is the best price of every model, from GET /v1/cheapest without a model.
type CheapestList struct {
	// Prices holds one best price per model; each has every member the API description
	// names.
	Prices []CheapestPrice
	// Raw is the response body.
	Raw json.RawMessage
	// Response describes the HTTP response.
	Response sdk.Response
}

// UnmarshalJSON reads a bare list, or an object with the list under cheapest, models, data,
// items or results, in any of their spellings (a count of 0 with no list is empty).
func (l *CheapestList) UnmarshalJSON(b []byte) error {
	all, _, err := listAnswer[CheapestPrice](b, "cheapest prices", fieldCheapestList)
	if err != nil {
		return err
	}
	*l = CheapestList{Prices: all, Raw: bytes.Clone(b)}
	return nil
}

// CheapestAll returns the best on-demand price of every model (GET /v1/cheapest without a
// model; the API description shows only the one-model answer, so the list is read
// leniently while each price is read strictly).
func (c *Client) CheapestAll(ctx context.Context) (*CheapestList, error) {
	return get(ctx, c, "/cheapest", nil, func(p *CheapestList) *sdk.Response { return &p.Response })
}

// PlatformDirectory is the platform directory of GET /v1/platforms.
type PlatformDirectory struct {
	// Platforms are the platforms the indexes cover.
	Platforms []Platform
	// Raw is the response body.
	Raw json.RawMessage
	// Response describes the HTTP response.
	Response sdk.Response
}

// Platform is a GPU cloud or marketplace the indexes cover.
type Platform struct {
	// ID is the platform's identifier as the other endpoints spell it, such as "aws".
	ID string
	// Name is its display name.
	Name string
	// Kind is its kind, such as "hyperscaler" or "marketplace", when the service said.
	Kind string
	// Website is its address, when the service said.
	Website string
	// OnDemandIndex reports whether it is in the on-demand price table; nil when unknown.
	OnDemandIndex *bool
	// FuturesIndex reports whether it is in the futures index; nil when unknown.
	FuturesIndex *bool
	// Models are the GPU models it quotes, when the service listed them.
	Models []string
	// Raw is the entry as the service sent it.
	Raw json.RawMessage
}

// UnmarshalJSON reads an object under the spellings of its members, or a bare name. The
// identifier is id (or slug, key, platform_id, platform), else name, else the display name;
// the display name is display_name, else name (or platform_name, title, label), else the
// identifier.
func (p *Platform) UnmarshalJSON(b []byte) error {
	var name string
	if json.Unmarshal(b, &name) == nil {
		*p = Platform{ID: name, Name: name, Raw: bytes.Clone(b)}
		return nil
	}
	m, err := readMembers(b)
	if err != nil {
		return err
	}
	models, _ := first[[]string](m, fieldModels)
	*p = Platform{
		// {"name": "aws", "display_name": "Amazon Web Services"}: beside a display name, name
		// is the identifier.
		ID:            m.text(fieldPlatformID, fieldName, fieldDisplayName),
		Name:          m.text(fieldDisplayName, fieldPlatformID),
		Kind:          m.text(fieldKind),
		Website:       m.text(fieldWebsite),
		OnDemandIndex: m.flag(fieldOnDemandIndex),
		FuturesIndex:  m.flag(fieldFuturesIndex),
		Models:        models,
		Raw:           bytes.Clone(b),
	}
	return nil
}

// UnmarshalJSON reads a bare list, or an object with the list under platforms, data, items
// or results, in any of their spellings (a count of 0 with no list is empty).
func (d *PlatformDirectory) UnmarshalJSON(b []byte) error {
	all, _, err := listAnswer[Platform](b, "platform directory", fieldPlatformList)
	if err != nil {
		return err
	}
	*d = PlatformDirectory{Platforms: all, Raw: bytes.Clone(b)}
	return nil
}

// Platforms returns the platform directory (GET /v1/platforms).
func (c *Client) Platforms(ctx context.Context) (*PlatformDirectory, error) {
	return get(ctx, c, "/platforms", nil,
		func(p *PlatformDirectory) *sdk.Response { return &p.Response })
}

// Health is the service status of GET /v1/health. The API description does not show the
// body: a JSON object is read under the likely spellings of its members ({"ok": true} reads
// as status "ok"), and a body of plain text, such as ok or OK (or a JSON string), is the
// status itself.
type Health struct {
	// Status is the service's status, such as "ok".
	Status string
	// Service and Version name the service and its version, when it said.
	Service, Version string
	// Time is the service's clock, when it said.
	Time *time.Time
	// LastRefresh is when the data were last refreshed, when the service said.
	LastRefresh *time.Time
	// Raw is the response body.
	Raw json.RawMessage
	// Response describes the HTTP response.
	Response sdk.Response
}

// Health returns the service status (GET /v1/health). The endpoint is public: the API key is
// not sent. A body that starts as a JSON object but does not decode is an *sdk.DecodeError.
func (c *Client) Health(ctx context.Context) (*Health, error) {
	req := &httpcore.Request{Method: http.MethodGet, Path: "/v1/health", Credentials: anonymous}
	resp, err := c.core.Do(ctx, req, nil) // decoded below: the body may be plain text
	if err != nil {
		return nil, err
	}
	var out Health
	if err := c.core.Decode(req, resp, out.decode); err != nil {
		return nil, err
	}
	out.Response = resp.Meta()
	return &out, nil
}

// decode reads a health body: a JSON object, else a status as a JSON string or plain text.
func (h *Health) decode(body []byte) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		var s string
		if json.Unmarshal(trimmed, &s) != nil {
			s = string(trimmed)
		}
		*h = Health{Status: s, Raw: bytes.Clone(body)}
		return nil
	}
	m, err := readMembers(body)
	if err != nil {
		return err
	}
	status := m.text(fieldStatus)
	if ok := m.flag(fieldOK); status == "" && ok != nil {
		status = map[bool]string{true: "ok", false: "error"}[*ok]
	}
	*h = Health{
		Status:      status,
		Service:     m.text(fieldService),
		Version:     m.text(fieldVersion),
		Time:        m.time(fieldClock),
		LastRefresh: m.time(fieldRefreshed),
		Raw:         bytes.Clone(body),
	}
	return nil
}
