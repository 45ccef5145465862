package gpuprice

// field is a member the price API may send in a body whose members the API description
// does not show ("not shown"): every body but the cheapest price.
type field int

// The fields the package reads, each under the names fieldNames lists.
const (
	fieldModel field = iota
	fieldPlatform
	fieldPlatformName
	fieldPlatformID
	fieldName
	fieldDisplayName
	fieldKind
	fieldWebsite
	fieldCurrency
	fieldUnit
	fieldBasis
	fieldSymbol
	fieldMarket
	fieldInterval
	fieldSide
	fieldStatus
	fieldService
	fieldVersion
	fieldPlan
	fieldAPIKey

	fieldHourPrice
	fieldIndexValue
	fieldSpotPrice
	fieldPerH100e
	fieldH100Equivalent
	fieldMemoryGB
	fieldWeight
	fieldMin
	fieldMax
	fieldMean
	fieldChangePct
	fieldBid
	fieldAsk
	fieldMid
	fieldSpread
	fieldSpreadBPS
	fieldQuantity
	fieldOrders
	fieldPlatformCount
	fieldModelCount
	fieldSamples
	fieldTotal
	fieldCount

	fieldTruncated
	fieldOK
	fieldOnDemandIndex
	fieldFuturesIndex
	fieldModels

	fieldTime
	fieldMatchedAt
	fieldClock
	fieldRefreshed
	fieldFrom
	fieldTo
	fieldExpires
	fieldReset

	fieldPriceRows
	fieldCheapestList
	fieldPlatformList
	fieldComponentList
	fieldSnapshots
	fieldBenchmarks
	fieldBids
	fieldAsks
	fieldMatches
	fieldData
	fieldError
)

// fieldNames is the one table of the names under which the package reads each field,
// likeliest first. A field the API description names in the cheapest price
// (best_price_usd_hr, best_platform) is read under that name wherever it may appear, a price
// in USD per hour under the description's unit suffix _usd_hr, and each field under the
// names a JSON API would likely give it, in snake_case with its unit suffix and in the short
// form. Names are compared folded (see fold), so that the camelCase, PascalCase and
// kebab-case forms of each (bestPriceUsdHr, BestPriceUSDHr, best-price-usd-hr) are read too.
var fieldNames = [...][]string{
	fieldModel:        {"model", "gpu", "gpu_model", "gpu_type", "gpu_name", "model_id"},
	fieldPlatform:     {"platform", "best_platform", "provider", "platform_id", "provider_id", "cloud"},
	fieldPlatformName: {"platform_name", "platform_display_name", "provider_name", "best_platform_name"},
	fieldPlatformID:   {"id", "slug", "key", "platform_id", "platform"},
	fieldName:         {"name"},
	fieldDisplayName:  {"display_name", "name", "platform_name", "title", "label"},
	fieldKind:         {"kind", "type", "category"},
	fieldWebsite:      {"website", "url", "homepage", "site"},
	fieldCurrency:     {"currency", "ccy"},
	fieldUnit:         {"unit", "units", "price_unit"},
	fieldBasis:        {"basis", "base", "base_model"},
	fieldSymbol:       {"symbol", "ticker"},
	fieldMarket:       {"market", "symbol", "ticker", "pair", "instrument"},
	fieldInterval:     {"interval", "granularity", "resolution"},
	fieldSide:         {"side", "taker_side", "direction"},
	fieldStatus:       {"status", "state", "health"},
	fieldService:      {"service", "name", "service_name"},
	fieldVersion:      {"version", "api_version"},
	fieldPlan:         {"plan", "tier", "plan_name"},
	fieldAPIKey:       {"api_key", "key", "token", "access_key"},

	fieldHourPrice: {"price_usd_hr", "best_price_usd_hr", "usd_per_hour", "usd_per_hr", "usd_hr", "price_per_hour", "price_per_hr",
		"hourly_price", "price_usd_per_hour", "on_demand_usd_hr", "on_demand_price_usd_hr", "price", "px", "rate"},
	fieldIndexValue:     {"value", "index_value", "index", "level", "value_usd_hr", "index_usd_hr"},
	fieldSpotPrice:      {"spot_price_usd_hr", "spot_usd_hr", "spot_price", "spot"},
	fieldPerH100e:       {"price_per_h100e_usd_hr", "price_per_h100e", "usd_per_h100e_hr", "h100e_price_usd_hr", "normalized_price_usd_hr", "normalised_price_usd_hr", "normalized_price"},
	fieldH100Equivalent: {"h100_equivalent", "h100_equivalence", "h100_equiv", "h100e", "h100_ratio", "h100_factor"},
	fieldMemoryGB:       {"vram_gb", "memory_gb", "gpu_memory_gb", "mem_gb", "vram", "memory", "gpu_memory"},
	fieldWeight:         {"weight", "index_weight"},
	fieldMin:            {"min_usd_hr", "min_price_usd_hr", "min_price", "min", "low"},
	fieldMax:            {"max_usd_hr", "max_price_usd_hr", "max_price", "max", "high"},
	fieldMean:           {"mean_usd_hr", "mean_price_usd_hr", "avg_usd_hr", "avg_price_usd_hr", "average_usd_hr", "mean_price", "avg_price", "mean", "avg", "average"},
	fieldChangePct:      {"change_pct", "change_percent", "change_percentage", "pct_change", "percent_change"},
	fieldBid:            {"best_bid", "bid", "best_bid_usd_hr", "bid_usd_hr", "bid_price"},
	fieldAsk:            {"best_ask", "ask", "best_ask_usd_hr", "ask_usd_hr", "ask_price"},
	fieldMid:            {"mid", "mid_price", "mid_usd_hr", "mid_price_usd_hr"},
	fieldSpread:         {"spread", "spread_usd_hr"},
	fieldSpreadBPS:      {"spread_bps", "spread_basis_points"},
	fieldQuantity:       {"quantity", "qty", "size", "amount", "gpus", "gpu_count", "gpu_hours", "hours", "volume"},
	fieldOrders:         {"orders", "order_count", "orders_count", "num_orders", "count"},
	fieldPlatformCount:  {"platforms", "platform_count", "platforms_count", "num_platforms"},
	fieldModelCount:     {"models", "model_count", "models_count", "num_models"},
	fieldSamples:        {"samples", "sample_count", "count", "n"},
	fieldTotal:          {"total", "total_count"},
	fieldCount:          {"count"},

	fieldTruncated:     {"truncated", "is_truncated"},
	fieldOK:            {"ok", "healthy"},
	fieldOnDemandIndex: {"on_demand_index", "on_demand", "in_on_demand_index"},
	fieldFuturesIndex:  {"futures_index", "futures", "in_futures_index"},
	fieldModels:        {"models", "gpus", "gpu_models"},

	fieldTime:      {"timestamp", "time", "ts", "date", "datetime", "as_of", "updated_at", "last_updated"},
	fieldMatchedAt: {"matched_at", "executed_at", "traded_at", "filled_at"},
	fieldClock:     {"time", "timestamp", "now", "server_time"},
	fieldRefreshed: {"last_refresh", "last_refreshed", "refreshed_at", "last_updated", "updated_at", "data_updated_at"},
	fieldFrom:      {"from", "start", "since", "start_time"},
	fieldTo:        {"to", "end", "until", "end_time"},
	fieldExpires:   {"expires_at", "expires", "expiry", "valid_until", "expiration", "expires_on"},
	fieldReset:     {"reset_at", "resets_at", "reset", "reset_time"},

	fieldPriceRows:     {"prices", "gpus", "data", "items", "results", "rows"},
	fieldCheapestList:  {"cheapest", "models", "data", "items", "results"},
	fieldPlatformList:  {"platforms", "data", "items", "results"},
	fieldComponentList: {"components", "data", "items", "results"},
	fieldSnapshots:     {"snapshots", "history", "data", "items", "results"},
	fieldBenchmarks:    {"benchmarks", "benchmark"},
	fieldBids:          {"bids", "buys", "bid_levels"},
	fieldAsks:          {"asks", "sells", "offers", "ask_levels"},
	fieldMatches:       {"recent_matches", "matches", "trades", "recent_trades", "fills"},
	fieldData:          {"data", "result"},
	fieldError:         {"error"},
}

// foldedFieldNames is fieldNames folded, computed once.
var foldedFieldNames = func() [len(fieldNames)][]string {
	var out [len(fieldNames)][]string
	for f, names := range fieldNames {
		for _, name := range names {
			out[f] = append(out[f], fold(name))
		}
	}
	return out
}()
