//go:build ignore

package ledger_test

import (
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/ledger"
)

// journal is a ledger.Journal in memory that records what it is told and fails on demand.
type journal struct {
	told    []ledger.Entry // copies
	pending int            // how many of told the next Commit writes
	commits []bool         // the sync argument of each Commit that had something to write
	fail    error          // returned by the next Commit when set
}

func (j *journal) Record(e ledger.Entry) {
	e.Amount = new(big.Int).Set(e.Amount)
	j.told = append(j.told, e)
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

// A restored Memory tells its journal every change, in order, and asks it to write once per
// operation, syncing for Sign only.
func TestMemoryTellsItsJournal(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	j := &journal{}
	m, err := ledger.Restore(ledger.Limits{}, ledger.Snapshot{}, j)
	require.NoError(t, err)
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	id, err := m.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(7), PayTo: "0xAA", Rail: "r", Resource: "/x", Now: t0})
	require.NoError(t, err)
	expires := t0.Add(time.Minute)
	require.NoError(t, m.Sign(ctx, id, ledger.Signing{ID: "0x01", Expires: expires, Now: t0}))
	_, err = m.Mark(ctx, id, ledger.Refused, t0)
	require.NoError(t, err)
	_, err = m.Totals(ctx, t0) // nothing changes: nothing to write
	require.NoError(t, err)
	_, err = m.Totals(ctx, expires.Add(ledger.ExpiryMargin+time.Nanosecond)) // the refused hold expires
	require.NoError(t, err)

	require.Len(t, j.told, 4)
	assert.Equal(t, ledger.Entry{Hold: id, Amount: big.NewInt(7), PayTo: "0xAA", Rail: "r", Resource: "/x", Reserved: t0,
		State: ledger.Reserved}, j.told[0])
	assert.Equal(t, ledger.Signed, j.told[1].State)
	assert.Equal(t, "0x01", j.told[1].ID)
	assert.Equal(t, expires, j.told[1].Expires)
	assert.Equal(t, ledger.Refused, j.told[2].State)
	assert.Equal(t, ledger.Released, j.told[3].State)
	assert.Equal(t, []bool{false, true, false, false}, j.commits, "one write per operation that changed something; Sign syncs")

	st, err := m.HoldState(ctx, id, t0)
	require.NoError(t, err)
	assert.Equal(t, ledger.Released, st, "an ended hold's state comes from the journal")
	_, err = m.HoldState(ctx, id+1, t0)
	require.ErrorIs(t, err, ledger.ErrUnknownHold)
}

// A failure to write breaks the Memory: that operation and every later one fail, and
// nothing is given back.
func TestMemoryBreaksWhenItsJournalFails(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	j := &journal{}
	m, err := ledger.Restore(ledger.Limits{Total: big.NewInt(100)}, ledger.Snapshot{}, j)
	require.NoError(t, err)
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	id, err := m.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(40), Now: t0})
	require.NoError(t, err)
	disk := errors.New("disk full")
	j.fail = disk
	require.ErrorIs(t, m.Sign(ctx, id, ledger.Signing{ID: "0x01", Now: t0}), disk)
	j.fail = nil
	_, err = m.Mark(ctx, id, ledger.Released, t0)
	require.ErrorIs(t, err, disk, "the store takes no more once a write failed")
	_, err = m.Totals(ctx, t0)
	require.ErrorIs(t, err, disk)
	_, err = m.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(1), Now: t0})
	require.ErrorIs(t, err, disk)
	assert.Len(t, j.commits, 1, "only the reservation was written")
}

// Restore rebuilds the accounts: spent, held, payees, windows, refused holds' expiries and
// the signing ids, and goes on numbering after the last hold.
func TestRestoreRebuildsTheAccounts(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	expires := t0.Add(time.Minute)
	limits := ledger.Limits{Total: big.NewInt(1000), PerPayee: big.NewInt(300), Payees: map[string]*big.Int{"0xbb": big.NewInt(80)},
		Windows: []ledger.Window{{Length: time.Hour, Count: 4}, {Length: time.Minute, Amount: big.NewInt(100)}}}
	snap := ledger.Snapshot{
		Holds: []ledger.Entry{
			{Hold: 2, Amount: big.NewInt(50), PayTo: "0xAA", Reserved: t0.Add(-2 * time.Hour), ID: "0x02", State: ledger.InDoubt},
			{Hold: 5, Amount: big.NewInt(100), PayTo: "0xaa", Reserved: t0.Add(-30 * time.Minute), State: ledger.Committed},
			{Hold: 6, Amount: big.NewInt(60), PayTo: "0xBB", Reserved: t0.Add(-10 * time.Second), ID: "0x06", Expires: expires, State: ledger.Refused},
		},
		Spent: map[string]*big.Int{"0xaa": big.NewInt(220), "0xbb": big.NewInt(5)},
		Last:  7, LastAt: t0.Add(-10 * time.Second),
	}
	m, err := ledger.Restore(limits, snap, &journal{})
	require.NoError(t, err)
	tot, err := m.Totals(ctx, t0)
	require.NoError(t, err)
	assert.Equal(t, "225", tot.Spent.String())
	assert.Equal(t, "110", tot.Held.String())

	_, err = m.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(31), PayTo: "0xaa", Now: t0})
	var r *ledger.Refusal
	require.ErrorAs(t, err, &r, "0xaa has 220 spent and 50 in doubt of 300")
	assert.Equal(t, ledger.KindPayee, r.Kind)
	assert.Equal(t, "30", r.Left.String())
	_, err = m.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(20), PayTo: "0xbb", Now: t0})
	require.ErrorAs(t, err, &r, "0xbb has 5 spent and 60 refused of 80")
	assert.Equal(t, ledger.KindPayee, r.Kind)
	assert.Equal(t, expires.Add(ledger.ExpiryMargin+time.Nanosecond), r.RetryAt, "the refused hold frees the payee when it expires")
	_, err = m.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(50), PayTo: "0xcc", Now: t0})
	require.ErrorAs(t, err, &r)
	assert.Equal(t, ledger.KindWindowAmount, r.Kind, "the refused 60 counts in the minute")
	assert.Equal(t, t0.Add(50*time.Second), r.RetryAt)

	id, err := m.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(1), PayTo: "0xcc", Now: t0})
	require.NoError(t, err)
	assert.Equal(t, ledger.HoldID(8), id)
	_, err = m.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(1), PayTo: "0xcc", Now: t0})
	require.NoError(t, err)
	_, err = m.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(1), PayTo: "0xcc", Now: t0})
	require.ErrorAs(t, err, &r, "the hour counts the committed and the refused hold, and the two since")
	assert.Equal(t, ledger.KindWindowCount, r.Kind)
	assert.Equal(t, t0.Add(30*time.Minute), r.RetryAt)
	require.ErrorIs(t, m.Sign(ctx, id, ledger.Signing{ID: "0x06", Now: t0}), ledger.ErrDuplicateID, "the restored signing ids are known")
	require.NoError(t, m.Resolve(ctx, "0x02", true, t0))
}
