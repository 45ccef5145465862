package budgetpg

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// do runs f on a connection of the pool, within ctx.
func (s *Store) do(ctx context.Context, f func(ctx context.Context, conn *pgxpool.Conn) error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	return f(ctx, conn)
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
