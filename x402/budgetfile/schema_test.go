package budgetfile

import (
	"database/sql"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/ledger"
)

// A file of an earlier schema version is brought up to the latest, one numbered step after
// another, keeping its holds.
func TestMigrateUpgradesStepByStep(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "budget.db")
	s, err := Open(path)
	require.NoError(t, err)
	require.NoError(t, s.Configure(ctx, ledger.Limits{}))
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	id, err := s.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(5), PayTo: "0xaa", Now: now})
	require.NoError(t, err)
	require.NoError(t, s.Sign(ctx, id, ledger.Signing{ID: "0x01", Now: now}))
	require.NoError(t, s.Close())

	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	later := append(migrations[:len(migrations):len(migrations)],
		`ALTER TABLE holds ADD COLUMN note TEXT NOT NULL DEFAULT 'none'`,
		`UPDATE holds SET note = 'upgraded'`)
	require.NoError(t, migrate(ctx, conn, path, later))
	var version int
	require.NoError(t, conn.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version))
	assert.Equal(t, len(migrations)+2, version)
	var note, sig string
	require.NoError(t, conn.QueryRowContext(ctx, `SELECT note, signing_id FROM holds WHERE id = ?`, int64(id)).Scan(&note, &sig))
	assert.Equal(t, "upgraded", note, "both steps ran, in order")
	assert.Equal(t, "0x01", sig)

	require.NoError(t, migrate(ctx, conn, path, later), "an up-to-date file is left as it is")
	require.NoError(t, conn.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version))
	assert.Equal(t, len(migrations)+2, version)
	err = migrate(ctx, conn, path, migrations)
	var fe *FormatError
	require.ErrorAs(t, err, &fe, "a release that knows fewer versions refuses the file")
}
