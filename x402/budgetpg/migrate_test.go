package budgetpg_test

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/budgetpg"
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
	assert.Equal(t, []int{1, 2}, versions)
	assert.Equal(t, []string{"0001_tables.sql", "0002_functions.sql"}, names)

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
	_, err = conn.Exec(t.Context(), "INSERT INTO x402_budget_schema_migrations (version, name) VALUES (3, '0003_later.sql')")
	require.NoError(t, err)
	_, err = budgetpg.Open(t.Context(), dsn)
	require.ErrorIs(t, err, budgetpg.ErrSchemaNewer)
	assert.Contains(t, err.Error(), "version 3")
}
