package budgetfile

import (
	"context"
	"database/sql"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/migratetest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/ledger"
)

// openConn opens a connection of its own to the SQLite file at path, closed when the test
// ends.
func openConn(t *testing.T, path string) *sql.Conn {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	conn, err := db.Conn(t.Context())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// A file of an earlier schema version is brought up to the latest, one numbered step after
// another, keeping its holds.
func TestMigrateUpgradesStepByStep(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "budget.db")
	s, err := Open(path)
	require.NoError(t, err)
	require.NoError(t, s.Configure(ctx, ledger.Limits{}))
	id := ledger.NewHoldID()
	require.NoError(t, s.Reserve(ctx, id, ledger.Reservation{Amount: big.NewInt(5), PayTo: "0xaa"}))
	require.NoError(t, s.Sign(ctx, id, ledger.Signature{ID: "0x01"}))
	require.NoError(t, s.Close())

	conn := openConn(t, path)
	later := append(migrations[:len(migrations):len(migrations)],
		script(`ALTER TABLE holds ADD COLUMN note TEXT NOT NULL DEFAULT 'none'`),
		script(`UPDATE holds SET note = 'upgraded'`))
	require.NoError(t, migrate(ctx, conn, path, later))
	var version int
	require.NoError(t, conn.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version))
	assert.Equal(t, len(migrations)+2, version)
	var note, sig string
	require.NoError(t, conn.QueryRowContext(ctx, `SELECT note, signing_id FROM holds WHERE hold = ?`, id[:]).Scan(&note, &sig))
	assert.Equal(t, "upgraded", note, "both steps ran, in order")
	assert.Equal(t, "0x01", sig)

	require.NoError(t, migrate(ctx, conn, path, later), "an up-to-date file is left as it is")
	require.NoError(t, conn.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version))
	assert.Equal(t, len(migrations)+2, version)
	err = migrate(ctx, conn, path, migrations)
	var fe *FormatError
	require.ErrorAs(t, err, &fe, "a release that knows fewer versions refuses the file")
}

// A file written by a release of schema version 1 (holds numbered by the store, what was
// spent kept by payee in lower case) opens: each hold has the HoldID of its old number and
// keeps its state, amount and times; an EVM payee is written in lower case, a Solana one as
// it is; Spent, the payees' use and the windows count as before, and what each payee was paid
// is kept by payee exactly.
func TestVersion1FileOpens(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "budget.db")
	t0 := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	const evm = "0xAbCdEf0123456789aBcDeF0123456789ABCDEF01"
	func() {
		conn := openConn(t, path)
		require.NoError(t, migrate(ctx, conn, path, migrations[:1]))
		for _, h := range []struct {
			id     int64
			amount string
			payTo  string
			at     time.Duration
			sig    any
			state  int
		}{
			{1, "40", evm, -50 * time.Minute, "0xs1", 4},
			{2, "25", "TreasuryAb", -40 * time.Minute, "sig2", 4},
			{3, "7", "treasuryab", -30 * time.Minute, "sig3", 4},
			{4, "30", evm, -20 * time.Minute, "0xs4", 1},
			{5, "15", "0xcc", -10 * time.Minute, nil, 0},
			{6, "99", "0xcc", -70 * time.Minute, nil, 5},
		} {
			_, err := conn.ExecContext(ctx, `INSERT INTO holds (id, amount, pay_to, rail, resource, payer, asset, reserved_at, signing_id,
				expires, ref, state) VALUES (?, ?, ?, 'x402 eip155:8453', '/r', '0xpayer', '0xusdc', ?, ?, ?, '', ?)`,
				h.id, h.amount, h.payTo, t0.Add(h.at).UnixNano(), h.sig, t0.Add(time.Hour).UnixNano(), h.state)
			require.NoError(t, err)
		}
		_, err := conn.ExecContext(ctx, `INSERT INTO spent (payee, amount) VALUES ('0xabcdef0123456789abcdef0123456789abcdef01', '40'),
			('treasuryab', '32')`)
		require.NoError(t, err)
	}()

	s, err := Open(path, WithClock(sdktest.NewClock(t0)))
	require.NoError(t, err)
	defer s.Close()
	limits := ledger.Limits{Total: big.NewInt(1000), PerPayee: big.NewInt(100), Payees: map[string]*big.Int{"TreasuryAb": big.NewInt(30)},
		Windows: []ledger.Window{{Length: time.Hour, Count: 4}}}
	require.NoError(t, s.Configure(ctx, limits), "a file of version 1 has no limits recorded: the first Configure records them")

	migratetest.CheckHolds(t, s, t0, map[uint64]ledger.State{1: ledger.Committed, 2: ledger.Committed, 4: ledger.InDoubt, 5: ledger.Released, 6: ledger.Released}, 7, "72")

	refusal := func(amount int64, payTo string) *ledger.Refusal {
		t.Helper()
		err := s.Reserve(ctx, ledger.NewHoldID(), ledger.Reservation{Amount: big.NewInt(amount), PayTo: payTo})
		var r *ledger.Refusal
		require.ErrorAs(t, err, &r)
		return r
	}
	r := refusal(6, "TreasuryAb")
	assert.Equal(t, ledger.KindPayee, r.Kind)
	assert.Equal(t, "5", r.Left.String(), "TreasuryAb was paid 25, treasuryab 7")
	r = refusal(31, "0xabcdef0123456789abcdef0123456789abcdef01")
	assert.Equal(t, ledger.KindPayee, r.Kind)
	assert.Equal(t, "30", r.Left.String(), "the EVM payee's 40 committed and 30 in doubt, under its lower-case address")
	r = refusal(1, "0xdd")
	assert.Equal(t, ledger.KindWindowCount, r.Kind, "the hour counts the four holds of version 1 not released")
	assert.Equal(t, t0.Add(10*time.Minute), r.RetryAt)

	var spent string
	conn := s.conn
	require.NoError(t, conn.QueryRowContext(context.Background(), `SELECT amount FROM spent WHERE payee = 'TreasuryAb'`).Scan(&spent))
	assert.Equal(t, "25", spent)
}
