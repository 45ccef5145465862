package budgetpg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// statementTimeout bounds an operation once it has reached the database: the store's own
// bound, which the caller's context does not shorten.
const statementTimeout = 30 * time.Second

// do runs f on a connection of the pool. It waits for a connection as long as ctx lets it;
// once it has one, it checks ctx a last time, then runs f with a context of its own, bounded
// by statementTimeout, that ctx's end does not cancel. So a context that ends before the
// statement is sent stops it, and one that ends later changes nothing: the operation
// finishes and returns its real answer (a hold recorded is reported recorded), and the
// connection goes back to the pool instead of being dropped mid-statement.
func (s *Store) do(ctx context.Context, f func(ctx context.Context, conn *pgxpool.Conn) error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if err := ctx.Err(); err != nil {
		return err
	}
	run, cancel := context.WithTimeout(context.WithoutCancel(ctx), statementTimeout)
	defer cancel()
	return f(run, conn)
}

// now returns the time the test clock reads, in Unix nanoseconds, or nil (SQL NULL) for the
// server's clock: the store decides with PostgreSQL's clock but in the SDK's own tests.
func (s *Store) now() *int64 {
	if s.clock == nil {
		return nil
	}
	n := s.clock.Now().UnixNano()
	return &n
}
