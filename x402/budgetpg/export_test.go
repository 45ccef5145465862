package budgetpg

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/storehooks"
)

// LockClass is the first key of the store's advisory locks, for the tests that sweep.
const LockClass = lockClass

// SetClock makes s decide with clock instead of PostgreSQL's: every operation passes the time
// clock reads to the database's functions.
func SetClock(s *Store, clock sdk.Clock) { storehooks.PostgresClock(s, clock) }

// MigrateTo brings the schema of the database dsn names to migration version, as the
// release that stopped there would have.
func MigrateTo(ctx context.Context, dsn string, version int) error {
	all, err := migrations()
	if err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	return apply(ctx, pool, all[:version])
}
