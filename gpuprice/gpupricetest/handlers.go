package gpupricetest

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// health answers GET /v1/health.
func (s *Server) health(_ *http.Request, now time.Time) (int, any) {
	return http.StatusOK, map[string]any{
		"status":            "ok",
		"service":           "gpu-price-index",
		"version":           "1.0.0",
		"time":              timestamp(now),
		"last_refresh":      timestamp(now.Truncate(5 * time.Minute)),
		"models":            onDemandModels,
		"platforms":         onDemandPlatforms,
		"futures_models":    len(models),
		"futures_platforms": len(platforms),
	}
}

// priceRow is a row of the on-demand price table.
type priceRow struct {
	Model      string  `json:"model"`
	Platform   string  `json:"platform"`
	PriceUSDHr float64 `json:"price_usd_hr"`
	VRAMGB     int     `json:"vram_gb"`
	UpdatedAt  string  `json:"updated_at"`
}

// gpus answers GET /v1/gpus: the on-demand table, narrowed by model and platform.
func (s *Server) gpus(r *http.Request, now time.Time) (int, any) {
	q := r.URL.Query()
	model, plat := -1, -1
	if id := q.Get("model"); id != "" {
		if model = findModel(id, true); model < 0 {
			return unknownModel(id, true)
		}
	}
	if id := q.Get("platform"); id != "" {
		if plat = findPlatform(id); plat < 0 {
			return fail(http.StatusNotFound, "unknown_platform", "no platform "+strconv.Quote(id)+"; the platforms are "+platformIDs())
		}
	}
	rows := []priceRow{}
	for _, i := range onDemandIndexes() {
		for j := range onDemandPlatforms {
			if (model < 0 || model == i) && (plat < 0 || plat == j) {
				rows = append(rows, priceRow{models[i].id, platforms[j].id, onDemandPrice(i, j), models[i].vramGB, timestamp(now.Truncate(5 * time.Minute))})
			}
		}
	}
	return http.StatusOK, map[string]any{
		"updated_at": timestamp(now.Truncate(5 * time.Minute)),
		"currency":   "USD",
		"unit":       "hour",
		"count":      len(rows),
		"prices":     rows,
	}
}

// unknownModel answers a model the data set does not have.
func unknownModel(id string, onDemandOnly bool) (int, any) {
	return fail(http.StatusNotFound, "unknown_model", "no model "+strconv.Quote(id)+"; the models are "+modelIDs(onDemandOnly))
}

// cheapestPrice is the answer of /v1/cheapest for one model, the shape of the API
// description.
type cheapestPrice struct {
	Model              string             `json:"model"`
	BestPlatform       string             `json:"best_platform"`
	BestPriceUSDHr     float64            `json:"best_price_usd_hr"`
	SavingPctVsDearest float64            `json:"saving_pct_vs_dearest"`
	AllOnDemand        map[string]float64 `json:"all_on_demand"`
}

// cheapestOf returns the cheapest price of model i; ties go to the platform listed first.
func cheapestOf(i int) cheapestPrice {
	out := cheapestPrice{Model: models[i].id, AllOnDemand: map[string]float64{}}
	dearest := 0.0
	for j := range onDemandPlatforms {
		p := onDemandPrice(i, j)
		out.AllOnDemand[platforms[j].id] = p
		if out.BestPlatform == "" || p < out.BestPriceUSDHr {
			out.BestPlatform, out.BestPriceUSDHr = platforms[j].id, p
		}
		dearest = max(dearest, p)
	}
	out.SavingPctVsDearest = round((dearest-out.BestPriceUSDHr)/dearest*100, 1)
	return out
}

// cheapest answers GET /v1/cheapest: one model's object with model, or every model's.
func (s *Server) cheapest(r *http.Request, _ time.Time) (int, any) {
	if id := r.URL.Query().Get("model"); id != "" {
		i := findModel(id, true)
		if i < 0 {
			return unknownModel(id, true)
		}
		return http.StatusOK, cheapestOf(i)
	}
	all := []cheapestPrice{}
	for _, i := range onDemandIndexes() {
		all = append(all, cheapestOf(i))
	}
	return http.StatusOK, map[string]any{"count": len(all), "cheapest": all}
}

// platformDirectory answers GET /v1/platforms: the 23 platforms, the first 6 of which make
// the on-demand table.
func (s *Server) platformDirectory(_ *http.Request, _ time.Time) (int, any) {
	list := []map[string]any{}
	for j, p := range platforms {
		quoted := []string{}
		for i, m := range models {
			if j < onDemandPlatforms && m.onDemand || j >= onDemandPlatforms && j < platformsQuoting(i) {
				quoted = append(quoted, m.id)
			}
		}
		list = append(list, map[string]any{
			"id":              p.id,
			"name":            p.name,
			"kind":            p.kind,
			"website":         p.website,
			"on_demand_index": j < onDemandPlatforms,
			"futures_index":   true,
			"models":          quoted,
		})
	}
	return http.StatusOK, map[string]any{"count": len(list), "platforms": list}
}

// futuresIndex answers GET /v1/futures/index.
func (s *Server) futuresIndex(_ *http.Request, now time.Time) (int, any) {
	v := indexValue()
	bid, ask := round(v*(1-indexHalfSpread), 4), round(v*(1+indexHalfSpread), 4)
	return http.StatusOK, map[string]any{
		"symbol":     "GCFI",
		"name":       "GPU Compute Futures Index",
		"value":      v,
		"bid":        bid,
		"ask":        ask,
		"spread":     round(ask-bid, 4),
		"spread_bps": round((ask-bid)/v*10000, 1),
		"currency":   "USD",
		"unit":       "USD per H100-equivalent hour",
		"basis":      "H100",
		"platforms":  len(platforms),
		"models":     len(models),
		"timestamp":  timestamp(now),
	}
}

// futuresComponents answers GET /v1/futures/components.
func (s *Server) futuresComponents(_ *http.Request, now time.Time) (int, any) {
	list := []map[string]any{}
	for i, m := range models {
		list = append(list, map[string]any{
			"model":                  m.id,
			"spot_price_usd_hr":      m.spot,
			"h100_equivalent":        m.h100Equivalent,
			"price_per_h100e_usd_hr": round(m.spot/m.h100Equivalent, 4),
			"weight":                 float64(m.weight) / 1000,
			"platforms":              platformsQuoting(i),
		})
	}
	return http.StatusOK, map[string]any{"symbol": "GCFI", "timestamp": timestamp(now), "count": len(list), "components": list}
}

// bookLevel is a price level of the order book.
type bookLevel struct {
	Price    float64 `json:"price"`
	Quantity int     `json:"quantity"`
	Orders   int     `json:"orders"`
}

// bookMatch is a recent match of the order book.
type bookMatch struct {
	Price     float64 `json:"price"`
	Quantity  int     `json:"quantity"`
	Side      string  `json:"side"`
	MatchedAt string  `json:"matched_at"`
}

// orderBook answers GET /v1/exchange/book: the spot book of one model (query model, any of
// the 14, default H100) in GPU-hours, best levels first.
func (s *Server) orderBook(r *http.Request, now time.Time) (int, any) {
	id := r.URL.Query().Get("model")
	if id == "" {
		id = "H100"
	}
	i := findModel(id, false)
	if i < 0 {
		return unknownModel(id, false)
	}
	mid := models[i].spot
	bids, asks := []bookLevel{}, []bookLevel{}
	for k := range bookLevels {
		step := 0.003 * float64(k+1)
		bids = append(bids, bookLevel{round(mid*(1-step), 4), 8 * ((k*3)%5 + 1), k%3 + 1})
		asks = append(asks, bookLevel{round(mid*(1+step), 4), 8 * ((k*2)%5 + 1), (k+1)%3 + 1})
	}
	matches := []bookMatch{}
	for k := range recentMatches {
		side := "buy"
		if k%2 == 1 {
			side = "sell"
		}
		matches = append(matches, bookMatch{round(mid*(1+0.001*float64(k%3-1)), 4), 4 * (k + 1), side, timestamp(now.Add(-time.Duration(k+1) * 47 * time.Second))})
	}
	return http.StatusOK, map[string]any{
		"market":         models[i].id + "-USD",
		"model":          models[i].id,
		"unit":           "USD per GPU-hour",
		"best_bid":       bids[0].Price,
		"best_ask":       asks[0].Price,
		"mid":            mid,
		"spread":         round(asks[0].Price-bids[0].Price, 4),
		"bids":           bids,
		"asks":           asks,
		"recent_matches": matches,
		"timestamp":      timestamp(now),
	}
}

// snapshot is one price of the daily history.
type snapshot struct {
	Timestamp  string  `json:"timestamp"`
	Model      string  `json:"model"`
	Platform   string  `json:"platform"`
	PriceUSDHr float64 `json:"price_usd_hr"`
}

// benchmark sums up one model's snapshots over the requested range.
type benchmark struct {
	Model     string  `json:"model"`
	Samples   int     `json:"samples"`
	MinUSDHr  float64 `json:"min_usd_hr"`
	MaxUSDHr  float64 `json:"max_usd_hr"`
	MeanUSDHr float64 `json:"mean_usd_hr"`
	// ChangePct is the change of the mean price across platforms from the first day of the
	// range to the last.
	ChangePct float64 `json:"change_pct"`
}

// The defaults and limits of /v1/history's parameters.
const (
	defaultHistoryDays  = 30
	defaultHistoryLimit = 100
	maxHistoryLimit     = 1000
)

// history answers GET /v1/history: daily snapshots at midnight UTC of the on-demand table,
// narrowed by model, platform, from and to, the newest limit of them, and per-model
// benchmarks over every snapshot of the range.
func (s *Server) history(r *http.Request, now time.Time) (int, any) {
	q := r.URL.Query()
	model, plat := -1, -1
	if id := q.Get("model"); id != "" {
		if model = findModel(id, true); model < 0 {
			return unknownModel(id, true)
		}
	}
	if id := q.Get("platform"); id != "" {
		if plat = findPlatform(id); plat < 0 {
			return fail(http.StatusNotFound, "unknown_platform", "no platform "+strconv.Quote(id)+"; the platforms are "+platformIDs())
		}
	}
	today := midnightUTC(now)
	earliest := today.AddDate(0, 0, -historyDays)
	to, status, body := historyTime(q.Get("to"), "to", now)
	if body != nil {
		return status, body
	}
	if to.After(now) {
		to = now
	}
	defaultFrom := to.AddDate(0, 0, -defaultHistoryDays)
	if defaultFrom.Before(earliest) {
		defaultFrom = earliest
	}
	from, status, body := historyTime(q.Get("from"), "from", defaultFrom)
	if body != nil {
		return status, body
	}
	switch {
	case to.Before(earliest):
		return fail(http.StatusBadRequest, "invalid_parameter", "to is before the start of the history, "+timestamp(earliest))
	case from.After(to):
		return fail(http.StatusBadRequest, "invalid_parameter", "from is after to")
	case from.Before(earliest):
		return fail(http.StatusBadRequest, "invalid_parameter", "from is before the start of the history, "+timestamp(earliest))
	}
	limit := defaultHistoryLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxHistoryLimit {
			return fail(http.StatusBadRequest, "invalid_parameter", "limit must be a whole number from 1 to "+strconv.Itoa(maxHistoryLimit))
		}
		limit = n
	}

	snaps := []snapshot{}
	var bench []benchmark
	for _, i := range onDemandIndexes() {
		if model >= 0 && model != i {
			continue
		}
		b := benchmark{Model: models[i].id}
		var first, last, sum float64
		var firstN, lastN int
		for day := midnightUTC(from.Add(24*time.Hour - 1)); !day.After(to); day = day.AddDate(0, 0, 1) {
			var daySum float64
			var dayN int
			for j := range onDemandPlatforms {
				if plat >= 0 && plat != j {
					continue
				}
				p := historicalPrice(i, j, day, today)
				snaps = append(snaps, snapshot{timestamp(day), models[i].id, platforms[j].id, p})
				if b.Samples == 0 || p < b.MinUSDHr {
					b.MinUSDHr = p
				}
				b.MaxUSDHr = max(b.MaxUSDHr, p)
				b.Samples++
				sum += p
				daySum += p
				dayN++
			}
			if firstN == 0 {
				first, firstN = daySum, dayN
			}
			last, lastN = daySum, dayN
		}
		if b.Samples > 0 {
			b.MeanUSDHr = round(sum/float64(b.Samples), 4)
			b.ChangePct = round((last/float64(lastN)-first/float64(firstN))/(first/float64(firstN))*100, 2)
			bench = append(bench, b)
		}
	}
	slices.SortStableFunc(snaps, func(a, b snapshot) int { return strings.Compare(a.Timestamp, b.Timestamp) })
	total := len(snaps)
	if total > limit {
		snaps = snaps[total-limit:]
	}
	if bench == nil {
		bench = []benchmark{}
	}
	return http.StatusOK, map[string]any{
		"from":       timestamp(from),
		"to":         timestamp(to),
		"interval":   "1d",
		"total":      total,
		"count":      len(snaps),
		"truncated":  total > len(snaps),
		"snapshots":  snaps,
		"benchmarks": bench,
	}
}

// historyTime parses the from or to parameter (RFC 3339 or a date, 2006-01-02), or returns
// def when it is empty.
func historyTime(v, name string, def time.Time) (time.Time, int, any) {
	if v == "" {
		return def, 0, nil
	}
	for _, layout := range []string{time.RFC3339, time.DateOnly} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), 0, nil
		}
	}
	status, body := fail(http.StatusBadRequest, "invalid_parameter", name+" must be an RFC 3339 time or a date such as 2026-01-31")
	return time.Time{}, status, body
}
