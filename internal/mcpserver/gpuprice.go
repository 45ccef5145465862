package mcpserver

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/usdc"
)

// gpuBuyer is what buying a gpuprice key needs: the paying wallet and the only payee.
type gpuBuyer struct {
	wallet   svm.Signer
	treasury solana.PublicKey
}

// setupGPUPrice registers the GPU-price tools when GPUPRICE_URL is set, and gpuprice_buy_key
// when a Solana wallet, node and the service's treasury are given too.
func (s *Server) setupGPUPrice(context.Context) error {
	base := s.env(gpuprice.EnvURL)
	if base == "" {
		return nil
	}
	apiKey, rpcURL := s.env(gpuprice.EnvAPIKey), s.env(gpuprice.EnvRPCURL)
	s.secrets.add(apiKey)
	opts := []gpuprice.Option{gpuprice.WithBaseURL(base), gpuprice.WithLogger(s.logger)}
	if apiKey != "" {
		opts = append(opts, gpuprice.WithAPIKey(apiKey))
	}
	if rpcURL != "" {
		opts = append(opts, gpuprice.WithRPCURL(rpcURL))
		if s.opts.Offline {
			opts = append(opts, gpuprice.WithInsecureRPC())
		}
	}
	c, err := gpuprice.New(opts...)
	if err != nil {
		return fmt.Errorf("gpuprice: %w", err)
	}
	s.services.gpuprice = c
	if rpcURL != "" {
		lookup, err := c.PurchaseLookup()
		if err != nil {
			return fmt.Errorf("gpuprice: %w", err)
		}
		s.lookups = append(s.lookups, lookup)
	}
	const free = " Free (the service's daily quota applies)."
	addTool(s, &mcp.Tool{Name: "gpuprice_prices", Annotations: readOnly,
		Description: "Lists on-demand GPU prices in USD per GPU-hour by model and platform, optionally for one model or platform." + free}, s.gpuPrices)
	addTool(s, &mcp.Tool{Name: "gpuprice_cheapest", Annotations: readOnly,
		Description: "Returns the cheapest on-demand platform for a GPU model (such as H100) with every platform's price." + free}, s.gpuCheapest)
	addTool(s, &mcp.Tool{Name: "gpuprice_platforms", Annotations: readOnly,
		Description: "Lists the GPU clouds and marketplaces the indexes cover." + free}, s.gpuPlatforms)
	addTool(s, &mcp.Tool{Name: "gpuprice_futures", Annotations: readOnly,
		Description: "Returns the compute futures index (USD per H100-equivalent hour, bid, ask, spread) and its components." + free}, s.gpuFutures)
	addTool(s, &mcp.Tool{Name: "gpuprice_order_book", Annotations: readOnly,
		Description: "Returns the spot order book of a GPU model: bids, asks and recent matches." + free}, s.gpuOrderBook)
	addTool(s, &mcp.Tool{Name: "gpuprice_history", Annotations: readOnly,
		Description: "Returns the price history of a model (and platform). Needs a Pro or Unlimited key: buy one with gpuprice_buy_key; the server keeps it."}, s.gpuHistory)
	wallet, treasury := s.env(EnvSolanaPrivateKey), s.env(EnvGPUPriceTreasury)
	if wallet == "" || treasury == "" || rpcURL == "" {
		return nil
	}
	s.secrets.add(wallet)
	signer, err := svm.PrivateKeySignerFromBase58(wallet)
	if err != nil {
		return fmt.Errorf("%s is not a base58 Solana private key", EnvSolanaPrivateKey)
	}
	t, err := solana.PublicKeyFromBase58(treasury)
	if err != nil {
		return fmt.Errorf("%s: %w", EnvGPUPriceTreasury, err)
	}
	s.services.gpuBuyer = &gpuBuyer{wallet: signer, treasury: t}
	addTool(s, &mcp.Tool{Name: "gpuprice_buy_key", Annotations: paid,
		Description: "Buys a one-month gpuprice API key with a USDC payment on Solana from the server's budget: pro costs $5.00 (1,000 requests a day, history), unlimited $19.00. The server keeps the key for gpuprice_history and shows it masked."},
		s.gpuBuyKey)
	return nil
}

// GPUFilterIn is the input of gpuprice_prices.
type GPUFilterIn struct {
	Model    string `json:"model,omitempty" bounds:"max=40" pattern:"^[A-Za-z0-9 ._-]*$" jsonschema:"a GPU model, such as H100 (all when empty)"`
	Platform string `json:"platform,omitempty" bounds:"max=40" pattern:"^[A-Za-z0-9 ._-]*$" jsonschema:"a platform id, such as aws (all when empty)"`
}

// GPUPrice is one price of the table.
type GPUPrice struct {
	Model      string   `json:"model"`
	Platform   string   `json:"platform"`
	USDPerHour *float64 `json:"usd_per_hour,omitempty"`
	VRAMGB     *float64 `json:"vram_gb,omitempty"`
}

// GPUPricesOut is what gpuprice_prices returns.
type GPUPricesOut struct {
	Prices []GPUPrice `json:"prices"`
}

// gpuPrices returns the price table.
func (s *Server) gpuPrices(ctx context.Context, _ *mcp.CallToolRequest, in GPUFilterIn) (GPUPricesOut, string, error) {
	t, err := s.services.gpuprice.GPUs(ctx, &gpuprice.GPUsParams{Model: in.Model, Platform: in.Platform})
	if err != nil {
		return GPUPricesOut{}, "", err
	}
	out := GPUPricesOut{Prices: []GPUPrice{}}
	for _, p := range t.Prices {
		out.Prices = append(out.Prices, GPUPrice{Model: p.Model, Platform: p.Platform, USDPerHour: p.USDPerHour, VRAMGB: p.VRAMGB})
	}
	return out, fmt.Sprintf("%d prices", len(out.Prices)), nil
}

// ModelIn names a GPU model.
type ModelIn struct {
	Model string `json:"model" bounds:"min=1,max=40" pattern:"^[A-Za-z0-9 ._-]+$" jsonschema:"a GPU model, such as H100"`
}

// CheapestOut is what gpuprice_cheapest returns.
type CheapestOut struct {
	Model              string             `json:"model"`
	BestPlatform       string             `json:"best_platform"`
	BestPriceUSDHr     float64            `json:"best_usd_per_hour"`
	SavingPctVsDearest float64            `json:"saving_pct_vs_dearest"`
	AllOnDemand        map[string]float64 `json:"all_on_demand" jsonschema:"every platform's on-demand price in USD per GPU-hour"`
}

// gpuCheapest returns the cheapest platform of a model.
func (s *Server) gpuCheapest(ctx context.Context, _ *mcp.CallToolRequest, in ModelIn) (CheapestOut, string, error) {
	c, err := s.services.gpuprice.Cheapest(ctx, in.Model)
	if err != nil {
		return CheapestOut{}, "", err
	}
	out := CheapestOut{Model: c.Model, BestPlatform: c.BestPlatform, BestPriceUSDHr: c.BestPriceUSDHr, SavingPctVsDearest: c.SavingPctVsDearest, AllOnDemand: c.AllOnDemand}
	if out.AllOnDemand == nil {
		out.AllOnDemand = map[string]float64{}
	}
	return out, fmt.Sprintf("cheapest %s: $%.2f/h on %s", c.Model, c.BestPriceUSDHr, c.BestPlatform), nil
}

// PlatformOut is one platform.
type PlatformOut struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Kind    string   `json:"kind,omitempty"`
	Website string   `json:"website,omitempty"`
	Models  []string `json:"models,omitempty"`
}

// PlatformsOut is what gpuprice_platforms returns.
type PlatformsOut struct {
	Platforms []PlatformOut `json:"platforms"`
}

// gpuPlatforms lists the platforms.
func (s *Server) gpuPlatforms(ctx context.Context, _ *mcp.CallToolRequest, _ BudgetIn) (PlatformsOut, string, error) {
	d, err := s.services.gpuprice.Platforms(ctx)
	if err != nil {
		return PlatformsOut{}, "", err
	}
	out := PlatformsOut{Platforms: []PlatformOut{}}
	for _, p := range d.Platforms {
		out.Platforms = append(out.Platforms, PlatformOut{ID: p.ID, Name: p.Name, Kind: p.Kind, Website: p.Website, Models: p.Models})
	}
	return out, fmt.Sprintf("%d platforms", len(out.Platforms)), nil
}

// FuturesComponent is one component of the futures index.
type FuturesComponent struct {
	Model          string   `json:"model"`
	SpotPriceUSDHr *float64 `json:"spot_usd_per_hour,omitempty"`
	H100Equivalent *float64 `json:"h100_equivalent,omitempty"`
	Weight         *float64 `json:"weight,omitempty"`
}

// FuturesOut is what gpuprice_futures returns.
type FuturesOut struct {
	Symbol     string             `json:"symbol"`
	Value      *float64           `json:"value,omitempty" jsonschema:"USD per H100-equivalent hour"`
	Bid        *float64           `json:"bid,omitempty"`
	Ask        *float64           `json:"ask,omitempty"`
	Spread     *float64           `json:"spread,omitempty"`
	Components []FuturesComponent `json:"components"`
}

// gpuFutures returns the futures index and its components.
func (s *Server) gpuFutures(ctx context.Context, _ *mcp.CallToolRequest, _ BudgetIn) (FuturesOut, string, error) {
	x, err := s.services.gpuprice.FuturesIndex(ctx)
	if err != nil {
		return FuturesOut{}, "", err
	}
	comps, err := s.services.gpuprice.FuturesComponents(ctx)
	if err != nil {
		return FuturesOut{}, "", err
	}
	out := FuturesOut{Symbol: x.Symbol, Value: x.Value, Bid: x.Bid, Ask: x.Ask, Spread: x.Spread, Components: []FuturesComponent{}}
	for _, c := range comps.Components {
		out.Components = append(out.Components, FuturesComponent{Model: c.Model, SpotPriceUSDHr: c.SpotPriceUSDHr, H100Equivalent: c.H100Equivalent, Weight: c.Weight})
	}
	text := "futures index " + x.Symbol
	if x.Value != nil {
		text += fmt.Sprintf(": $%.4f per H100-equivalent hour", *x.Value)
	}
	return out, text, nil
}

// BookLevel is one level of an order book.
type BookLevel struct {
	Price    *float64 `json:"price,omitempty"`
	Quantity *float64 `json:"quantity,omitempty"`
	Orders   *int     `json:"orders,omitempty"`
}

// OrderBookOut is what gpuprice_order_book returns.
type OrderBookOut struct {
	Model   string      `json:"model"`
	BestBid *float64    `json:"best_bid,omitempty"`
	BestAsk *float64    `json:"best_ask,omitempty"`
	Mid     *float64    `json:"mid,omitempty"`
	Bids    []BookLevel `json:"bids"`
	Asks    []BookLevel `json:"asks"`
	Matches int         `json:"recent_matches"`
}

// OptionalModelIn names a GPU model, or none.
type OptionalModelIn struct {
	Model string `json:"model,omitempty" bounds:"max=40" pattern:"^[A-Za-z0-9 ._-]*$" jsonschema:"a GPU model, such as H100 (the service's default book when empty)"`
}

// gpuOrderBook returns a model's order book.
func (s *Server) gpuOrderBook(ctx context.Context, _ *mcp.CallToolRequest, in OptionalModelIn) (OrderBookOut, string, error) {
	b, err := s.services.gpuprice.OrderBook(ctx, in.Model)
	if err != nil {
		return OrderBookOut{}, "", err
	}
	levels := func(ls []gpuprice.BookLevel) []BookLevel {
		out := []BookLevel{}
		for _, l := range ls {
			out = append(out, BookLevel{Price: l.Price, Quantity: l.Quantity, Orders: l.Orders})
		}
		return out
	}
	out := OrderBookOut{Model: b.Model, BestBid: b.BestBid, BestAsk: b.BestAsk, Mid: b.Mid, Bids: levels(b.Bids), Asks: levels(b.Asks), Matches: len(b.RecentMatches)}
	return out, fmt.Sprintf("%s book: %d bids, %d asks", b.Model, len(out.Bids), len(out.Asks)), nil
}

// HistoryIn is the input of gpuprice_history.
type HistoryIn struct {
	Model    string `json:"model" bounds:"min=1,max=40" pattern:"^[A-Za-z0-9 ._-]+$" jsonschema:"a GPU model, such as H100"`
	Platform string `json:"platform,omitempty" bounds:"max=40" pattern:"^[A-Za-z0-9 ._-]*$"`
	Days     int    `json:"days,omitempty" bounds:"min=0,max=365" jsonschema:"how many days back (the service's default when 0)"`
	Limit    int    `json:"limit,omitempty" bounds:"min=0,max=1000" jsonschema:"the most snapshots"`
}

// Snapshot is one price of the history.
type Snapshot struct {
	Time       string   `json:"time,omitempty"`
	Platform   string   `json:"platform"`
	USDPerHour *float64 `json:"usd_per_hour,omitempty"`
}

// HistoryOut is what gpuprice_history returns.
type HistoryOut struct {
	Model     string     `json:"model"`
	Snapshots []Snapshot `json:"snapshots"`
}

// gpuHistory returns the price history, with the key the server holds.
func (s *Server) gpuHistory(ctx context.Context, _ *mcp.CallToolRequest, in HistoryIn) (HistoryOut, string, error) {
	p := &gpuprice.HistoryParams{Model: in.Model, Platform: in.Platform, Limit: in.Limit}
	if in.Days > 0 {
		p.From = time.Now().AddDate(0, 0, -in.Days)
	}
	h, err := s.services.gpuprice.History(ctx, p)
	if err != nil {
		return HistoryOut{}, "", err
	}
	out := HistoryOut{Model: in.Model, Snapshots: []Snapshot{}}
	for _, sn := range h.Snapshots {
		o := Snapshot{Platform: sn.Platform, USDPerHour: sn.USDPerHour}
		if sn.Timestamp != nil {
			o.Time = sn.Timestamp.UTC().Format(time.RFC3339)
		}
		out.Snapshots = append(out.Snapshots, o)
	}
	return out, fmt.Sprintf("%d snapshots of %s", len(out.Snapshots), in.Model), nil
}

// BuyKeyIn is the input of gpuprice_buy_key.
type BuyKeyIn struct {
	Plan      string `json:"plan" bounds:"max=20" enum:"pro|unlimited" jsonschema:"pro ($5.00 a month) or unlimited ($19.00 a month)"`
	MaxAmount string `json:"max_amount,omitempty" bounds:"max=20" pattern:"^\\$?[0-9]{1,9}(\\.[0-9]{1,6})?$" jsonschema:"the most this call may pay in dollars; the policy's limits apply too"`
}

// KeyOut describes a key the server holds, masked.
type KeyOut struct {
	Key       string `json:"key" jsonschema:"the key, masked: the server keeps it and uses it"`
	Plan      string `json:"plan"`
	ExpiresAt string `json:"expires_at,omitempty"`
	Paid      Paid   `json:"paid"`
}

// gpuBuyKey buys a key under the server's rules and budget; the client keeps using it.
func (s *Server) gpuBuyKey(ctx context.Context, _ *mcp.CallToolRequest, in BuyKeyIn) (KeyOut, string, error) {
	plan := gpuprice.Plan(in.Plan)
	price, ok := plan.Price()
	if !ok {
		return KeyOut{}, "", fmt.Errorf("plan %q: pro or unlimited", in.Plan)
	}
	ctx, err := withMax(ctx, in.MaxAmount)
	if err != nil {
		return KeyOut{}, "", err
	}
	amount := price
	b := s.services.gpuBuyer
	host := ""
	if u, err := url.Parse(s.env(gpuprice.EnvURL)); err == nil {
		host = u.Host
	}
	if err := s.approve(ctx, payment{amount: amount, payTo: b.treasury.String(), host: host, what: "a " + in.Plan + " key"}); err != nil {
		return KeyOut{}, "", err
	}
	key, err := s.services.gpuprice.BuyKey(ctx, &gpuprice.BuyKeyParams{Plan: plan, Payer: b.wallet, Treasury: b.treasury, Budget: s.budget})
	if err != nil {
		return KeyOut{}, "", err
	}
	s.secrets.add(key.Key.Reveal(), key.TxSignature.Reveal())
	out := KeyOut{Key: key.Key.String(), Plan: string(key.Plan), Paid: Paid{Amount: money(amount), PayTo: b.treasury.String(), Network: "solana"}}
	if key.ExpiresAt != nil {
		out.ExpiresAt = key.ExpiresAt.UTC().Format(time.RFC3339)
	}
	return out, fmt.Sprintf("bought a %s key %s for %s; the server uses it from now on", out.Plan, out.Key, usdc.Format(amount)), nil
}
