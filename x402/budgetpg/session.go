package budgetpg

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// liveness keeps a Store's session: a connection of its own, for the Store's life, holding
// the session-level advisory lock (lockClass, its backend's pid), and the session's row in
// x402_budget_sessions. While the connection lives, no other process sweeps the session's
// holds; once it is gone (the process died, or the network cut it), the lock is gone with it
// and the next Store to open, or to be refused, applies the reopening rules to them.
//
// A goroutine waits on the connection: when it breaks, it registers a new session on a new
// connection, and Reserve, told by the database that its session was swept, asks for one
// too (renew). The holds of the old session are then treated as a dead process's: reserved
// ones are released, so a Sign on them fails and nothing is sent.
type liveness struct {
	cfg    *pgx.ConnConfig
	budget int64

	mu      sync.Mutex
	id      int64         // the current session
	changed chan struct{} // closed when id changes or the watcher stops
	kick    chan int64    // a session found swept, for the watcher to replace

	stop context.CancelFunc
	done chan struct{}
}

// retryDelay bounds the wait between two attempts to register a session again.
const retryDelay = 2 * time.Second

// startLiveness opens the session's connection, registers the session and starts watching
// the connection.
func startLiveness(ctx context.Context, cfg *pgx.ConnConfig, budget int64) (*liveness, error) {
	l := &liveness{cfg: cfg, budget: budget, changed: make(chan struct{}), kick: make(chan int64, 1), done: make(chan struct{})}
	conn, id, err := l.register(ctx)
	if err != nil {
		return nil, err
	}
	l.id = id
	watch, stop := context.WithCancel(context.Background())
	l.stop = stop
	go l.watch(watch, conn)
	return l, nil
}

// register opens a connection, takes its advisory lock and records the session.
func (l *liveness) register(ctx context.Context) (*pgx.Conn, int64, error) {
	conn, err := pgx.ConnectConfig(ctx, l.cfg)
	if err != nil {
		return nil, 0, err
	}
	var locked bool
	var id int64
	err = conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, pg_backend_pid())", lockClass).Scan(&locked)
	if err == nil && !locked {
		err = errors.New("budgetpg: the session lock of a new connection is taken")
	}
	if err == nil {
		err = conn.QueryRow(ctx, "INSERT INTO x402_budget_sessions (budget_id, pid) VALUES ($1, pg_backend_pid()) RETURNING id",
			l.budget).Scan(&id)
	}
	if err != nil {
		closeConn(conn)
		return nil, 0, err
	}
	return conn, id, nil
}

// closeConn closes conn, bounded in time.
func closeConn(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = conn.Close(ctx)
}

// session returns the current session.
func (l *liveness) session() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.id
}

// renew asks for a new session to replace stale, which the database no longer knows, and
// waits until there is one (or ctx ends, or the store closes).
func (l *liveness) renew(ctx context.Context, stale int64) error {
	l.mu.Lock()
	id, changed := l.id, l.changed
	l.mu.Unlock()
	if id != stale {
		return nil
	}
	select {
	case l.kick <- stale:
	default: // already asked
	}
	select {
	case <-changed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// watch waits on the session's connection until ctx ends; when the connection breaks or a
// renewal is asked for, it registers a new session on a new connection, retrying until it
// can.
func (l *liveness) watch(ctx context.Context, conn *pgx.Conn) {
	defer close(l.done)
	defer func() {
		l.mu.Lock()
		close(l.changed) // nobody waits for a renewal that will not come
		l.mu.Unlock()
	}()
	errc, cancel := waitOn(ctx, conn)
	for {
		select {
		case <-ctx.Done():
			<-errc
			cancel()
			closeConn(conn)
			return
		case stale := <-l.kick:
			if stale != l.session() {
				continue // renewed already
			}
			cancel()
			<-errc
		case err := <-errc:
			cancel()
			if err == nil { // a notification nobody listens for
				errc, cancel = waitOn(ctx, conn)
				continue
			}
		}
		closeConn(conn)
		if conn = l.reregister(ctx); conn == nil {
			return
		}
		errc, cancel = waitOn(ctx, conn)
	}
}

// waitOn waits on conn, which returns only when the connection breaks (or a notification
// comes): the error, or nil, is sent on errc; cancel ends the wait.
func waitOn(ctx context.Context, conn *pgx.Conn) (errc chan error, cancel context.CancelFunc) {
	errc = make(chan error, 1)
	wait, cancel := context.WithCancel(ctx)
	go func() {
		_, err := conn.WaitForNotification(wait)
		errc <- err
	}()
	return errc, cancel
}

// reregister registers a new session, retrying until it can or ctx ends (nil).
func (l *liveness) reregister(ctx context.Context) *pgx.Conn {
	for {
		conn, id, err := l.register(ctx)
		if err == nil {
			l.mu.Lock()
			l.id = id
			close(l.changed)
			l.changed = make(chan struct{})
			l.mu.Unlock()
			return conn
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(retryDelay):
		}
	}
}

// close ends the session: its connection closes, and with it the advisory lock.
func (l *liveness) close() {
	l.stop()
	<-l.done
}
