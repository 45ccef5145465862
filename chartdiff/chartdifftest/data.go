package chartdifftest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Fixed charts, authors and players of the generated data set (with at least 8 charts).
const (
	// ChartAnalyzed is an analysed chart with every value computed.
	ChartAnalyzed = 1
	// ChartZero is an analysed chart whose engine values are all 0: a computed 0, not an
	// absent value. Its official-scale value is 0 too.
	ChartZero = 3
	// ChartNotAnalyzed is a cached chart that was never analysed; analysing it succeeds.
	ChartNotAnalyzed = 4
	// ChartTooLarge is a cached chart, never analysed, whose download exceeds the 60 MB limit:
	// analysing it answers 502 analysis_failed.
	ChartTooLarge = 8
	// AuthorProlific is an author with 200 charts upstream (none cached), more than the
	// maxPages cap of 5 pages of 30 lets the service read.
	AuthorProlific = 9
	// ProlificFirstChart is the id of AuthorProlific's first chart; the others follow.
	ProlificFirstChart = 100001
	// PlayerNoStats is a player whose statistics cannot be fetched: the profile comes with
	// "stats": null.
	PlayerNoStats = 7
	// Players is the number of players; uids 1 to Players exist.
	Players = 10
)

// EngineVersion is the fake engine's version, the default baseline of only=stale.
const EngineVersion = "2.3.0"

// OldEngineVersion is the engine version of the stale charts of the generated data set.
const OldEngineVersion = "2.2.1"

// MaxChartBytes is the largest chart download the engine accepts.
const MaxChartBytes = 60 << 20

// Chart is a chart of the fake's cache, as WithChart seeds it.
type Chart struct {
	ID         int
	Name       string
	Level      string
	Difficulty float64
	Charter    string
	Uploader   int
	// Analyzed says the values below are stored. When false they are ignored and the
	// service sends none of them.
	Analyzed bool
	RefConst float64
	// RefOfficial is nil when the official-scale value cannot be computed.
	RefOfficial   *float64
	PSScore       float64
	NPS           float64
	Notes         int
	EngineVersion string
	AnalyzedAt    time.Time
	// SizeBytes is the chart's download size; above MaxChartBytes the analysis fails.
	SizeBytes int64
}

// The generated data set draws from these.
var (
	levels      = []string{"EZ", "HD", "IN", "AT", "SP"}
	adjectives  = []string{"Crimson", "Silent", "Neon", "Frozen", "Golden", "Hollow", "Lunar", "Velvet", "Static", "Wild"}
	nouns       = []string{"Echo", "Drift", "Garden", "Signal", "Tide", "Lantern", "Orbit", "Mirage", "Cascade", "Pulse"}
	authorNames = []string{"Nyx", "Kirin", "Sora", "Lumen"}
)

// generated returns the chart with the given id in the default data set, analysed at base
// when the data set says so. Ids from ProlificFirstChart on are AuthorProlific's charts, which
// only the upstream has.
func generated(id int, base time.Time) Chart {
	diff := 1 + float64(id*37%160)/10
	ch := Chart{
		ID:         id,
		Name:       fmt.Sprintf("%s %s %d", adjectives[id%len(adjectives)], nouns[(id/len(adjectives))%len(nouns)], id),
		Level:      levels[id%len(levels)],
		Difficulty: diff,
		Uploader:   1 + id%len(authorNames),
		SizeBytes:  int64(1<<20 + id%64*256<<10),
	}
	if id >= ProlificFirstChart {
		ch.Uploader = AuthorProlific
		ch.Charter = "Prolific"
	} else {
		ch.Charter = authorNames[ch.Uploader-1]
	}
	engine(&ch, base)
	ch.Analyzed = id%4 != 0 && id < ProlificFirstChart
	switch id {
	case ChartZero:
		ch.Name = "Silence"
		ch.RefConst, ch.PSScore, ch.NPS, ch.Notes = 0, 0, 0, 0
		zero := 0.0
		ch.RefOfficial = &zero
	case ChartTooLarge:
		ch.SizeBytes = MaxChartBytes + 1<<20
	}
	return ch
}

// engine computes the fake analysis values of ch, deterministically from its id.
func engine(ch *Chart, at time.Time) {
	id := ch.ID
	ch.RefConst = round1(ch.Difficulty + float64(id%7-3)/10)
	ch.RefOfficial = nil
	if id%3 != 0 {
		v := round1(ch.Difficulty)
		ch.RefOfficial = &v
	}
	ch.PSScore = round1(ch.RefConst*6.5 + float64(id%11))
	ch.NPS = round1(1 + float64(id*13%120)/10)
	ch.Notes = 200 + id*29%1800
	ch.EngineVersion = EngineVersion
	if id%10 == 1 {
		ch.EngineVersion = OldEngineVersion
	}
	ch.AnalyzedAt = at.UTC().Truncate(time.Second)
}

// round1 rounds to one decimal.
func round1(v float64) float64 { return math.Round(v*10) / 10 }

// chartJSON is the wire form of a chart: the value fields are absent, not null and not 0,
// when the chart was never analysed.
type chartJSON struct {
	ChartID       int      `json:"chart_id"`
	Name          string   `json:"name,omitempty"`
	Level         string   `json:"level,omitempty"`
	Difficulty    *float64 `json:"difficulty,omitempty"`
	Charter       string   `json:"charter,omitempty"`
	Uploader      int      `json:"uploader,omitempty"`
	Analyzed      bool     `json:"analyzed"`
	RefConst      *float64 `json:"ref_const,omitempty"`
	RefOfficial   *float64 `json:"ref_official,omitempty"`
	PSScore       *float64 `json:"ps_score,omitempty"`
	NPS           *float64 `json:"nps,omitempty"`
	Notes         *int     `json:"notes,omitempty"`
	EngineVersion string   `json:"engine_version,omitempty"`
	AnalyzedAt    string   `json:"analyzed_at,omitempty"`
	Cached        *bool    `json:"cached,omitempty"`
}

// wire returns the wire form of ch.
func (ch *Chart) wire() chartJSON {
	d := ch.Difficulty
	out := chartJSON{ChartID: ch.ID, Name: ch.Name, Level: ch.Level, Difficulty: &d, Charter: ch.Charter, Uploader: ch.Uploader, Analyzed: ch.Analyzed}
	if ch.Analyzed {
		rc, ps, nps, notes := ch.RefConst, ch.PSScore, ch.NPS, ch.Notes
		out.RefConst, out.PSScore, out.NPS, out.Notes = &rc, &ps, &nps, &notes
		if ch.RefOfficial != nil {
			ro := *ch.RefOfficial
			out.RefOfficial = &ro
		}
		out.EngineVersion = ch.EngineVersion
		if !ch.AnalyzedAt.IsZero() {
			out.AnalyzedAt = ch.AnalyzedAt.UTC().Format(time.RFC3339)
		}
	}
	return out
}

// allSortFields are the sort fields of the API description, in its order.
var allSortFields = []string{"chart_id", "name", "level", "difficulty", "ref_const", "ref_official", "ps_score", "nps", "notes"}

// sortKey returns the value of field for ch, and false when the chart has none (it is not
// analysed, or its official-scale value cannot be computed).
func sortKey(ch *Chart, field string) (num float64, str string, ok bool) {
	switch field {
	case "chart_id":
		return float64(ch.ID), "", true
	case "name":
		return 0, ch.Name, true
	case "level":
		return 0, ch.Level, true
	case "difficulty":
		return ch.Difficulty, "", true
	}
	if !ch.Analyzed {
		return 0, "", false
	}
	switch field {
	case "ref_const":
		return ch.RefConst, "", true
	case "ref_official":
		if ch.RefOfficial == nil {
			return 0, "", false
		}
		return *ch.RefOfficial, "", true
	case "ps_score":
		return ch.PSScore, "", true
	case "nps":
		return ch.NPS, "", true
	case "notes":
		return float64(ch.Notes), "", true
	}
	return 0, "", false
}

// sortCharts orders charts by field; charts without a value come last in either order, and
// ties go by ascending chart id.
func sortCharts(charts []*Chart, field string, desc bool) {
	slices.SortStableFunc(charts, func(a, b *Chart) int {
		an, as, aok := sortKey(a, field)
		bn, bs, bok := sortKey(b, field)
		switch {
		case !aok && !bok:
			return cmp.Compare(a.ID, b.ID)
		case !aok:
			return 1
		case !bok:
			return -1
		}
		c := cmp.Compare(an, bn)
		if c == 0 {
			c = strings.Compare(as, bs)
		}
		if desc {
			c = -c
		}
		if c == 0 {
			c = cmp.Compare(a.ID, b.ID)
		}
		return c
	})
}

// listFilter is the filter part of GET /charts.
type listFilter struct {
	q, level, only, build string
}

// keep reports whether ch passes the filter.
func (f listFilter) keep(ch *Chart) bool {
	if f.q != "" && !strings.Contains(strings.ToLower(ch.Name), strings.ToLower(f.q)) {
		return false
	}
	if f.level != "" && !strings.HasPrefix(ch.Level, f.level) {
		return false
	}
	switch f.only {
	case "official":
		return ch.Analyzed && ch.RefOfficial != nil
	case "stale":
		baseline := f.build
		if baseline == "" {
			baseline = EngineVersion
		}
		return ch.Analyzed && ch.EngineVersion != baseline
	}
	return true
}
