package gpuprice

// quantity is a member the price API may send in a body whose members the API description
// does not show ("not shown"): every body but the cheapest price.
type quantity int

// The quantities the package reads, each under the names spellings lists.
const (
	qModel quantity = iota
	qPlatform
	qPlatformName
	qPlatformID
	qName
	qDisplayName
	qKind
	qWebsite
	qCurrency
	qUnit
	qBasis
	qSymbol
	qMarket
	qInterval
	qSide
	qStatus
	qService
	qVersion
	qPlan
	qAPIKey

	qHourPrice
	qIndexValue
	qSpotPrice
	qPerH100e
	qH100Equivalent
	qMemoryGB
	qWeight
	qMin
	qMax
	qMean
	qChangePct
	qBid
	qAsk
	qMid
	qSpread
	qSpreadBPS
	qQuantity
	qOrders
	qPlatformCount
	qModelCount
	qSamples
	qTotal
	qCount

	qTruncated
	qOK
	qOnDemandIndex
	qFuturesIndex
	qModels

	qTime
	qMatchedAt
	qClock
	qRefreshed
	qFrom
	qTo
	qExpires
	qReset

	qPriceRows
	qCheapestList
	qPlatformList
	qComponentList
	qSnapshots
	qBenchmarks
	qBids
	qAsks
	qMatches
	qData
	qError
)

// spellings is the one table of the names under which the package reads each quantity,
// likeliest first. A quantity the API description names in the cheapest price
// (best_price_usd_hr, best_platform) is read under that name wherever it may appear, a price
// in USD per hour under the description's unit suffix _usd_hr, and each quantity under the
// names a JSON API would likely give it, in snake_case with its unit suffix and in the short
// form. Names are compared folded (see fold), so that the camelCase, PascalCase and
// kebab-case forms of each (bestPriceUsdHr, BestPriceUSDHr, best-price-usd-hr) are read too.
var spellings = [...][]string{
	qModel:        {"model", "gpu", "gpu_model", "gpu_type", "gpu_name", "model_id"},
	qPlatform:     {"platform", "best_platform", "provider", "platform_id", "provider_id", "cloud"},
	qPlatformName: {"platform_name", "platform_display_name", "provider_name", "best_platform_name"},
	qPlatformID:   {"id", "slug", "key", "platform_id", "platform"},
	qName:         {"name"},
	qDisplayName:  {"display_name", "name", "platform_name", "title", "label"},
	qKind:         {"kind", "type", "category"},
	qWebsite:      {"website", "url", "homepage", "site"},
	qCurrency:     {"currency", "ccy"},
	qUnit:         {"unit", "units", "price_unit"},
	qBasis:        {"basis", "base", "base_model"},
	qSymbol:       {"symbol", "ticker"},
	qMarket:       {"market", "symbol", "ticker", "pair", "instrument"},
	qInterval:     {"interval", "granularity", "resolution"},
	qSide:         {"side", "taker_side", "direction"},
	qStatus:       {"status", "state", "health"},
	qService:      {"service", "name", "service_name"},
	qVersion:      {"version", "api_version"},
	qPlan:         {"plan", "tier", "plan_name"},
	qAPIKey:       {"api_key", "key", "token", "access_key"},

	qHourPrice: {"price_usd_hr", "best_price_usd_hr", "usd_per_hour", "usd_per_hr", "usd_hr", "price_per_hour", "price_per_hr",
		"hourly_price", "price_usd_per_hour", "on_demand_usd_hr", "on_demand_price_usd_hr", "price", "px", "rate"},
	qIndexValue:     {"value", "index_value", "index", "level", "value_usd_hr", "index_usd_hr"},
	qSpotPrice:      {"spot_price_usd_hr", "spot_usd_hr", "spot_price", "spot"},
	qPerH100e:       {"price_per_h100e_usd_hr", "price_per_h100e", "usd_per_h100e_hr", "h100e_price_usd_hr", "normalized_price_usd_hr", "normalised_price_usd_hr", "normalized_price"},
	qH100Equivalent: {"h100_equivalent", "h100_equivalence", "h100_equiv", "h100e", "h100_ratio", "h100_factor"},
	qMemoryGB:       {"vram_gb", "memory_gb", "gpu_memory_gb", "mem_gb", "vram", "memory", "gpu_memory"},
	qWeight:         {"weight", "index_weight"},
	qMin:            {"min_usd_hr", "min_price_usd_hr", "min_price", "min", "low"},
	qMax:            {"max_usd_hr", "max_price_usd_hr", "max_price", "max", "high"},
	qMean:           {"mean_usd_hr", "mean_price_usd_hr", "avg_usd_hr", "avg_price_usd_hr", "average_usd_hr", "mean_price", "avg_price", "mean", "avg", "average"},
	qChangePct:      {"change_pct", "change_percent", "change_percentage", "pct_change", "percent_change"},
	qBid:            {"best_bid", "bid", "best_bid_usd_hr", "bid_usd_hr", "bid_price"},
	qAsk:            {"best_ask", "ask", "best_ask_usd_hr", "ask_usd_hr", "ask_price"},
	qMid:            {"mid", "mid_price", "mid_usd_hr", "mid_price_usd_hr"},
	qSpread:         {"spread", "spread_usd_hr"},
	qSpreadBPS:      {"spread_bps", "spread_basis_points"},
	qQuantity:       {"quantity", "qty", "size", "amount", "gpus", "gpu_count", "gpu_hours", "hours", "volume"},
	qOrders:         {"orders", "order_count", "orders_count", "num_orders", "count"},
	qPlatformCount:  {"platforms", "platform_count", "platforms_count", "num_platforms"},
	qModelCount:     {"models", "model_count", "models_count", "num_models"},
	qSamples:        {"samples", "sample_count", "count", "n"},
	qTotal:          {"total", "total_count"},
	qCount:          {"count"},

	qTruncated:     {"truncated", "is_truncated"},
	qOK:            {"ok", "healthy"},
	qOnDemandIndex: {"on_demand_index", "on_demand", "in_on_demand_index"},
	qFuturesIndex:  {"futures_index", "futures", "in_futures_index"},
	qModels:        {"models", "gpus", "gpu_models"},

	qTime:      {"timestamp", "time", "ts", "date", "datetime", "as_of", "updated_at", "last_updated"},
	qMatchedAt: {"matched_at", "executed_at", "traded_at", "filled_at"},
	qClock:     {"time", "timestamp", "now", "server_time"},
	qRefreshed: {"last_refresh", "last_refreshed", "refreshed_at", "last_updated", "updated_at", "data_updated_at"},
	qFrom:      {"from", "start", "since", "start_time"},
	qTo:        {"to", "end", "until", "end_time"},
	qExpires:   {"expires_at", "expires", "expiry", "valid_until", "expiration", "expires_on"},
	qReset:     {"reset_at", "resets_at", "reset", "reset_time"},

	qPriceRows:     {"prices", "gpus", "data", "items", "results", "rows"},
	qCheapestList:  {"cheapest", "models", "data", "items", "results"},
	qPlatformList:  {"platforms", "data", "items", "results"},
	qComponentList: {"components", "data", "items", "results"},
	qSnapshots:     {"snapshots", "history", "data", "items", "results"},
	qBenchmarks:    {"benchmarks", "benchmark"},
	qBids:          {"bids", "buys", "bid_levels"},
	qAsks:          {"asks", "sells", "offers", "ask_levels"},
	qMatches:       {"recent_matches", "matches", "trades", "recent_trades", "fills"},
	qData:          {"data", "result"},
	qError:         {"error"},
}

// foldedSpellings is spellings folded, computed once.
var foldedSpellings = func() [len(spellings)][]string {
	var out [len(spellings)][]string
	for q, names := range spellings {
		for _, name := range names {
			out[q] = append(out[q], fold(name))
		}
	}
	return out
}()
