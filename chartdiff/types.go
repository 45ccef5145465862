package chartdiff

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Chart is a chart with the difficulty values stored for it.
//
// Absent is not zero: a chart that was never analysed has Analyzed false and nil value fields,
// while a value the engine computed as 0 is a non-nil pointer to 0. Never read a nil field as 0.
type Chart struct {
	// ID is the chart id, a positive integer.
	ID int `json:"chart_id"`
	// Name is the chart's title ("" when the service does not know the chart).
	Name string `json:"name,omitempty"`
	// Level is the difficulty prefix, such as "IN", "AT" or "SP".
	Level string `json:"level,omitempty"`
	// Difficulty is the chart's difficulty as the game lists it, when known.
	Difficulty *float64 `json:"difficulty,omitempty"`
	// Charter is the author's display name, when known.
	Charter string `json:"charter,omitempty"`
	// Uploader is the author's uid (0 when unknown; uids are positive).
	Uploader int `json:"uploader,omitempty"`
	// Analyzed reports whether the service has analysed the chart. When false, the value
	// fields below are nil.
	Analyzed bool `json:"analyzed"`
	// RefConst is the community-consensus difficulty constant.
	RefConst *float64 `json:"ref_const,omitempty"`
	// RefOfficial is the difficulty on the official-chart scale; nil also when it cannot be
	// computed for an analysed chart. Not comparable with RefConst.
	RefOfficial *float64 `json:"ref_official,omitempty"`
	// PSScore is the engine's ps score.
	PSScore *float64 `json:"ps_score,omitempty"`
	// NPS is the notes per second.
	NPS *float64 `json:"nps,omitempty"`
	// Notes is the number of notes.
	Notes *int `json:"notes,omitempty"`
	// EngineVersion is the version of the engine that computed the values.
	EngineVersion string `json:"engine_version,omitempty"`
	// AnalyzedAt is when the values were computed.
	AnalyzedAt *time.Time `json:"analyzed_at,omitempty"`
	// Raw is the chart's JSON object as the service sent it, unknown fields included.
	Raw json.RawMessage `json:"-"`
	// Response describes the HTTP response, for a Chart returned by Client.Chart; it is zero for
	// a chart inside a list.
	Response Response `json:"-"`
}

// UnmarshalJSON decodes a chart, keeps its raw object, and refuses one without chart_id or
// analyzed: without them an absent value could not be told from a missing chart.
func (c *Chart) UnmarshalJSON(b []byte) error {
	type plain Chart
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if err := requireFields("chart", b, "chart_id", "analyzed"); err != nil {
		return err
	}
	*c = Chart(p)
	c.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// ChartPage is one page of GET /charts.
type ChartPage struct {
	// Total is the true number of charts matching the query, not the page size.
	Total int `json:"total"`
	// Page is the 1-based page number the service answered.
	Page int `json:"page"`
	// PageSize is the page size the service used.
	PageSize int `json:"pageSize"`
	// Charts are the charts of the page.
	Charts []Chart `json:"charts"`
	// Raw is the response body.
	Raw json.RawMessage `json:"-"`
	// Response describes the HTTP response.
	Response Response `json:"-"`
}

// UnmarshalJSON decodes a page and refuses one without total or charts, so that a changed
// field name is an error rather than an empty list.
func (p *ChartPage) UnmarshalJSON(b []byte) error {
	type plain ChartPage
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if err := requireFields("chart list", b, "total", "charts"); err != nil {
		return err
	}
	*p = ChartPage(v)
	return nil
}

// Analysis is the result of Analyze.
type Analysis struct {
	// Chart holds the values; Chart.Analyzed is true.
	Chart Chart
	// Cached is true when the values came from the shared cache without running the engine.
	Cached bool
	// Response describes the HTTP response of the last attempt.
	Response Response
}

// UnmarshalJSON decodes the flat analysis object: the chart's fields plus cached.
func (a *Analysis) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &a.Chart); err != nil {
		return err
	}
	if err := requireFields("analysis", b, "cached"); err != nil {
		return err
	}
	var f struct {
		Cached bool `json:"cached"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	a.Cached = f.Cached
	return nil
}

// Stats are the database-wide statistics of GET /stats. The API description does not name
// their fields, so each is nil when the service did not send it; Raw holds the whole body.
type Stats struct {
	// ChartsStored is the number of charts in the cache.
	ChartsStored *int `json:"charts_stored"`
	// ChartsAnalyzed is the number of cached charts with stored values.
	ChartsAnalyzed *int `json:"charts_analyzed"`
	// Coverage is the fraction (0 to 1) of stored charts that are analysed.
	Coverage *float64 `json:"coverage"`
	// ActiveUsers is the number of active users.
	ActiveUsers *int `json:"active_users"`
	// EngineVersion is the current engine version, the default baseline of stale charts.
	EngineVersion string `json:"engine_version"`
	// Raw is the response body.
	Raw json.RawMessage `json:"-"`
	// Response describes the HTTP response.
	Response Response `json:"-"`
}

// CharterCharts are the charts of one author, from GET /charters/{uid}, each tagged with the
// values stored for it (Analyzed false and nil values when none are).
type CharterCharts struct {
	// UID is the author's uid.
	UID int `json:"uid"`
	// Charts are the author's charts from the upstream pages read.
	Charts []Chart `json:"charts"`
	// PagesRead is the number of upstream pages (of 30 charts) read.
	PagesRead int `json:"pages_read"`
	// HasMore reports that the author has more charts than maxPages let the service read.
	HasMore bool `json:"has_more"`
	// Raw is the response body.
	Raw json.RawMessage `json:"-"`
	// Response describes the HTTP response.
	Response Response `json:"-"`
}

// UnmarshalJSON decodes the author's charts and refuses an answer without charts, so that a
// changed field name is an error rather than an empty list.
func (c *CharterCharts) UnmarshalJSON(b []byte) error {
	type plain CharterCharts
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if err := requireFields("charter charts", b, "charts"); err != nil {
		return err
	}
	*c = CharterCharts(v)
	return nil
}

// Player is a player's public profile from GET /players/{uid}; it never holds score details.
type Player struct {
	// ID is the player's uid.
	ID int `json:"id"`
	// Name is the display name.
	Name string `json:"name"`
	// Avatar is the avatar's URL, when set.
	Avatar string `json:"avatar"`
	// Badges are the player's badges.
	Badges []string `json:"badges"`
	// Language is the player's language setting.
	Language string `json:"language"`
	// Bio is the player's self-description.
	Bio string `json:"bio"`
	// Exp is the experience points.
	Exp *int `json:"exp"`
	// RKS is the player's ranking score.
	RKS *float64 `json:"rks"`
	// Joined is when the player registered.
	Joined *time.Time `json:"joined"`
	// LastLogin is when the player last logged in.
	LastLogin *time.Time `json:"last_login"`
	// Stats are the player's statistics; nil when the service could not fetch them (the call
	// still succeeds).
	Stats *PlayerStats `json:"stats"`
	// Raw is the response body.
	Raw json.RawMessage `json:"-"`
	// Response describes the HTTP response.
	Response Response `json:"-"`
}

// UnmarshalJSON decodes a player and refuses an answer without id.
func (p *Player) UnmarshalJSON(b []byte) error {
	type plain Player
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if err := requireFields("player", b, "id"); err != nil {
		return err
	}
	*p = Player(v)
	return nil
}

// PlayerStats are a player's statistics. The API description does not name their fields, so
// each is nil when the service did not send it; Player.Raw holds the whole body.
type PlayerStats struct {
	// Records is the number of play records.
	Records *int `json:"records"`
	// ChartsPlayed is the number of distinct charts played.
	ChartsPlayed *int `json:"charts_played"`
	// FullCombos is the number of full-combo records.
	FullCombos *int `json:"full_combos"`
	// AverageAccuracy is the mean accuracy (0 to 1).
	AverageAccuracy *float64 `json:"average_accuracy"`
}

// Usage is the usage of the account that owns the key or token, from GET /usage. The API
// description does not name its fields, so each count is nil when the service did not send it;
// Raw holds the whole body. Usage of revoked keys is kept.
type Usage struct {
	// AccountID identifies the account.
	AccountID string `json:"account_id"`
	// RequestsTotal counts every request made with the account's keys, revoked keys included.
	RequestsTotal *int `json:"requests_total"`
	// AnalysesTotal counts every analysis run with the account's keys.
	AnalysesTotal *int `json:"analyses_total"`
	// Limits are the quotas that apply.
	Limits *UsageLimits `json:"limits"`
	// Keys is the usage of each key of the account, revoked keys included.
	Keys []KeyUsage `json:"keys"`
	// Raw is the response body.
	Raw json.RawMessage `json:"-"`
	// Response describes the HTTP response.
	Response Response `json:"-"`
}

// UsageLimits are the quotas reported by GET /usage.
type UsageLimits struct {
	// RequestsPerHour is the hourly request quota of one key (1,000).
	RequestsPerHour *int `json:"requests_per_hour"`
	// AnalysesPerDay is the daily analysis quota of one key (200).
	AnalysesPerDay *int `json:"analyses_per_day"`
	// AnonymousRequestsPerHour is the hourly quota without a key (100).
	AnonymousRequestsPerHour *int `json:"anonymous_requests_per_hour"`
}

// KeyUsage is the usage of one key.
type KeyUsage struct {
	// ID is the key's id.
	ID KeyID `json:"id"`
	// Name is the key's name.
	Name string `json:"name"`
	// Status is the key's state.
	Status KeyStatus `json:"status"`
	// RequestsTotal counts every request made with the key.
	RequestsTotal *int `json:"requests_total"`
	// AnalysesTotal counts every analysis the key ran.
	AnalysesTotal *int `json:"analyses_total"`
	// RequestsThisHour counts the requests of the current hourly window.
	RequestsThisHour *int `json:"requests_this_hour"`
	// AnalysesToday counts the analyses of the current daily window.
	AnalysesToday *int `json:"analyses_today"`
}

// Meta is the build information of GET /meta.
type Meta struct {
	// Service is the service's name.
	Service string `json:"service"`
	// Version is the API version, such as "1.2.0".
	Version string `json:"version"`
	// Build identifies the deployed build.
	Build string `json:"build"`
	// EngineVersion is the current analysis engine version.
	EngineVersion string `json:"engine_version"`
	// Diag is present when Meta was called with diag true.
	Diag *Diagnostics `json:"diag"`
	// Raw is the response body.
	Raw json.RawMessage `json:"-"`
	// Response describes the HTTP response.
	Response Response `json:"-"`
}

// Diagnostics are what the service received, from GET /meta?diag=1.
type Diagnostics struct {
	// HeaderLengths maps each authentication header the service looks at (lower-case) to the
	// length of the value it received; 0 means the header did not arrive.
	HeaderLengths map[string]int `json:"headers"`
}

// HeaderLength returns the received length of the named header, matched case-insensitively,
// and whether the service reported that header at all.
func (d *Diagnostics) HeaderLength(name string) (int, bool) {
	if d == nil {
		return 0, false
	}
	for k, v := range d.HeaderLengths {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return 0, false
}

// OpenAPIDocument is the service's single contract, from GET /openapi.json.
type OpenAPIDocument struct {
	// JSON is the document exactly as served.
	JSON json.RawMessage
	// OpenAPI is the document's openapi version field, such as "3.1.0".
	OpenAPI string
	// Title and Version are the document's info.title and info.version.
	Title, Version string
	// Paths are the document's paths, sorted.
	Paths []string
	// Response describes the HTTP response.
	Response Response
}

// UnmarshalJSON keeps the document as served and reads the few fields OpenAPIDocument exposes;
// a JSON value without openapi or paths is refused.
func (d *OpenAPIDocument) UnmarshalJSON(b []byte) error {
	var v struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Title   string `json:"title"`
			Version string `json:"version"`
		} `json:"info"`
		Paths map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if v.OpenAPI == "" || v.Paths == nil {
		return fmt.Errorf("not an OpenAPI document: openapi or paths is missing")
	}
	*d = OpenAPIDocument{JSON: append(json.RawMessage(nil), b...), OpenAPI: v.OpenAPI, Title: v.Info.Title, Version: v.Info.Version}
	for p := range v.Paths {
		d.Paths = append(d.Paths, p)
	}
	sort.Strings(d.Paths)
	return nil
}

// requireFields returns an error naming the first of names that obj (a JSON object) lacks or
// holds as null.
func requireFields(what string, obj []byte, names ...string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		return err
	}
	for _, n := range names {
		if v, ok := m[n]; !ok || string(v) == "null" {
			return fmt.Errorf("%s: field %q is missing", what, n)
		}
	}
	return nil
}
