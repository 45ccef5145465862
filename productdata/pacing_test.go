package productdata_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/productdata"
	"github.com/agentapis/sdk/sdktest"
)

// busiestMinute returns the most requests that fall in one closed 60-second window.
func busiestMinute(stamps []time.Time) int {
	slices.SortFunc(stamps, func(a, b time.Time) int { return a.Compare(b) })
	most := 0
	for i, start := range stamps {
		j, _ := slices.BinarySearchFunc(stamps, start.Add(time.Minute+1), func(a, b time.Time) int { return a.Compare(b) })
		most = max(most, j-i)
	}
	return most
}

// stamps returns when the server received each request.
func stamps(srv *api) []time.Time {
	var out []time.Time
	for _, r := range srv.requests() {
		out = append(out, r.At)
	}
	return out
}

// pacedClient returns a client of a fresh server on a fake clock, with the given options.
func pacedClient(t *testing.T, opts ...productdata.Option) (*productdata.Client, *api, *sdktest.Clock) {
	t.Helper()
	clock := sdktest.NewClock(epoch)
	srv := newAPI(t, clock, func(r received) reply { return ok(t, []string{"x"}, 1000, 1) })
	all := append([]productdata.Option{productdata.WithBaseURL(srv.URL), productdata.WithAccountKey(testKey), productdata.WithClock(clock)}, opts...)
	c, err := productdata.New(all...)
	require.NoError(t, err)
	return c, srv, clock
}

func TestFourHundredCallsNeverExceedTheDefaultPace(t *testing.T) {
	t.Parallel()
	c, srv, clock := pacedClient(t)
	for range 400 {
		_, err := c.Call(t.Context(), productdata.EndpointKeywordExtends, productdata.AmazonUS, map[string]string{"Keyword": "x"}, nil)
		require.NoError(t, err)
	}
	got := stamps(srv)
	require.Len(t, got, 400)
	most := busiestMinute(got)
	elapsed := clock.Now().Sub(epoch)
	t.Logf("400 calls at %d per minute: busiest 60 s window held %d, the whole run took %s of the fake clock",
		productdata.DefaultRequestsPerMinute, most, elapsed)
	assert.LessOrEqual(t, most, 200)
	assert.GreaterOrEqual(t, most, 199, "the pacer does not hold back more than it must")
	assert.Less(t, elapsed, 125*time.Second, "about 0.3 s a call")
	assert.Equal(t, int64(400), c.RequestUnits().Sent)
}

func TestTheEntryPlanPace(t *testing.T) {
	t.Parallel()
	c, srv, _ := pacedClient(t, productdata.WithRequestsPerMinute(productdata.EntryPlanRequestsPerMinute))
	for range 250 {
		_, err := c.Call(t.Context(), productdata.EndpointKeywordExtends, productdata.AmazonUS, nil, nil)
		require.NoError(t, err)
	}
	assert.Equal(t, 100, busiestMinute(stamps(srv)))
}

// TestConcurrentCallsShareOnePace checks on the wall clock that goroutines sharing a client
// share its pace: at 60,000 a minute the pacer spaces requests 2 ms apart (1 ms plus its 1 ms
// margin), so 200 requests from 8 goroutines cannot all be sent in less than 398 ms, while a
// pace of each goroutine's own would let them go in 50 ms. (The fake clock cannot show this:
// concurrent sleepers on it each move the shared time forward.)
func TestConcurrentCallsShareOnePace(t *testing.T) {
	t.Parallel()
	srv := newAPI(t, nil, func(r received) reply { return ok(t, nil, 1, 1) })
	c := newClient(t, srv, productdata.WithRequestsPerMinute(60_000))
	start := time.Now()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				_, err := c.Call(t.Context(), productdata.EndpointCoinQuery, productdata.NoDomain, nil, nil)
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	assert.GreaterOrEqual(t, time.Since(start), 398*time.Millisecond)
	assert.Len(t, srv.requests(), 200)
}

func TestPacingCanBeTurnedOff(t *testing.T) {
	t.Parallel()
	c, srv, clock := pacedClient(t, productdata.WithRequestsPerMinute(0))
	for range 50 {
		_, err := c.Call(t.Context(), productdata.EndpointCoinQuery, productdata.NoDomain, nil, nil)
		require.NoError(t, err)
	}
	assert.Equal(t, 50, busiestMinute(stamps(srv)))
	assert.Equal(t, epoch, clock.Now(), "no wait at all")
	_, err := productdata.New(productdata.WithBaseURL(srv.URL), productdata.WithAccountKey(testKey), productdata.WithRequestsPerMinute(-1))
	assert.Equal(t, "requests per minute", testkit.ValidationError(t, err).Field)
}
