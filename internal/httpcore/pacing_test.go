package httpcore

import (
	"io"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/sdktest"
)

func TestPacingKeepsEveryMinuteWindowWithinTheLimit(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC))
	var mu sync.Mutex
	var sent []time.Time
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sent = append(sent, clock.Now())
		mu.Unlock()
		_, _ = io.WriteString(w, `{}`)
	})
	c := newTestClient(t, Service{Defaults: Defaults{RequestsPerMinute: 200}}, WithBaseURL[*testConfig](srv.URL), WithClock[*testConfig](clock))
	for range 400 {
		_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/"}, nil)
		require.NoError(t, err)
	}
	require.Len(t, sent, 400)
	sort.Slice(sent, func(i, j int) bool { return sent[i].Before(sent[j]) })
	most := 0
	for i := range sent {
		end := sent[i].Add(time.Minute) // the closed window [sent[i], sent[i]+60s]
		n := sort.Search(len(sent), func(j int) bool { return sent[j].After(end) }) - i
		most = max(most, n)
	}
	assert.LessOrEqual(t, most, 200, "no 60-second window holds more than 200 calls")
	assert.GreaterOrEqual(t, most, 199, "the pacer does not slow down more than it must")
	span := sent[len(sent)-1].Sub(sent[0])
	assert.Greater(t, span, 119*time.Second)
	assert.Less(t, span, 122*time.Second, "400 calls at 200 a minute take about two minutes")
}

func TestRequestsPerMinuteOptionOverridesAndRefusesNegative(t *testing.T) {
	t.Parallel()
	svc := Service{Defaults: Defaults{RequestsPerMinute: 200}}
	c := newTestClient(t, svc, WithBaseURL[*testConfig]("https://h"), WithRequestsPerMinute[*testConfig](100))
	assert.Equal(t, 100, c.perMinute)
	off := newTestClient(t, svc, WithBaseURL[*testConfig]("https://h"), WithRequestsPerMinute[*testConfig](0))
	_, paced := off.engine.HTTPClient.Transport.(*engineTransport).next.(*pacedTransport)
	assert.False(t, paced, "0 turns pacing off")
	on := newTestClient(t, svc, WithBaseURL[*testConfig]("https://h"))
	_, paced = on.engine.HTTPClient.Transport.(*engineTransport).next.(*pacedTransport)
	assert.True(t, paced, "the service's default paces")
	assert.Equal(t, 200, on.perMinute)
	err := Configure("testsvc", &testConfig{}, []testOption{WithRequestsPerMinute[*testConfig](-1)})
	var ve *sdk.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "requests per minute", ve.Field)
}

func TestPacingWaitEndsWithTheContext(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, `{}`) })
	c := newTestClient(t, Service{Defaults: Defaults{RequestsPerMinute: 1}}, WithBaseURL[*testConfig](srv.URL))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/"}, nil)
	require.NoError(t, err)
	ctx, cancel := contextWithTimeout(t, 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = c.Do(ctx, &Request{Method: http.MethodGet, Path: "/"}, nil)
	require.Error(t, err)
	assert.Less(t, time.Since(start), 5*time.Second, "a minute-long pacing wait ends with the context")
}
