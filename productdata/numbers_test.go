package productdata_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/productdata"
)

// notNumbers are texts that are not finite numbers in JSON's grammar, whatever a parser of
// another grammar makes of them.
var notNumbers = []string{"NaN", "nan", "Infinity", "-Infinity", "inf", "1e999", "-1e999", "+7", "0x10", "1_0", ""}

// TestRanksSentAsTextFollowTheNumberRule: a BsrCategory rank is read as JSON reads a number
// (12, 1e2, 3.0), and a rank that is not a finite whole number (NaN, Infinity, 1e999, +7,
// 2.5) is absent, never a value.
func TestRanksSentAsTextFollowTheNumberRule(t *testing.T) {
	t.Parallel()
	valid := map[string]int{"12": 12, "1e2": 100, "3.0": 3, " 4 ": 4, "-0": 0}
	var rows []any
	var want []*int
	for text, n := range valid {
		rows = append(rows, []any{"ranked " + text, "1", text})
		want = append(want, testkit.Ptr(n))
	}
	for _, text := range append(notNumbers, "2.5") {
		rows = append(rows, []any{"unranked " + text, "2", text})
		want = append(want, nil)
	}
	raw, err := json.Marshal(map[string]any{"ASIN": "B0CVM8TXHP", "SalesPrice": 1, "ListingSalesVolumeOfMonth": 2, "BsrCategory": rows})
	require.NoError(t, err)
	var p productdata.Product
	require.NoError(t, json.Unmarshal(raw, &p))
	require.Len(t, p.BsrCategory, len(want))
	for i, r := range p.BsrCategory {
		assert.Equal(t, want[i], r.Rank, r.Name)
	}
}

// TestTaskStatusesSentAsTextFollowTheNumberRule: the status of a "<ASIN>:<status>:<time>"
// entry must be a finite whole number in JSON's grammar; anything else fails the answer with
// an *sdk.DecodeError rather than reading as some status.
func TestTaskStatusesSentAsTextFollowTheNumberRule(t *testing.T) {
	t.Parallel()
	for _, status := range append(notNumbers, "1.5") {
		srv := newAPI(t, nil, func(r received) reply {
			if r.Endpoint == "ProductRealtimeRequest" {
				return fail(99, "collecting")
			}
			return ok(t, []string{"B0CVM8TXHP:" + status + ":2026-03-01 10:00:00"}, 10, 0)
		})
		c := newClient(t, srv, productdata.WithWait(sdk.WaitPolicy{MinDelay: time.Millisecond, MaxAttempts: 3}))
		_, err := c.RefreshProduct(t.Context(), productdata.AmazonUS, &productdata.RefreshProductParams{ASIN: "B0CVM8TXHP"})
		var de *sdk.DecodeError
		require.ErrorAs(t, err, &de, "status %q", status)
		assert.Equal(t, "/api/ProductRealtimeRequestStatusQuery", de.Path)
		assert.Len(t, srv.requests(), 2, "status %q: one start, one status query, no product read", status)
	}
}

// TestTaskIDsSentAsNumbersFollowTheNumberRule: a review collection answered with a task id
// that is a number at most 0, in any of JSON's spellings, has failed; an id that is not a
// finite number is an id like any other, and the wait goes on.
func TestTaskIDsSentAsNumbersFollowTheNumberRule(t *testing.T) {
	t.Parallel()
	for id, failed := range map[string]bool{`-1`: true, `0`: true, `-1.0`: true, `-1e0`: true, `"-2"`: true,
		`"NaN"`: false, `"-Infinity"`: false, `"-inf"`: false, `"-1e999"`: false, `88231`: false} {
		srv := newAPI(t, nil, func(r received) reply {
			if r.Endpoint == "ProductReviewsCollection" {
				return reply{body: `{"Code":0,"Data":` + id + `}`}
			}
			return ok(t, []string{"B0CVM8TXHP:0:--"}, 10, 0)
		})
		c := newClient(t, srv, productdata.WithWait(sdk.WaitPolicy{MinDelay: time.Millisecond, MaxAttempts: 2}))
		_, err := c.CollectReviews(t.Context(), productdata.AmazonUS, &productdata.CollectReviewsParams{ASIN: "B0CVM8TXHP"})
		if failed {
			var te *productdata.TaskError
			require.ErrorAs(t, err, &te, "id %s", id)
			assert.Len(t, srv.requests(), 1, "id %s: no status query for a failed task", id)
			continue
		}
		var we *sdk.WaitError
		require.ErrorAs(t, err, &we, "id %s", id)
		assert.Len(t, srv.requests(), 2, "id %s: the task was polled", id)
	}
}
