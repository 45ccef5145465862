package chartdiff

import (
	"cmp"
	"context"
	"iter"
	"net/url"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/paging"
)

// SortField is a field GET /charts can sort by.
type SortField string

// The sort fields the service allows.
const (
	SortChartID     SortField = "chart_id"
	SortName        SortField = "name"
	SortLevel       SortField = "level"
	SortDifficulty  SortField = "difficulty"
	SortRefConst    SortField = "ref_const"
	SortRefOfficial SortField = "ref_official"
	SortPSScore     SortField = "ps_score"
	SortNPS         SortField = "nps"
	SortNotes       SortField = "notes"
)

// SortFields lists every allowed sort field, in the API description's order.
func SortFields() []SortField {
	return []SortField{SortChartID, SortName, SortLevel, SortDifficulty, SortRefConst, SortRefOfficial, SortPSScore, SortNPS, SortNotes}
}

// Order is a sort direction.
type Order string

// The sort directions.
const (
	Asc  Order = "asc"
	Desc Order = "desc"
)

// ChartFilter is a filter of GET /charts, its query parameter only.
type ChartFilter string

// The chart filters.
const (
	// FilterOfficial keeps the charts whose official-scale value can be computed.
	FilterOfficial ChartFilter = "official"
	// FilterStale keeps the charts whose engine version differs from the baseline (see
	// ChartsParams.Build).
	FilterStale ChartFilter = "stale"
)

// Limits of GET /charts.
const (
	// DefaultPageSize is the service's page size when none is given.
	DefaultPageSize = 50
	// MaxPageSize is the largest page size.
	MaxPageSize = 200
	// MaxQueryLength is the longest search text, in characters.
	MaxQueryLength = 60
)

// ChartsParams are the parameters of GET /charts, for Charts and AllCharts. A zero field is
// not sent, so the service's default applies (page 1, page size 50, sort chart_id, order asc,
// no filter).
type ChartsParams struct {
	// Page is the 1-based page number.
	Page int
	// PageSize is the number of charts per page, 1 to 200.
	PageSize int
	// Sort is the field to sort by; see SortFields.
	Sort SortField
	// Order is Asc or Desc.
	Order Order
	// Query matches a substring of the chart name; at most 60 characters (not bytes).
	Query string
	// Level keeps the charts whose level starts with it, such as "IN", "AT" or "SP".
	Level string
	// Filter is FilterOfficial or FilterStale, sent as only.
	Filter ChartFilter
	// Build is the baseline engine version of FilterStale; it is refused with any other
	// Filter.
	Build string
}

// query validates p and returns its query parameters; a zero field is not sent.
func (p *ChartsParams) query() (url.Values, error) {
	switch {
	case p.Page < 0:
		return nil, invalid("page", "must be 1 or more")
	case p.PageSize < 0 || p.PageSize > MaxPageSize:
		return nil, invalid("pageSize", "must be between 1 and 200")
	case p.Sort != "" && !slices.Contains(SortFields(), p.Sort):
		return nil, invalid("sort", "must be one of chart_id, name, level, difficulty, ref_const, ref_official, ps_score, nps, notes")
	case p.Order != "" && p.Order != Asc && p.Order != Desc:
		return nil, invalid("order", "must be asc or desc")
	case !utf8.ValidString(p.Query):
		return nil, invalid("q", "must be valid UTF-8")
	case utf8.RuneCountInString(p.Query) > MaxQueryLength:
		return nil, invalid("q", "must be at most 60 characters")
	case p.Filter != "" && p.Filter != FilterOfficial && p.Filter != FilterStale:
		return nil, invalid("only", "must be official or stale")
	case p.Build != "" && p.Filter != FilterStale:
		return nil, invalid("build", "is meaningful only with only=stale")
	}
	q := url.Values{}
	for k, v := range map[string]string{"sort": string(p.Sort), "order": string(p.Order), "q": p.Query, "level": p.Level,
		"only": string(p.Filter), "build": p.Build} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if p.Page > 0 {
		q.Set("page", strconv.Itoa(p.Page))
	}
	if p.PageSize > 0 {
		q.Set("pageSize", strconv.Itoa(p.PageSize))
	}
	return q, nil
}

// checkID refuses a non-positive id before any request.
func checkID(field string, id int) error {
	if id <= 0 {
		return invalid(field, "must be a positive integer")
	}
	return nil
}

// Chart returns the stored values of a chart. A chart that was never analysed is not an error:
// it comes back with Analyzed false and nil values.
func (c *Client) Chart(ctx context.Context, chartID int) (*Chart, error) {
	if err := checkID("chart_id", chartID); err != nil {
		return nil, err
	}
	var out Chart
	resp, err := c.get(ctx, httpcore.Path("charts", strconv.Itoa(chartID)), nil, &out)
	if err != nil {
		return nil, err
	}
	out.Response = resp.Meta()
	return &out, nil
}

// Charts returns one page of the shared cache of charts, with the true total count. params may
// be nil; it is validated before any request.
func (c *Client) Charts(ctx context.Context, params *ChartsParams) (*ChartPage, error) {
	var o ChartsParams
	if params != nil {
		o = *params
	}
	q, err := o.query()
	if err != nil {
		return nil, err
	}
	var out ChartPage
	resp, err := c.get(ctx, "/charts", q, &out)
	if err != nil {
		return nil, err
	}
	out.Raw, out.Response = resp.Body, resp.Meta()
	return &out, nil
}

// AllCharts iterates over every chart matching params, from params.Page (default 1) on,
// fetching each page only when the loop reaches it:
//
//	for ch, err := range client.AllCharts(ctx, &chartdiff.ChartsParams{PageSize: 200}) {
//		if err != nil { return err }
//		...
//	}
//
// The iteration stops after a short or empty page, or once Total charts were seen; breaking
// out of the loop sends no further request. An error (invalid parameters included) is yielded
// once, and the iteration ends. params is copied; the caller's value is never changed.
func (c *Client) AllCharts(ctx context.Context, params *ChartsParams) iter.Seq2[Chart, error] {
	var o ChartsParams
	if params != nil {
		o = *params
	}
	if _, err := o.query(); err != nil {
		return func(yield func(Chart, error) bool) { yield(Chart{}, err) }
	}
	fetch := func(ctx context.Context, n int) (paging.Page[Chart], error) {
		o := o
		o.Page = n
		p, err := c.Charts(ctx, &o)
		if err != nil {
			return paging.Page[Chart]{}, err
		}
		// The size the service used, else the one asked for (never negative), else the default.
		size := cmp.Or(max(p.PageSize, 0), o.PageSize, DefaultPageSize)
		seen := (n-1)*size + len(p.Charts)
		return paging.Page[Chart]{Items: p.Charts, More: len(p.Charts) >= size && seen < p.Total, Raw: p.Raw}, nil
	}
	return paging.All(ctx, serviceName, max(o.Page, 1), fetch, nil)
}
