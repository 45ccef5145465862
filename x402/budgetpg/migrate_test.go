package budgetpg_test

import (
	"context"
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/migratetest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/budgetpg"
	"github.com/agentapis/sdk/x402/ledger"
)

// appliedMigrations returns the versions and names recorded in the schema of dsn.
func appliedMigrations(t *testing.T, dsn string) (versions []int, names []string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	rows, err := conn.Query(t.Context(), "SELECT version, name FROM x402_budget_schema_migrations ORDER BY version")
	require.NoError(t, err)
	for rows.Next() {
		var v int
		var n string
		require.NoError(t, rows.Scan(&v, &n))
		versions, names = append(versions, v), append(names, n)
	}
	require.NoError(t, rows.Err())
	return versions, names
}

// Stores opening together on an empty schema create it once: every migration is applied
// once, in order, and all of them open.
func TestOpenMigratesOnceUnderConcurrency(t *testing.T) {
	t.Parallel()
	dsn := freshSchema(t)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := budgetpg.Open(t.Context(), dsn, budgetpg.WithName("shared"))
			if err == nil {
				err = s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	versions, names := appliedMigrations(t, dsn)
	assert.Equal(t, []int{1, 2, 3, 4}, versions)
	assert.Equal(t, []string{"0001_tables.sql", "0002_functions.sql", "0003_hold_ids.sql", "0004_functions.sql"}, names)

	s, err := budgetpg.Open(t.Context(), dsn)
	require.NoError(t, err, "opening an up-to-date schema applies nothing")
	require.NoError(t, s.Close())
	again, _ := appliedMigrations(t, dsn)
	assert.Equal(t, versions, again)
}

// A schema a later SDK upgraded is refused: this one would not know what changed.
func TestOpenRefusesANewerSchema(t *testing.T) {
	t.Parallel()
	dsn := freshSchema(t)
	s, err := budgetpg.Open(t.Context(), dsn)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	conn, err := pgx.Connect(t.Context(), dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	_, err = conn.Exec(t.Context(), "INSERT INTO x402_budget_schema_migrations (version, name) VALUES (5, '0005_later.sql')")
	require.NoError(t, err)
	_, err = budgetpg.Open(t.Context(), dsn)
	require.ErrorIs(t, err, budgetpg.ErrSchemaNewer)
	assert.Contains(t, err.Error(), "version 5")
}

// A database a release of schema version 2 wrote (holds numbered by the store, payees'
// accounts in lower case, the latest reservation time kept) opens: each hold has the HoldID
// of its old number and keeps its state, amount and times; an EVM payee is written in lower
// case and a Solana one as it is, each with its account; a named payee limit that was in
// lower case names the one exact payee the holds have; Spent, the payees' use and the
// windows count as before.
func TestVersion2DatabaseOpens(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := freshSchema(t)
	require.NoError(t, budgetpg.MigrateTo(ctx, dsn, 2))
	t0 := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	const evm = "0xAbCdEf0123456789aBcDeF0123456789ABCDEF01"
	old := ledger.Limits{Total: big.NewInt(1000), PerPayee: big.NewInt(100),
		Payees:  map[string]*big.Int{"treasuryab": big.NewInt(40), "solpayee": big.NewInt(50)},
		Windows: []ledger.Window{{Length: time.Hour, Count: 6}}}
	text, err := old.MarshalJSON()
	require.NoError(t, err)

	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var budget, session int64
	require.NoError(t, conn.QueryRow(ctx, "INSERT INTO x402_budgets (name) VALUES ('old') RETURNING id").Scan(&budget))
	// What version 2's first Configure wrote.
	_, err = conn.Exec(ctx, `UPDATE x402_budgets SET limits = $2, total = 1000, per_payee = 100, w_length = ARRAY[3600000000000],
		w_amount = ARRAY[NULL]::numeric[], w_count = ARRAY[6], w_mark = '{0}', w_tail = '{0}', w_sum = '{0}', w_n = '{0}',
		payee_caps = true WHERE id = $1`, budget, string(text))
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `INSERT INTO x402_budget_payees (budget_id, payee, cap) VALUES ($1, 'treasuryab', 40), ($1, 'solpayee', 50)`, budget)
	require.NoError(t, err)
	// A pid no backend has (Linux's pids stop at 2^22), so that no lock of the class is held
	// for it and the next Store to open sweeps the session. Not 0: the lock (class, 0) is the
	// one every Store takes while it migrates, which another test's Open may hold meanwhile.
	require.NoError(t, conn.QueryRow(ctx, "INSERT INTO x402_budget_sessions (budget_id, pid) VALUES ($1, 2147483647) RETURNING id", budget).
		Scan(&session))
	for _, h := range []struct {
		amount int64
		payTo  string
		at     time.Duration
		to     int // the state the hold is taken to: 0 reserved, 1 signed, 4 committed, 5 released
	}{
		{40, evm, -50 * time.Minute, 4},
		{25, "TreasuryAb", -40 * time.Minute, 4},
		{7, "treasuryab", -30 * time.Minute, 4},
		{30, evm, -20 * time.Minute, 1},
		{15, "0xcc", -10 * time.Minute, 0},
		{5, "0xcc", -5 * time.Minute, 5},
		{10, "SolPayee", -3 * time.Minute, 4},
	} {
		at := t0.Add(h.at).UnixNano()
		var id int64
		require.NoError(t, conn.QueryRow(ctx, "SELECT x402_budget_reserve($1, $2, $3, $4, lower($4), 'x402 eip155:8453', '/r', '0xpayer', '0xusdc', $5)",
			budget, session, h.amount, h.payTo, at).Scan(&id))
		require.Positive(t, id, "version 2 reserved %d to %s", h.amount, h.payTo)
		if h.to == 1 || h.to == 4 {
			_, err := conn.Exec(ctx, "SELECT x402_budget_sign($1, $2, $3, $4, $5, '', $6)", budget, id, fmt.Sprintf("0xs%d", id),
				t0.Add(time.Hour).UnixNano(), t0.Add(time.Hour+ledger.ExpiryMargin).UnixNano(), at)
			require.NoError(t, err)
		}
		if h.to >= 4 {
			_, err := conn.Exec(ctx, "SELECT x402_budget_mark($1, $2, $3::smallint, $4)", budget, id, h.to, at)
			require.NoError(t, err)
		}
	}

	s, err := budgetpg.Open(ctx, dsn, budgetpg.WithName("old"))
	require.NoError(t, err)
	defer s.Close()
	budgetpg.SetClock(s, sdktest.NewClock(t0))
	limits := old.Clone()
	limits.Payees = map[string]*big.Int{"treasuryab": big.NewInt(40), "SolPayee": big.NewInt(50)}
	err = s.Configure(ctx, old)
	require.ErrorIs(t, err, ledger.ErrLimitsDiffer, "the lower-case Solana payee is now named as the holds name it")
	require.NoError(t, s.Configure(ctx, limits))

	migratetest.CheckHolds(t, s, t0, map[uint64]ledger.State{1: ledger.Committed, 2: ledger.Committed, 3: ledger.Committed, 4: ledger.InDoubt,
		5: ledger.Released, 6: ledger.Released, 7: ledger.Committed}, 8, "82")

	for _, c := range []struct {
		payTo  string
		amount int64
		left   string
	}{
		{"0xabcdef0123456789abcdef0123456789abcdef01", 31, "30"}, // 40 committed and 30 in doubt, of 100
		{"SolPayee", 41, "40"},   // 10 of its own 50
		{"TreasuryAb", 76, "75"}, // 25 of the per-payee 100
		{"treasuryab", 34, "33"}, // 7 of its own 40
	} {
		err := s.Reserve(ctx, ledger.NewHoldID(), ledger.Reservation{Amount: big.NewInt(c.amount), PayTo: c.payTo})
		var r *ledger.Refusal
		require.ErrorAs(t, err, &r, c.payTo)
		assert.Equal(t, ledger.KindPayee, r.Kind, c.payTo)
		assert.Equal(t, c.left, r.Left.String(), c.payTo)
	}
	require.NoError(t, s.Reserve(ctx, ledger.NewHoldID(), ledger.Reservation{Amount: big.NewInt(1), PayTo: "0xdd"}))
	err = s.Reserve(ctx, ledger.NewHoldID(), ledger.Reservation{Amount: big.NewInt(1), PayTo: "0xdd"})
	var r *ledger.Refusal
	require.ErrorAs(t, err, &r, "the hour counts the five holds of version 2 not released, and the one since")
	assert.Equal(t, ledger.KindWindowCount, r.Kind)
	assert.Equal(t, t0.Add(10*time.Minute), r.RetryAt)
}
