// Package migratetest checks what a budget store keeps when it opens a database written by an
// earlier release: x402/budgetfile and x402/budgetpg both number the holds of their first
// schema, and both tests of their migration leave the same holds behind, so that what each
// store must find afterwards is written once here.
package migratetest

import (
	"encoding/binary"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/ledger"
)

// OldID is the HoldID a store gives the hold of an earlier release numbered n.
func OldID(n uint64) ledger.HoldID {
	var id ledger.HoldID
	binary.BigEndian.PutUint64(id[8:], n)
	return id
}

// InDoubtPayee is the EVM payee of the migrated hold left in doubt, as the store names it.
const InDoubtPayee = "0xabcdef0123456789abcdef0123456789abcdef01"

// CheckHolds checks the holds s kept from an earlier release, whose fixture holds decided at
// t0: each hold numbered in states has its state, the hold numbered unknown (one past the
// last) does not exist, hold 1 cannot be reserved again, Spent is spent and the one hold
// outstanding is hold 4, 30 to InDoubtPayee in doubt, reserved 20 minutes before t0 and
// signed as 0xs4 expiring an hour after it.
func CheckHolds(t *testing.T, s ledger.Store, t0 time.Time, states map[uint64]ledger.State, unknown uint64, spent string) {
	t.Helper()
	ctx := t.Context()
	for n, want := range states {
		st, err := s.HoldState(ctx, OldID(n))
		require.NoError(t, err, "hold %d", n)
		assert.Equal(t, want, st, "hold %d", n)
	}
	_, err := s.HoldState(ctx, OldID(unknown))
	require.ErrorIs(t, err, ledger.ErrUnknownHold)
	require.ErrorIs(t, s.Reserve(ctx, OldID(1), ledger.Reservation{Amount: big.NewInt(1), PayTo: "0xdd"}), ledger.ErrDuplicateHold)
	tot, err := s.Totals(ctx)
	require.NoError(t, err)
	assert.Equal(t, spent, tot.Spent.String())
	assert.Equal(t, "30", tot.Held.String())
	out, err := s.Outstanding(ctx)
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, ledger.Outstanding{Hold: OldID(4), Amount: big.NewInt(30), PayTo: InDoubtPayee,
		Rail: "x402 eip155:8453", Resource: "/r", Payer: "0xpayer", Asset: "0xusdc", Reserved: t0.Add(-20 * time.Minute),
		Signature: ledger.Signature{ID: "0xs4", Expires: t0.Add(time.Hour)}, State: ledger.InDoubt}, out[0])
}
