package budgetpg

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrSchemaNewer reports a database whose budget schema was upgraded by a later version of
// the SDK than this one: this version would not know what the newer migrations changed.
var ErrSchemaNewer = errors.New("budgetpg: the database's budget schema is newer than this SDK's; upgrade the SDK")

// migrationFiles are the numbered migrations, NNNN_what.sql, applied in order.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered migration.
type migration struct {
	version int
	name    string
	sql     string
}

// lockClass is the first key of the advisory locks the store takes: (lockClass, 0) while it
// migrates, (lockClass, pid) for the life of a Store's liveness connection (pids are
// positive).
const lockClass = 0x78343032 // "x402"

// migrations returns the embedded migrations by version, which run from 1 without a gap.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		prefix, _, ok := strings.Cut(e.Name(), "_")
		version, err := strconv.Atoi(prefix)
		if !ok || err != nil || !strings.HasSuffix(e.Name(), ".sql") {
			return nil, fmt.Errorf("budgetpg: migration %s is not named NNNN_what.sql", e.Name())
		}
		sql, err := fs.ReadFile(migrationFiles, path.Join("migrations", e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: version, name: e.Name(), sql: string(sql)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("budgetpg: migration %s is out of sequence", m.name)
		}
	}
	return out, nil
}

// migrate brings the schema to the latest migration, in one transaction under the advisory
// lock (lockClass, 0): processes starting together apply each migration once, the others
// waiting for it and then finding it applied. It returns ErrSchemaNewer for a schema this
// SDK does not know.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	all, err := migrations()
	if err != nil {
		return err
	}
	return apply(ctx, pool, all)
}

// apply brings the schema to the latest of all, the migrations from version 1 on; see
// migrate.
func apply(ctx context.Context, pool *pgxpool.Pool, all []migration) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1, 0)", lockClass); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS x402_budget_schema_migrations (
			version integer PRIMARY KEY,
			name text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		var current int
		if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM x402_budget_schema_migrations").Scan(&current); err != nil {
			return err
		}
		if current > len(all) {
			return fmt.Errorf("%w (the database is at version %d, this SDK knows %d)", ErrSchemaNewer, current, len(all))
		}
		for _, m := range all[current:] {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("budgetpg: migration %s: %w", m.name, err)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO x402_budget_schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name); err != nil {
				return err
			}
		}
		return nil
	})
}
