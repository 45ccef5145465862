package productdatatest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/productdata/productdatatest"
	"github.com/agentapis/sdk/sdktest"
)

// statuses queries the real-time refresh status of ASINs.
func statuses(t *testing.T, srv *productdatatest.Server, asins ...string) []string {
	t.Helper()
	body := `{"ASINs":[`
	for i, a := range asins {
		if i > 0 {
			body += ","
		}
		body += `"` + a + `"`
	}
	var out []string
	post(t, srv, "ProductRealtimeRequestStatusQuery", 1, body+`]}`).ok(t, &out)
	return out
}

func TestRealtimeRefreshesFinishAtTheConfiguredTimes(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	finish := map[string]time.Duration{
		"B0TASK0001": time.Second,
		"B0TASK0005": 5 * time.Second,
		"B0TASK0020": 20 * time.Second,
		"B0TASK0045": 45 * time.Second,
		"B0TASK0085": 85 * time.Second,
	}
	byASIN := map[string]time.Duration{}
	for a, d := range finish {
		byASIN[strings.ToLower(a)] = d // ASINs match in any letter case
	}
	srv := start(t, productdatatest.WithClock(clock), productdatatest.WithPerMinuteLimit(0),
		productdatatest.WithTaskDuration(time.Hour), productdatatest.WithTaskDurations(byASIN))
	for a := range finish {
		r := post(t, srv, "ProductRealtimeRequest", 1, `{"ASIN":"`+a+`","Update":1}`)
		assert.Contains(t, r.failed(t, 99), "Collecting")
		_, consumed := r.units(t)
		assert.Equal(t, 1, consumed)
	}
	left := srv.RequestLeft()
	polls := 0
	for elapsed := time.Duration(0); elapsed <= 90*time.Second; elapsed += 500 * time.Millisecond {
		for a, d := range finish {
			got := statuses(t, srv, a)
			polls++
			if elapsed < d {
				assert.Equal(t, []string{a + ":0:--"}, got, "%s at %s", a, elapsed)
			} else {
				assert.Equal(t, []string{a + ":1:" + epoch.Add(d).Format("2006-01-02 15:04:05")}, got, "%s at %s", a, elapsed)
			}
		}
		clock.Advance(500 * time.Millisecond)
	}
	assert.Equal(t, left-polls, srv.RequestLeft(), "every poll consumes a unit")

	// Refreshed a moment ago, each product is now fresh even for Update 1.
	for a := range finish {
		var p map[string]any
		post(t, srv, "ProductRealtimeRequest", 1, `{"asin":"`+a+`","update":1}`).ok(t, &p)
		assert.Equal(t, a, p["ASIN"])
		assert.Contains(t, p, "SalesPrice")
	}
}

func TestRealtimeRequestWhileRunningStartsNoSecondTask(t *testing.T) {
	t.Parallel()
	srv, clock := startClock(t, productdatatest.WithTaskDuration(10*time.Second))
	post(t, srv, "ProductRealtimeRequest", 1, `{"ASIN":"`+asin+`","Update":1}`).failed(t, 99)
	clock.Advance(6 * time.Second)
	post(t, srv, "ProductRealtimeRequest", 1, `{"ASIN":"`+asin+`","Update":1}`).failed(t, 99)
	clock.Advance(4 * time.Second)
	assert.Equal(t, []string{asin + ":1:2026-03-02 09:30:10"}, statuses(t, srv, asin), "the first task, not one started at 6 s")
	assert.Equal(t, []string{asin + ":1:2026-03-02 09:30:10"}, statuses(t, srv, "B0D3DL6PXQ", asin), "ASINs without a task are left out")
	other := post(t, srv, "ProductRealtimeRequestStatusQuery", 2, `{"ASINs":["`+asin+`"]}`)
	other.failed(t, 11)
}

func TestRealtimeRequestFreshProductAnswersAtOnce(t *testing.T) {
	t.Parallel()
	srv := start(t)
	// Every product was refreshed 1 to 72 hours before the fake started.
	var p map[string]any
	post(t, srv, "ProductRealtimeRequest", 1, `{"ASIN":"`+asin+`","Update":73}`).ok(t, &p)
	assert.Equal(t, asin, p["ASIN"])
	assert.NotContains(t, p, "PriceTrend")
	post(t, srv, "ProductRealtimeRequestStatusQuery", 1, `{"ASINs":["`+asin+`"]}`).failed(t, 11)
	for _, body := range []string{`{}`, `{"ASIN":"` + asin + `","Update":0}`, `{"ASIN":"` + asin + `","Update":121}`, `{"ASIN":"x"}`} {
		post(t, srv, "ProductRealtimeRequest", 1, body).failed(t, 10)
	}
	for _, body := range []string{`{}`, `{"ASINs":"` + asin + `"}`, `{"ASINs":[]}`, `{"ASINs":["short"]}`} {
		post(t, srv, "ProductRealtimeRequestStatusQuery", 1, body).failed(t, 10)
	}
}

func TestRealtimeRefreshThatFails(t *testing.T) {
	t.Parallel()
	const failing = productdatatest.FailingASINPrefix + "0001"
	srv, clock := startClock(t)
	post(t, srv, "ProductRealtimeRequest", 1, `{"ASIN":"`+failing+`","Update":1}`).failed(t, 99)
	clock.Advance(productdatatest.DefaultTaskDuration)
	assert.Equal(t, []string{failing + ":3:--"}, statuses(t, srv, failing))
	assert.Contains(t, post(t, srv, "ProductRealtimeRequest", 1, `{"ASIN":"`+failing+`","Update":1}`).failed(t, 98), "Collection failed")
	post(t, srv, "ProductRealtimeRequest", 1, `{"ASIN":"`+failing+`","Update":1}`).failed(t, 99)
	assert.Equal(t, []string{failing + ":0:--"}, statuses(t, srv, failing), "a new refresh started")
}

func TestRealtimeRequestForAMissingProduct(t *testing.T) {
	t.Parallel()
	const missing = productdatatest.MissingASINPrefix + "0001"
	srv := start(t)
	r := post(t, srv, "ProductRealtimeRequest", 1, `{"ASIN":"`+missing+`"}`)
	assert.Equal(t, "ASIN does not exist", r.failed(t, 97))
	_, consumed := r.units(t)
	assert.Equal(t, 1, consumed)
	assert.Equal(t, []string{missing + ":5:--"}, statuses(t, srv, missing))
}

// reviewStatuses queries the review collections created on the fake's day.
func reviewStatuses(t *testing.T, srv *productdatatest.Server) []string {
	t.Helper()
	var out []string
	post(t, srv, "ProductReviewsCollectionStatusQuery", 1, `{}`).ok(t, &out)
	return out
}

func TestReviewCollectionFlow(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	srv := start(t, productdatatest.WithClock(clock), productdatatest.WithTaskDurations(map[string]time.Duration{asin: 45 * time.Second}))
	assert.Contains(t, post(t, srv, "ProductReviewsQuery", 1, `{"ASIN":"`+asin+`"}`).failed(t, 13), "collect the reviews first")
	post(t, srv, "ProductReviewsCollectionStatusQuery", 1, `{}`).failed(t, 11)

	var id string
	post(t, srv, "ProductReviewsCollection", 1, `{"ASIN":"`+asin+`","Page":3,"CollectType":1,"Star":"1,5"}`).ok(t, &id)
	assert.Equal(t, "1", id, "Data is the task id, a string")
	var again string
	dup := post(t, srv, "ProductReviewsCollection", 1, `{"ASIN":"`+asin+`"}`)
	assert.Contains(t, dup.failed(t, 12), "already exists")
	dup.member(t, "Data", &again)
	assert.Equal(t, id, again, "a running collection is not started twice")

	clock.Advance(44 * time.Second)
	assert.Contains(t, post(t, srv, "ProductReviewsQuery", 1, `{"ASIN":"`+asin+`"}`).failed(t, 20), "being calculated")
	assert.Equal(t, []string{asin + ":0:--"}, reviewStatuses(t, srv))
	clock.Advance(time.Second)
	assert.Equal(t, []string{asin + ":1:2026-03-02 09:30:45"}, reviewStatuses(t, srv))

	var reviews []struct {
		ReviewID     string `json:"ReviewId"`
		Title        string
		Content      string
		Star         int
		IsVerified   bool
		ReviewDate   string
		ReviewerName string
		HelpfulCount int
		ImageUrls    []string
		CollectedAt  string
	}
	post(t, srv, "ProductReviewsQuery", 1, `{"asin":"`+asin+`"}`).ok(t, &reviews)
	require.Len(t, reviews, 60, "3 pages of 10 for each of 2 star filters")
	ids := map[string]bool{}
	for i, rv := range reviews {
		assert.Contains(t, []int{1, 5}, rv.Star)
		assert.NotEmpty(t, rv.Title)
		assert.NotEmpty(t, rv.Content)
		assert.NotEmpty(t, rv.ReviewerName)
		assert.Equal(t, "2026-03-02 09:30:45", rv.CollectedAt)
		assert.Len(t, rv.ReviewID, 14)
		assert.False(t, ids[rv.ReviewID])
		ids[rv.ReviewID] = true
		if i > 0 {
			assert.LessOrEqual(t, rv.ReviewDate, reviews[i-1].ReviewDate, "newest first")
		}
	}
	var fives []struct{ Star int }
	post(t, srv, "ProductReviewsQuery", 1, `{"ASIN":"`+asin+`","Star":5}`).ok(t, &fives)
	assert.Len(t, fives, 30)
	var low []struct{ Star int }
	post(t, srv, "ProductReviewsQuery", 1, `{"ASIN":"`+asin+`","Star":10}`).ok(t, &low)
	assert.Len(t, low, 30, "10 is one to three stars")
	post(t, srv, "ProductReviewsQuery", 1, `{"ASIN":"`+asin+`","Page":2}`).failed(t, 11)
	post(t, srv, "ProductReviewsQuery", 1, `{"ASIN":"`+asin+`","Star":4}`).failed(t, 11)

	// Within two hours of its success the product cannot be collected again.
	clock.Advance(2*time.Hour - time.Second)
	post(t, srv, "ProductReviewsCollection", 1, `{"ASIN":"`+asin+`"}`).failed(t, 12)
	clock.Advance(time.Second)
	post(t, srv, "ProductReviewsCollection", 1, `{"ASIN":"`+asin+`"}`).ok(t, &id)
	assert.Equal(t, "2", id)
	assert.Equal(t, []string{asin + ":1:2026-03-02 09:30:45", asin + ":0:--"}, reviewStatuses(t, srv))

	var byDate []string
	post(t, srv, "ProductReviewsCollectionStatusQuery", 1, `{"QueryDate":"2026-03-02"}`).ok(t, &byDate)
	assert.Len(t, byDate, 2)
	post(t, srv, "ProductReviewsCollectionStatusQuery", 1, `{"QueryDate":"2026-03-01"}`).failed(t, 11)
	post(t, srv, "ProductReviewsCollectionStatusQuery", 1, `{"QueryDate":"20260302"}`).failed(t, 10)
	post(t, srv, "ProductReviewsCollectionStatusQuery", 2, `{}`).failed(t, 11)
}

func TestReviewCollectionStarFilters(t *testing.T) {
	t.Parallel()
	srv, clock := startClock(t)
	var id string
	post(t, srv, "ProductReviewsCollection", 1, `{"ASIN":"`+asin+`","Page":2,"Star":"10, 11"}`).ok(t, &id)
	clock.Advance(productdatatest.DefaultTaskDuration)
	var reviews []struct{ Star int }
	post(t, srv, "ProductReviewsQuery", 1, `{"ASIN":"`+asin+`"}`).ok(t, &reviews)
	require.Len(t, reviews, 40)
	low, high := 0, 0
	for _, rv := range reviews {
		require.True(t, rv.Star >= 1 && rv.Star <= 5, rv.Star)
		if rv.Star <= 3 {
			low++
		} else {
			high++
		}
	}
	assert.Equal(t, 20, low, "filter 10 gathers one to three stars")
	assert.Equal(t, 20, high, "filter 11 gathers four and five stars")
	var positive []struct{ Star int }
	post(t, srv, "ProductReviewsQuery", 1, `{"ASIN":"`+asin+`","Star":11}`).ok(t, &positive)
	assert.Len(t, positive, 20)
	wantThrees := 0
	for _, rv := range reviews {
		if rv.Star == 3 {
			wantThrees++
		}
	}
	require.Positive(t, wantThrees, "the data set has three-star reviews here")
	var threes []struct{ Star int }
	post(t, srv, "ProductReviewsQuery", 1, `{"ASIN":"`+asin+`","Star":3}`).ok(t, &threes)
	assert.Len(t, threes, wantThrees)
	for _, rv := range threes {
		assert.Equal(t, 3, rv.Star)
	}
}

func TestReviewCollectionFailuresAndErrors(t *testing.T) {
	t.Parallel()
	const failing = productdatatest.FailingASINPrefix + "0002"
	const missing = productdatatest.MissingASINPrefix + "0002"
	srv, clock := startClock(t)
	var id string
	post(t, srv, "ProductReviewsCollection", 1, `{"ASIN":"`+failing+`"}`).ok(t, &id)
	clock.Advance(productdatatest.DefaultTaskDuration)
	assert.Equal(t, []string{failing + ":3:--"}, reviewStatuses(t, srv))
	post(t, srv, "ProductReviewsQuery", 1, `{"ASIN":"`+failing+`"}`).failed(t, 98)
	post(t, srv, "ProductReviewsCollection", 1, `{"ASIN":"`+failing+`"}`).ok(t, &id)
	assert.Equal(t, "2", id, "a failed collection may be started again")

	post(t, srv, "ProductReviewsCollection", 1, `{"ASIN":"`+missing+`"}`).failed(t, 97)
	post(t, srv, "ProductReviewsQuery", 1, `{"ASIN":"`+missing+`"}`).failed(t, 97)
	for _, body := range []string{`{}`, `{"ASIN":"` + asin + `","Page":11}`, `{"ASIN":"` + asin + `","Page":0}`, `{"ASIN":"` + asin + `","Star":"6"}`, `{"ASIN":"` + asin + `","Star":5}`, `{"ASIN":"` + asin + `","CollectType":2}`} {
		post(t, srv, "ProductReviewsCollection", 1, body).failed(t, 10)
	}
	for _, body := range []string{`{}`, `{"ASIN":"` + asin + `","Star":6}`, `{"ASIN":"` + asin + `","Star":"5"}`, `{"ASIN":"` + asin + `","Page":0}`} {
		post(t, srv, "ProductReviewsQuery", 1, body).failed(t, 10)
	}
}

func TestTasksBelongToTheirSite(t *testing.T) {
	t.Parallel()
	srv, clock := startClock(t)
	post(t, srv, "ProductRealtimeRequest", 3, `{"ASIN":"`+asin+`","Update":1}`).failed(t, 99)
	var id string
	post(t, srv, "ProductReviewsCollection", 3, `{"ASIN":"`+asin+`"}`).ok(t, &id)
	clock.Advance(productdatatest.DefaultTaskDuration)
	post(t, srv, "ProductRealtimeRequestStatusQuery", 1, `{"ASINs":["`+asin+`"]}`).failed(t, 11)
	post(t, srv, "ProductReviewsQuery", 1, `{"ASIN":"`+asin+`"}`).failed(t, 13)
	var reviews []map[string]any
	post(t, srv, "ProductReviewsQuery", 3, `{"ASIN":"`+asin+`"}`).ok(t, &reviews)
	assert.Len(t, reviews, 10, "one page of 10 by default")
}

func TestReviewCollectionStatusUsesTheServiceDay(t *testing.T) {
	t.Parallel()
	// 20:00 UTC on 2 March is 04:00 on 3 March in UTC+8, the service's zone.
	evening := time.Date(2026, 3, 2, 20, 0, 0, 0, time.UTC)
	srv := start(t, productdatatest.WithClock(sdktest.NewClock(evening)), productdatatest.WithTaskDuration(0))
	var id string
	post(t, srv, "ProductReviewsCollection", 1, `{"ASIN":"`+asin+`"}`).ok(t, &id)

	var listed []string
	post(t, srv, "ProductReviewsCollectionStatusQuery", 1, `{"QueryDate":"2026-03-03"}`).ok(t, &listed)
	assert.Equal(t, []string{asin + ":1:2026-03-02 20:00:00"}, listed)
	post(t, srv, "ProductReviewsCollectionStatusQuery", 1, `{"QueryDate":"2026-03-02"}`).failed(t, 11)
	assert.Equal(t, listed, reviewStatuses(t, srv), "the default date is today in UTC+8")
}
