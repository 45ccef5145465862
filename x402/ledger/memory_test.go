//go:build ignore

package ledger_test

import (
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/ledger"
	"github.com/agentapis/sdk/internal/ledger/ledgertest"
)

// openMemory returns a new in-memory store.
func openMemory(t *testing.T) ledger.Store {
	s := ledger.NewMemory()
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestMemoryConforms(t *testing.T) {
	t.Parallel()
	ledgertest.Run(t, openMemory)
}

func TestMemoryMatchesTheReference(t *testing.T) {
	t.Parallel()
	for seed := range uint64(8) {
		ledgertest.Differential(t, openMemory, seed, 3000)
	}
}

// A reservation whose time is earlier than the latest one's (two goroutines reading the clock
// in one order and reserving in the other) is recorded at the latest time: it counts in its
// windows a little longer, never shorter.
func TestMemoryKeepsReservationsInTimeOrder(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := ledger.NewMemory()
	require.NoError(t, s.Configure(ctx, ledger.Limits{Windows: []ledger.Window{{Length: time.Minute, Count: 2}}}))
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err := s.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(1), Now: t0.Add(10 * time.Second)})
	require.NoError(t, err)
	late, err := s.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(1), Now: t0})
	require.NoError(t, err)
	out, err := s.Outstanding(ctx, t0)
	require.NoError(t, err)
	require.Len(t, out, 2)
	assert.Equal(t, late, out[1].Hold)
	assert.Equal(t, t0.Add(10*time.Second), out[1].Reserved)
	_, err = s.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(1), Now: t0.Add(time.Minute)})
	var r *ledger.Refusal
	require.ErrorAs(t, err, &r, "both still count a minute after the earlier time")
	assert.Equal(t, t0.Add(70*time.Second), r.RetryAt)
}
