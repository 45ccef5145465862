package ledger_test

import (
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/ledger"
)

// journal is a ledger.Journal in memory that records what it is told and fails on demand.
type journal struct {
	told    []ledger.Outstanding // copies
	pending int                  // how many of told the next Commit writes
	commits []bool               // the sync argument of each Commit that had something to write
	fail    error                // returned by the next Commit when set
}

func (j *journal) Record(o ledger.Outstanding) {
	o.Amount = new(big.Int).Set(o.Amount)
	j.told = append(j.told, o)
	j.pending++
}

func (j *journal) Commit(sync bool) error {
	switch {
	case j.pending == 0:
		return nil
	case j.fail != nil:
		return j.fail
	}
	j.commits = append(j.commits, sync)
	j.pending = 0
	return nil
}

func (j *journal) Ended(id ledger.HoldID) (ledger.State, error) {
	for i := len(j.told) - 1; i >= 0; i-- {
		if j.told[i].Hold == id {
			return j.told[i].State, nil
		}
	}
	return 0, ledger.ErrUnknownHold
}

// t0 is the time the journal tests start at.
var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// A restored Memory tells its journal every change, in order, and asks it to write once per
// operation, syncing for Sign only.
func TestMemoryTellsItsJournal(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	j := &journal{}
	clock := sdktest.NewClock(t0)
	m, err := ledger.Restore(ledger.Limits{}, ledger.Snapshot{At: t0}, j, clock)
	require.NoError(t, err)
	id := ledger.NewHoldID()
	require.NoError(t, m.Reserve(ctx, id, ledger.Reservation{Amount: big.NewInt(7), PayTo: "0xAA", Rail: "r", Resource: "/x"}))
	expires := t0.Add(time.Minute)
	require.NoError(t, m.Sign(ctx, id, ledger.Signature{ID: "0x01", Expires: expires}))
	_, err = m.Mark(ctx, id, ledger.Refused)
	require.NoError(t, err)
	_, err = m.Totals(ctx) // nothing changes: nothing to write
	require.NoError(t, err)
	require.ErrorIs(t, m.Reserve(ctx, id, ledger.Reservation{Amount: big.NewInt(7)}), ledger.ErrDuplicateHold)
	clock.Set(expires.Add(ledger.ExpiryMargin + time.Nanosecond))
	_, err = m.Totals(ctx) // the refused hold expires
	require.NoError(t, err)

	require.Len(t, j.told, 3, "the expiry is this process's reading of its clock, never written")
	assert.Equal(t, ledger.Outstanding{Hold: id, Amount: big.NewInt(7), PayTo: "0xAA", Rail: "r", Resource: "/x", Reserved: t0,
		State: ledger.Reserved}, j.told[0])
	assert.Equal(t, ledger.Signed, j.told[1].State)
	assert.Equal(t, "0x01", j.told[1].ID)
	assert.Equal(t, expires, j.told[1].Expires)
	assert.Equal(t, ledger.Refused, j.told[2].State)
	assert.Equal(t, []bool{false, true, false}, j.commits, "one write per operation that changed something; Sign syncs")

	st, err := m.HoldState(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, ledger.Released, st, "the expired hold stays released for this process")
	assert.Equal(t, []ledger.HoldID{id}, m.Expired())
	_, err = m.HoldState(ctx, ledger.NewHoldID())
	require.ErrorIs(t, err, ledger.ErrUnknownHold)
	require.ErrorIs(t, m.Reserve(ctx, id, ledger.Reservation{Amount: big.NewInt(7)}), ledger.ErrDuplicateHold,
		"the journal knows the ended hold's id")
}

// A failure to write breaks the Memory: that operation and every later one fail, and
// nothing is given back.
func TestMemoryBreaksWhenItsJournalFails(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	j := &journal{}
	m, err := ledger.Restore(ledger.Limits{Total: big.NewInt(100)}, ledger.Snapshot{At: t0}, j, sdktest.NewClock(t0))
	require.NoError(t, err)
	id := ledger.NewHoldID()
	require.NoError(t, m.Reserve(ctx, id, ledger.Reservation{Amount: big.NewInt(40)}))
	disk := errors.New("disk full")
	j.fail = disk
	require.ErrorIs(t, m.Sign(ctx, id, ledger.Signature{ID: "0x01"}), disk)
	j.fail = nil
	_, err = m.Mark(ctx, id, ledger.Released)
	require.ErrorIs(t, err, disk, "the store takes no more once a write failed")
	_, err = m.Totals(ctx)
	require.ErrorIs(t, err, disk)
	require.ErrorIs(t, m.Reserve(ctx, ledger.NewHoldID(), ledger.Reservation{Amount: big.NewInt(1)}), disk)
	require.ErrorIs(t, m.ChangeLimits(ctx, ledger.Limits{}), disk)
	assert.Len(t, j.commits, 1, "only the reservation was written")
}

// Restore rebuilds the accounts from a snapshot taken at its reading of the clock: spent,
// held, payees (exactly), windows (a hold reserved at a later reading counts), refused
// holds' expiries and the payment ids.
func TestRestoreRebuildsTheAccounts(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	expires := t0.Add(time.Minute)
	limits := ledger.Limits{Total: big.NewInt(1000), PerPayee: big.NewInt(300), Payees: map[string]*big.Int{"0xbb": big.NewInt(80)},
		Windows: []ledger.Window{{Length: time.Hour, Count: 5}, {Length: time.Minute, Amount: big.NewInt(100)}}}
	ids := [4]ledger.HoldID{ledger.NewHoldID(), ledger.NewHoldID(), ledger.NewHoldID(), ledger.NewHoldID()}
	snap := ledger.Snapshot{
		At: t0,
		Holds: []ledger.Outstanding{
			{Hold: ids[0], Amount: big.NewInt(50), PayTo: "0xaa", Reserved: t0.Add(-2 * time.Hour), Signature: ledger.Signature{ID: "0x02"},
				State: ledger.InDoubt},
			{Hold: ids[1], Amount: big.NewInt(100), PayTo: "0xaa", Reserved: t0.Add(-30 * time.Minute), State: ledger.Committed},
			{Hold: ids[2], Amount: big.NewInt(60), PayTo: "0xbb", Reserved: t0.Add(-10 * time.Second),
				Signature: ledger.Signature{ID: "0x06", Expires: expires}, State: ledger.Refused},
			// reserved by a process whose clock was ahead: it counts until its own time has passed
			{Hold: ids[3], Amount: big.NewInt(5), PayTo: "0xcc", Reserved: t0.Add(24 * time.Hour), Signature: ledger.Signature{ID: "0x07"},
				State: ledger.InDoubt},
		},
		Spent: map[string]*big.Int{"0xaa": big.NewInt(220), "0xbb": big.NewInt(5), "0xAA": big.NewInt(100)},
	}
	m, err := ledger.Restore(limits, snap, &journal{}, sdktest.NewClock(t0))
	require.NoError(t, err)
	tot, err := m.Totals(ctx)
	require.NoError(t, err)
	assert.Equal(t, "325", tot.Spent.String())
	assert.Equal(t, "115", tot.Held.String())

	err = m.Reserve(ctx, ledger.NewHoldID(), ledger.Reservation{Amount: big.NewInt(31), PayTo: "0xaa"})
	var r *ledger.Refusal
	require.ErrorAs(t, err, &r, "0xaa has 220 spent and 50 in doubt of 300; 0xAA is another payee")
	assert.Equal(t, ledger.KindPayee, r.Kind)
	assert.Equal(t, "30", r.Left.String())
	err = m.Reserve(ctx, ledger.NewHoldID(), ledger.Reservation{Amount: big.NewInt(20), PayTo: "0xbb"})
	require.ErrorAs(t, err, &r, "0xbb has 5 spent and 60 refused of 80")
	assert.Equal(t, ledger.KindPayee, r.Kind)
	assert.Equal(t, expires.Add(ledger.ExpiryMargin+time.Nanosecond), r.RetryAt, "the refused hold frees the payee when it expires")
	err = m.Reserve(ctx, ledger.NewHoldID(), ledger.Reservation{Amount: big.NewInt(40), PayTo: "0xcc"})
	require.ErrorAs(t, err, &r)
	assert.Equal(t, ledger.KindWindowAmount, r.Kind, "the refused 60 and the 5 reserved ahead count in the minute")
	assert.Equal(t, "35", r.Left.String())
	assert.Equal(t, t0.Add(50*time.Second), r.RetryAt)

	require.NoError(t, m.Reserve(ctx, ledger.NewHoldID(), ledger.Reservation{Amount: big.NewInt(1), PayTo: "0xcc"}))
	require.NoError(t, m.Reserve(ctx, ledger.NewHoldID(), ledger.Reservation{Amount: big.NewInt(1), PayTo: "0xcc"}))
	err = m.Reserve(ctx, ledger.NewHoldID(), ledger.Reservation{Amount: big.NewInt(1), PayTo: "0xcc"})
	require.ErrorAs(t, err, &r, "the hour counts the committed, the refused and the ahead hold, and the two since")
	assert.Equal(t, ledger.KindWindowCount, r.Kind)
	assert.Equal(t, t0.Add(30*time.Minute), r.RetryAt)
	require.ErrorIs(t, m.Reserve(ctx, ids[0], ledger.Reservation{Amount: big.NewInt(1)}), ledger.ErrDuplicateHold)
	require.ErrorIs(t, m.Sign(ctx, ids[0], ledger.Signature{ID: "0x06"}), ledger.ErrNotReserved)
	id := ledger.NewHoldID()
	require.NoError(t, m.ChangeLimits(ctx, ledger.Limits{}))
	require.NoError(t, m.Reserve(ctx, id, ledger.Reservation{Amount: big.NewInt(1), PayTo: "0xcc"}))
	require.ErrorIs(t, m.Sign(ctx, id, ledger.Signature{ID: "0x06"}), ledger.ErrDuplicateID, "the restored payment ids are known")
	require.NoError(t, m.Resolve(ctx, "0x02", true))
}
