package chartdiff

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/jsonmember"
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
	Response sdk.Response `json:"-"`
}

// UnmarshalJSON decodes a chart in one pass, keeps its raw object, and refuses one without
// chart_id or analyzed: without them an absent value could not be told from a missing chart.
func (c *Chart) UnmarshalJSON(b []byte) error {
	w := chartWire{ID: absentID}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	return w.chart(b, c)
}

// plainChart is Chart without its UnmarshalJSON method.
type plainChart Chart

// absentID marks a chart_id the answer did not carry (or carried as null).
const absentID = math.MinInt

// chartWire is a chart as sent: the two fields the decoder must see present shadow the
// Chart fields of the same names, in forms that tell absent from zero without allocating.
// Start it with ID set to absentID.
type chartWire struct {
	plainChart
	ID       int         `json:"chart_id"`
	Analyzed presentBool `json:"analyzed"`
}

// chart checks the required fields and sets *c to the chart, keeping raw as its Raw.
func (w *chartWire) chart(raw []byte, c *Chart) error {
	switch {
	case w.ID == absentID:
		return jsonmember.Missing("chart", "chart_id")
	case w.Analyzed == absentBool:
		return jsonmember.Missing("chart", "analyzed")
	}
	*c = Chart(w.plainChart)
	c.ID, c.Analyzed = w.ID, w.Analyzed == trueBool
	c.Raw = append(json.RawMessage(nil), raw...)
	return nil
}

// presentBool is a JSON boolean that remembers whether it was sent.
type presentBool uint8

// The values of a presentBool.
const (
	absentBool presentBool = iota // not sent, or sent as null
	falseBool
	trueBool
)

// errNotBool is the error for a value that should be a boolean.
var errNotBool = errors.New("expected a boolean")

// UnmarshalJSON reads true, false or null.
func (p *presentBool) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true":
		*p = trueBool
	case "false":
		*p = falseBool
	case "null":
		*p = absentBool
	default:
		return errNotBool
	}
	return nil
}

// ChartPage is one page of GET /charts.
type ChartPage struct {
	// Total is the true number of charts matching the query, not the page size.
	Total int `json:"total"`
	// Page is the 1-based page number the service answered; 0 when it did not say.
	Page int `json:"page"`
	// PageSize is the page size the service used; 0 when it did not say.
	PageSize int `json:"pageSize"`
	// Charts are the charts of the page.
	Charts []Chart `json:"charts"`
	// Raw is the response body.
	Raw json.RawMessage `json:"-"`
	// Response describes the HTTP response.
	Response sdk.Response `json:"-"`
}

// UnmarshalJSON decodes a page in one pass. total is required. The list may be called
// charts, items or results (the API description does not name it); when it is null or absent
// it is an empty page if total is 0, and an error otherwise, so that a renamed list never
// reads as an empty one.
func (p *ChartPage) UnmarshalJSON(b []byte) error {
	var w struct {
		Total         *int                        `json:"total"`
		Page          jsonmember.Optional[int]    `json:"page"`
		PageSize      jsonmember.Optional[int]    `json:"pageSize"`
		PageSizeSnake jsonmember.Optional[int]    `json:"page_size"`
		Charts        jsonmember.Tracked[[]Chart] `json:"charts"`
		Items         jsonmember.Tracked[[]Chart] `json:"items"`
		Results       jsonmember.Tracked[[]Chart] `json:"results"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Total == nil {
		return jsonmember.Missing("chart list", "total")
	}
	list, _ := jsonmember.FirstTracked(w.Charts, w.Items, w.Results)
	if list == nil && *w.Total > 0 {
		return fmt.Errorf("chart list: the list of charts (charts, items or results) is missing or null while total is %d", *w.Total)
	}
	*p = ChartPage{Total: *w.Total, Page: w.Page.Or(0), PageSize: w.PageSize.Or(w.PageSizeSnake.Or(0)), Charts: list}
	if p.Charts == nil {
		p.Charts = []Chart{}
	}
	return nil
}

// Analysis is the result of Analyze.
type Analysis struct {
	// Chart holds the values; Chart.Analyzed is true.
	Chart Chart
	// Cached is true when the values came from the shared cache without running the engine.
	Cached bool
	// Response describes the HTTP response of the last attempt.
	Response sdk.Response
}

// UnmarshalJSON decodes the flat analysis object in one pass: the chart's fields plus
// cached, which is required.
func (a *Analysis) UnmarshalJSON(b []byte) error {
	var w struct {
		chartWire
		Cached presentBool `json:"cached"`
	}
	w.ID = absentID
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Cached == absentBool {
		return jsonmember.Missing("analysis", "cached")
	}
	if err := w.chart(b, &a.Chart); err != nil {
		return err
	}
	a.Cached = w.Cached == trueBool
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
	Response sdk.Response `json:"-"`
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
	// HasMore reports that the author has more charts than CharterParams.MaxPages let the
	// service read.
	HasMore bool `json:"has_more"`
	// Raw is the response body.
	Raw json.RawMessage `json:"-"`
	// Response describes the HTTP response.
	Response sdk.Response `json:"-"`
}

// UnmarshalJSON decodes the author's charts in one pass. The list may be called charts,
// items or results; an answer with none of them is refused, so that a renamed list never
// reads as an author without charts (null or [] is an empty list). The other fields are
// optional: uid (or id), pages_read, has_more.
func (c *CharterCharts) UnmarshalJSON(b []byte) error {
	var w struct {
		UID       jsonmember.Optional[int]    `json:"uid"`
		ID        jsonmember.Optional[int]    `json:"id"`
		PagesRead jsonmember.Optional[int]    `json:"pages_read"`
		HasMore   jsonmember.Optional[bool]   `json:"has_more"`
		Charts    jsonmember.Tracked[[]Chart] `json:"charts"`
		Items     jsonmember.Tracked[[]Chart] `json:"items"`
		Results   jsonmember.Tracked[[]Chart] `json:"results"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	list, ok := jsonmember.FirstTracked(w.Charts, w.Items, w.Results)
	if !ok {
		return jsonmember.Missing("charter charts", "charts")
	}
	*c = CharterCharts{UID: w.UID.Or(w.ID.Or(0)), PagesRead: w.PagesRead.Or(0), HasMore: w.HasMore.Or(false), Charts: list}
	if c.Charts == nil {
		c.Charts = []Chart{}
	}
	return nil
}

// Player is a player's public profile from GET /players/{uid}; it never holds score details.
// The API description names no field but stats, so every field is optional: a value that is
// absent, or of another type than expected, is left zero (nil for the pointers) and Raw keeps
// the whole answer.
type Player struct {
	// ID is the player's uid, read from id or uid; when the answer carries neither, it is the
	// uid that was asked for.
	ID int
	// Name is the display name.
	Name string
	// Avatar is the avatar's URL, when set (sent as a string or as {"url": ...}).
	Avatar string
	// Badges are the player's badges.
	Badges []string
	// Language is the player's language setting.
	Language string
	// Bio is the player's self-description.
	Bio string
	// Exp is the experience points.
	Exp *int
	// RKS is the player's ranking score.
	RKS *float64
	// Joined is when the player registered.
	Joined *time.Time
	// LastLogin is when the player last logged in.
	LastLogin *time.Time
	// Stats are the player's statistics; nil when the service could not fetch them (the call
	// still succeeds).
	Stats *PlayerStats
	// Raw is the response body.
	Raw json.RawMessage
	// Response describes the HTTP response.
	Response sdk.Response
}

// UnmarshalJSON decodes a player in one pass, leniently.
func (p *Player) UnmarshalJSON(b []byte) error {
	var w struct {
		ID        jsonmember.Optional[int]         `json:"id"`
		UID       jsonmember.Optional[int]         `json:"uid"`
		Name      jsonmember.Optional[string]      `json:"name"`
		Avatar    jsonmember.Optional[urlOrString] `json:"avatar"`
		Badges    jsonmember.Optional[[]string]    `json:"badges"`
		Language  jsonmember.Optional[string]      `json:"language"`
		Bio       jsonmember.Optional[string]      `json:"bio"`
		Exp       jsonmember.Optional[int]         `json:"exp"`
		RKS       jsonmember.Optional[float64]     `json:"rks"`
		Joined    jsonmember.Optional[time.Time]   `json:"joined"`
		LastLogin jsonmember.Optional[time.Time]   `json:"last_login"`
		Stats     jsonmember.Optional[PlayerStats] `json:"stats"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*p = Player{
		ID: w.ID.Or(w.UID.Or(0)), Name: w.Name.Or(""), Avatar: string(w.Avatar.Or("")),
		Badges: w.Badges.Or(nil), Language: w.Language.Or(""), Bio: w.Bio.Or(""),
		Exp: w.Exp.Ptr(), RKS: w.RKS.Ptr(), Joined: w.Joined.Ptr(), LastLogin: w.LastLogin.Ptr(), Stats: w.Stats.Ptr(),
	}
	return nil
}

// urlOrString is a URL sent either as a string or as an object {"url": ...}.
type urlOrString string

// UnmarshalJSON accepts both forms.
func (u *urlOrString) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*u = urlOrString(s)
		return nil
	}
	var o struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	*u = urlOrString(o.URL)
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
	// KeyNotUsed, not from the answer, is set when the client asked with its account token
	// because it has no API key while CHARTDIFF_API_KEY is set: it says why the variable was
	// not used (the address was given with WithBaseURL) and how to send the key.
	KeyNotUsed string `json:"-"`
	// Raw is the response body.
	Raw json.RawMessage `json:"-"`
	// Response describes the HTTP response.
	Response sdk.Response `json:"-"`
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

// BuildInfo is the build information of GET /meta.
type BuildInfo struct {
	// Service is the service's name.
	Service string `json:"service"`
	// Version is the API version, such as "1.2.0".
	Version string `json:"version"`
	// Build identifies the deployed build.
	Build string `json:"build"`
	// EngineVersion is the current analysis engine version.
	EngineVersion string `json:"engine_version"`
	// Diag is present when BuildInfo was called with BuildInfoParams.Diagnostics.
	Diag *Diagnostics `json:"diag"`
	// Raw is the response body.
	Raw json.RawMessage `json:"-"`
	// Response describes the HTTP response.
	Response sdk.Response `json:"-"`
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
	Response sdk.Response
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

// The answers whose every field the API description leaves "not shown" decode leniently (see
// jsonmember.Object): a value of an unexpected type is left unset, and Raw keeps it. Each plain
// type is its public type without the UnmarshalJSON method.
type (
	plainStats       Stats
	plainPlayerStats PlayerStats
	plainUsageLimits UsageLimits
	plainKeyUsage    KeyUsage
	plainBuildInfo   BuildInfo
)

// UnmarshalJSON decodes the statistics leniently.
func (s *Stats) UnmarshalJSON(b []byte) error { return jsonmember.Object(b, (*plainStats)(s)) }

// UnmarshalJSON decodes a player's statistics leniently.
func (s *PlayerStats) UnmarshalJSON(b []byte) error {
	return jsonmember.Object(b, (*plainPlayerStats)(s))
}

// UnmarshalJSON decodes the usage leniently, as Stats, with an account id sent as a string or
// a number.
func (u *Usage) UnmarshalJSON(b []byte) error {
	var w struct {
		AccountID     jsonmember.Optional[KeyID]       `json:"account_id"`
		RequestsTotal jsonmember.Optional[int]         `json:"requests_total"`
		AnalysesTotal jsonmember.Optional[int]         `json:"analyses_total"`
		Limits        jsonmember.Optional[UsageLimits] `json:"limits"`
		Keys          jsonmember.Optional[[]KeyUsage]  `json:"keys"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*u = Usage{AccountID: string(w.AccountID.Or("")), RequestsTotal: w.RequestsTotal.Ptr(), AnalysesTotal: w.AnalysesTotal.Ptr(),
		Limits: w.Limits.Ptr(), Keys: w.Keys.Or(nil)}
	return nil
}

// UnmarshalJSON decodes the limits leniently.
func (l *UsageLimits) UnmarshalJSON(b []byte) error {
	return jsonmember.Object(b, (*plainUsageLimits)(l))
}

// UnmarshalJSON decodes a key's usage leniently.
func (k *KeyUsage) UnmarshalJSON(b []byte) error { return jsonmember.Object(b, (*plainKeyUsage)(k)) }

// UnmarshalJSON decodes the build information leniently.
func (i *BuildInfo) UnmarshalJSON(b []byte) error { return jsonmember.Object(b, (*plainBuildInfo)(i)) }
