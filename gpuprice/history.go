package gpuprice

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"time"

	"github.com/agentapis/sdk"
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
	// PlatformName is the platform's display name, when the snapshot said.
	PlatformName string
	// USDPerHour is the price in USD per GPU-hour; nil when the snapshot had none.
	USDPerHour *float64
	// Raw is the snapshot as the service sent it.
	Raw json.RawMessage
}

// UnmarshalJSON reads a snapshot under the spellings of its members: a price under
// price_usd_hr, best_price_usd_hr (as in the cheapest price), usd_per_hour, price, value...
func (s *Snapshot) UnmarshalJSON(b []byte) error {
	m, err := readMembers(b)
	if err != nil {
		return err
	}
	*s = Snapshot{
		Timestamp:    m.time(fieldTime),
		Model:        m.text(fieldModel),
		Platform:     m.text(fieldPlatform),
		PlatformName: m.text(fieldPlatformName),
		USDPerHour:   m.number(fieldHourPrice, fieldIndexValue),
		Raw:          bytes.Clone(b),
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

// UnmarshalJSON reads a benchmark under the spellings of its members.
func (m *Benchmark) UnmarshalJSON(b []byte) error {
	f, err := readMembers(b)
	if err != nil {
		return err
	}
	*m = Benchmark{
		Model:     f.text(fieldModel),
		Samples:   f.integer(fieldSamples),
		MinUSDHr:  f.number(fieldMin),
		MaxUSDHr:  f.number(fieldMax),
		MeanUSDHr: f.number(fieldMean),
		ChangePct: f.number(fieldChangePct),
		Raw:       bytes.Clone(b),
	}
	return nil
}

// UnmarshalJSON reads the history: the snapshots under snapshots, history, data, items or
// results, in any of their spellings (a total of 0 with no list is empty, no list otherwise
// is an error), the benchmarks under benchmarks or benchmark, and the range's members.
func (h *History) UnmarshalJSON(b []byte) error {
	m, err := readMembers(b)
	if err != nil {
		return err
	}
	total := m.integer(fieldTotal)
	snaps, err := list[Snapshot](m, "history", fieldSnapshots, m.integer(fieldTotal, fieldCount))
	if err != nil {
		return err
	}
	benchmarks, _, err := carried[Benchmark](m, fieldBenchmarks)
	if err != nil {
		return err
	}
	*h = History{
		Snapshots:  snaps,
		Benchmarks: benchmarks,
		From:       m.time(fieldFrom),
		To:         m.time(fieldTo),
		Interval:   m.text(fieldInterval),
		Total:      total,
		Truncated:  m.flag(fieldTruncated),
		Raw:        bytes.Clone(b),
	}
	return nil
}

// historyKey says what key History needs and where it goes, for its error without one.
const historyKey = "GET /v1/history sends it in the " + KeyHeader + " header, and it must be of a Pro or Unlimited plan"

// History returns the snapshot history and market benchmarks (GET /v1/history), narrowed by
// params (nil for the service's defaults); it needs the key of a Pro or Unlimited plan.
// Without a key it returns an *sdk.MissingCredentialError (matching ErrKeyRequired) before
// any request, which names the X-API-Key header the key travels in, and says when
// GPUPRICE_API_KEY is set but was not used (the address was given with WithBaseURL) and how
// to send it anyway; SetAPIKey and BuyKey give a key later. A free key is an *sdk.APIError
// matching ErrForbidden and ErrPlanRequired, an unknown or expired one an *sdk.APIError
// matching ErrUnauthorized.
func (c *Client) History(ctx context.Context, params *HistoryParams) (*History, error) {
	if !c.hasKey.Load() {
		err := c.settings.MissingCredential(serviceName, "History", "API key", "WithAPIKey", EnvAPIKey, ErrKeyRequired)
		err.Reason = historyKey + "; " + err.Reason + "; BuyKey buys one"
		return nil, err
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
	return get(ctx, c, historyPath, q, func(h *History) *sdk.Response { return &h.Response })
}
