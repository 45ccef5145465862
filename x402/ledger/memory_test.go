package ledger_test

import (
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/ledger/ledgertest"
)

// openMemory returns a new in-memory store reading clock.
func openMemory(t *testing.T, clock sdk.Clock) ledger.Store {
	s := ledger.NewMemory(clock)
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
		ledgertest.Differential(t, openMemory, seed, testenv.Size(1000, 3000))
	}
}

// Without a clock, a Memory reads the system's: a hold is reserved at the time it was made.
func TestMemoryReadsTheSystemClockByDefault(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	m := ledger.NewMemory(nil)
	require.NoError(t, m.Configure(ctx, ledger.Limits{}))
	before := time.Now()
	id := ledger.NewHoldID()
	require.NoError(t, m.Reserve(ctx, id, ledger.Reservation{Amount: big.NewInt(1)}))
	out, err := m.Outstanding(ctx)
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.False(t, out[0].Reserved.Before(before.Truncate(time.Microsecond)), "reserved at %v, after %v", out[0].Reserved, before)
	assert.False(t, out[0].Reserved.After(time.Now()))
}

// A clock that reads a time no store accepts fails the operation and changes nothing.
func TestMemoryRefusesAClockOutOfRange(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	clock := sdktest.NewClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	m := ledger.NewMemory(clock)
	require.NoError(t, m.Configure(ctx, ledger.Limits{}))
	id := ledger.NewHoldID()
	require.NoError(t, m.Reserve(ctx, id, ledger.Reservation{Amount: big.NewInt(1)}))
	clock.Set(time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC))
	err := m.Reserve(ctx, ledger.NewHoldID(), ledger.Reservation{Amount: big.NewInt(1)})
	require.ErrorContains(t, err, "clock reads 2300-01-01")
	_, err = m.Mark(ctx, id, ledger.Released)
	require.Error(t, err)
	clock.Set(time.Date(2030, 1, 1, 0, 0, 1, 0, time.UTC))
	st, err := m.HoldState(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, ledger.Reserved, st)
}
