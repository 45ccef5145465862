package ledger

import (
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/sdktest"
)

// committedAt reserves and commits a hold of 1 at t on m, reading clock.
func committedAt(t *testing.T, m *Memory, clock *sdktest.Clock, at time.Time) {
	t.Helper()
	clock.Set(at)
	id := NewHoldID()
	require.NoError(t, m.Reserve(t.Context(), id, Reservation{Amount: big.NewInt(1)}))
	_, err := m.Mark(t.Context(), id, Committed)
	require.NoError(t, err)
}

// A window keeps the holds that left it for its length of credited time, in which a jump
// of the clock counts for a second: the holds that left on a jump of 30 years are still
// kept, and they are forgotten once the clock has run on for the window's length, so that
// what a window keeps stays bounded.
func TestWindowKeepsWhatLeftItForItsLength(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := sdktest.NewClock(t0)
	m := NewMemory(clock)
	require.NoError(t, m.Configure(t.Context(), Limits{Windows: []Window{{Length: time.Minute, Count: 100}}}))
	for i := range 10 {
		committedAt(t, m, clock, t0.Add(time.Duration(i)*time.Second))
	}
	w, credit := m.windows[0], m.credit
	committedAt(t, m, clock, t0.AddDate(30, 0, 0))
	assert.Equal(t, 1, w.count, "the ten left the minute at the ahead time")
	assert.Len(t, w.kept[w.head:], 10, "and are kept")
	assert.Equal(t, int64(retentionStep), m.credit-credit, "the jump counts for a second")

	clock.Set(t0.Add(30 * time.Second))
	require.NoError(t, m.Reserve(t.Context(), NewHoldID(), Reservation{Amount: big.NewInt(1)}))
	assert.Equal(t, 12, w.count, "back on time, the ten count again, with the one reserved ahead")
	assert.Empty(t, w.kept[w.head:])

	// The clock runs on, a second at a time, for more than a minute: the ten leave the
	// window, are kept for a minute of credited time, then forgotten.
	for i := range 100 {
		committedAt(t, m, clock, t0.Add(time.Minute+time.Duration(i)*time.Second))
	}
	assert.Less(t, len(w.kept)-w.head, 70, "what the window keeps is bounded by its length")
	for _, k := range w.kept[w.head:] {
		assert.Greater(t, k.h.at, t0.Add(10*time.Second).UnixNano(), "the ten were forgotten")
	}
}
