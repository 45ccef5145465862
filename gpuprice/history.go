package gpuprice

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/lenient"
)

// HistoryParams narrow the snapshot history. The API description does not show the
// parameters of /v1/history; these are sent under the names the price endpoints use (model,
// platform) and the usual ones of a time range (from, to as RFC 3339, limit). A zero field is
// not sent.
type HistoryParams struct {
	// Model is a GPU model such as "H100".
	Model string
	// Platform is a platform such as "aws".
	Platform string
	// From and To bound the snapshots' times.
	From, To time.Time
	// Limit caps the number of snapshots; 0 leaves it to the service.
	Limit int
}

// History is the snapshot history and the market benchmarks of GET /v1/history.
type History struct {
	// Snapshots are the recorded prices, as the service ordered them.
	Snapshots []Snapshot
	// Benchmarks sum up each model's prices over the range; nil when the answer carried none.
	Benchmarks []Benchmark
	// From and To are the range the service answered, when it said.
	From, To *time.Time
	// Interval is the spacing of the snapshots, such as "1d", when the service said.
	Interval string
	// Total is how many snapshots the range holds, when the service said; Truncated reports
	// that Snapshots holds fewer (a limit applied).
	Total     *int
	Truncated *bool
	// Raw is the response body.
	Raw json.RawMessage
	// Response describes the HTTP response.
	Response sdk.Response
}

// Snapshot is one recorded price.
type Snapshot struct {
	// Timestamp is when the price was recorded.
	Timestamp *time.Time
	// Model and Platform say whose price it is.
	Model, Platform string
	// USDPerHour is the price in USD per GPU-hour; nil when the snapshot had none.
	USDPerHour *float64
	// Raw is the snapshot as the service sent it.
	Raw json.RawMessage
}

// UnmarshalJSON reads a snapshot under the likely spellings of its members.
func (s *Snapshot) UnmarshalJSON(b []byte) error {
	var w struct {
		Timestamp  lenient.Opt[timestamp]      `json:"timestamp"`
		Time       lenient.Opt[timestamp]      `json:"time"`
		Date       lenient.Opt[timestamp]      `json:"date"`
		TS         lenient.Opt[timestamp]      `json:"ts"`
		Model      lenient.Opt[lenient.Text]   `json:"model"`
		GPU        lenient.Opt[lenient.Text]   `json:"gpu"`
		Platform   lenient.Opt[lenient.Text]   `json:"platform"`
		Provider   lenient.Opt[lenient.Text]   `json:"provider"`
		PriceUSDHr lenient.Opt[lenient.Number] `json:"price_usd_hr"`
		USDPerHour lenient.Opt[lenient.Number] `json:"usd_per_hour"`
		USDHr      lenient.Opt[lenient.Number] `json:"usd_hr"`
		Price      lenient.Opt[lenient.Number] `json:"price"`
		Value      lenient.Opt[lenient.Number] `json:"value"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = Snapshot{
		Timestamp:  times(w.Timestamp, w.Time, w.Date, w.TS),
		Model:      texts(w.Model, w.GPU),
		Platform:   texts(w.Platform, w.Provider),
		USDPerHour: floats(w.PriceUSDHr, w.USDPerHour, w.USDHr, w.Price, w.Value),
		Raw:        bytes.Clone(b),
	}
	return nil
}

// Benchmark sums up one model's prices over the history's range. A value the service did
// not send is nil.
type Benchmark struct {
	// Model is the GPU model.
	Model string
	// Samples is the number of snapshots summed up.
	Samples *int
	// MinUSDHr, MaxUSDHr and MeanUSDHr are the lowest, highest and mean price in USD per
	// GPU-hour.
	MinUSDHr, MaxUSDHr, MeanUSDHr *float64
	// ChangePct is the change of the price over the range, in percent.
	ChangePct *float64
	// Raw is the benchmark as the service sent it.
	Raw json.RawMessage
}

// UnmarshalJSON reads a benchmark under the likely spellings of its members.
func (m *Benchmark) UnmarshalJSON(b []byte) error {
	var w struct {
		Model     lenient.Opt[lenient.Text]   `json:"model"`
		GPU       lenient.Opt[lenient.Text]   `json:"gpu"`
		Samples   lenient.Opt[integer]        `json:"samples"`
		Count     lenient.Opt[integer]        `json:"count"`
		MinUSDHr  lenient.Opt[lenient.Number] `json:"min_usd_hr"`
		Min       lenient.Opt[lenient.Number] `json:"min"`
		MaxUSDHr  lenient.Opt[lenient.Number] `json:"max_usd_hr"`
		Max       lenient.Opt[lenient.Number] `json:"max"`
		MeanUSDHr lenient.Opt[lenient.Number] `json:"mean_usd_hr"`
		Mean      lenient.Opt[lenient.Number] `json:"mean"`
		AvgUSDHr  lenient.Opt[lenient.Number] `json:"avg_usd_hr"`
		Avg       lenient.Opt[lenient.Number] `json:"avg"`
		ChangePct lenient.Opt[lenient.Number] `json:"change_pct"`
		Change    lenient.Opt[lenient.Number] `json:"change_percent"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = Benchmark{
		Model:     texts(w.Model, w.GPU),
		Samples:   ints(w.Samples, w.Count),
		MinUSDHr:  floats(w.MinUSDHr, w.Min),
		MaxUSDHr:  floats(w.MaxUSDHr, w.Max),
		MeanUSDHr: floats(w.MeanUSDHr, w.Mean, w.AvgUSDHr, w.Avg),
		ChangePct: floats(w.ChangePct, w.Change),
		Raw:       bytes.Clone(b),
	}
	return nil
}

// UnmarshalJSON reads the history: the snapshots under snapshots, history, data, items or
// results (a total of 0 with no list is empty; no list otherwise is an error), the
// benchmarks under benchmarks or benchmark, and the range's members.
func (h *History) UnmarshalJSON(b []byte) error {
	var w struct {
		From       lenient.Opt[timestamp]     `json:"from"`
		To         lenient.Opt[timestamp]     `json:"to"`
		Interval   lenient.Opt[lenient.Text]  `json:"interval"`
		Total      lenient.Opt[integer]       `json:"total"`
		Count      lenient.Opt[integer]       `json:"count"`
		Truncated  lenient.Opt[bool]          `json:"truncated"`
		Snapshots  lenient.Field[[]Snapshot]  `json:"snapshots"`
		History    lenient.Field[[]Snapshot]  `json:"history"`
		Data       lenient.Field[[]Snapshot]  `json:"data"`
		Items      lenient.Field[[]Snapshot]  `json:"items"`
		Results    lenient.Field[[]Snapshot]  `json:"results"`
		Benchmarks lenient.Field[[]Benchmark] `json:"benchmarks"`
		Benchmark  lenient.Field[[]Benchmark] `json:"benchmark"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	snaps, found := lenient.FirstField(w.Snapshots, w.History, w.Data, w.Items, w.Results)
	total := ints(w.Total)
	snaps, err := lenient.List("history", snaps, found, ints(w.Total, w.Count), "snapshots", "history", "data", "items", "results")
	if err != nil {
		return err
	}
	benchmarks, _ := lenient.FirstField(w.Benchmarks, w.Benchmark)
	*h = History{
		Snapshots:  snaps,
		Benchmarks: benchmarks,
		From:       times(w.From),
		To:         times(w.To),
		Interval:   texts(w.Interval),
		Total:      total,
		Truncated:  lenient.FirstPtr(w.Truncated),
		Raw:        bytes.Clone(b),
	}
	return nil
}

// History returns the snapshot history and market benchmarks (GET /v1/history), narrowed by
// params (nil for the service's defaults); it needs the key of a Pro or Unlimited plan.
// Without a key it returns an *sdk.MissingCredentialError (matching ErrKeyRequired) before
// any request, which says when GPUPRICE_API_KEY is set but was not used (the address was
// given with WithBaseURL) and how to send it anyway; SetAPIKey and BuyKey give a key later; a free key is an *sdk.APIError matching ErrForbidden and ErrPlanRequired, an
// unknown or expired one an *sdk.APIError matching ErrUnauthorized.
func (c *Client) History(ctx context.Context, params *HistoryParams) (*History, error) {
	if !c.hasKey.Load() {
		return nil, c.settings.MissingCredential(serviceName, "History", "API key", "WithAPIKey", EnvAPIKey, ErrKeyRequired)
	}
	q := url.Values{}
	if params != nil {
		if err := setName(q, "model", params.Model); err != nil {
			return nil, err
		}
		if err := setName(q, "platform", params.Platform); err != nil {
			return nil, err
		}
		switch {
		case params.Limit < 0:
			return nil, invalid("limit", "must not be negative")
		case !params.From.IsZero() && !params.To.IsZero() && params.From.After(params.To):
			return nil, invalid("from", "must not be after to")
		}
		if !params.From.IsZero() {
			q.Set("from", params.From.UTC().Format(time.RFC3339))
		}
		if !params.To.IsZero() {
			q.Set("to", params.To.UTC().Format(time.RFC3339))
		}
		if params.Limit > 0 {
			q.Set("limit", strconv.Itoa(params.Limit))
		}
	}
	var out History
	resp, err := c.get(ctx, historyPath, q, &out)
	if err != nil {
		return nil, err
	}
	out.Response = resp.Meta()
	return &out, nil
}
