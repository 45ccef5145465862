package budgetfile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// Open opens the budget file at path, creating it with its schema when it does not exist,
// and upgrading the schema of a file written by an earlier release. The returned Store holds
// the file for its life: another process, or another Open of this one, gets a *LockedError
// until Close (or the end of the process, whatever ends it). A file that is not a budget
// file, or one written by a later release, is a *FormatError; a folder that does not exist
// is an error naming it (fs.ErrNotExist). Opening applies the reopening rules: holds
// reserved and never signed are released, signed ones are in doubt.
func Open(path string, opts ...Option) (*Store, error) {
	if path == "" {
		return nil, &sdk.ValidationError{Service: "budgetfile", Field: "path", Reason: "must name a file"}
	}
	cfg := config{clock: sdk.SystemClock()}
	if err := httpcore.Configure("budgetfile", &cfg, opts); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("budgetfile: %s: %w", path, err)
	}
	if dir := filepath.Dir(abs); !isDir(dir) {
		return nil, fmt.Errorf("budgetfile: opening %s: the folder %s does not exist: %w", path, dir, fs.ErrNotExist)
	}
	deadline := time.Now().Add(cfg.wait)
	for {
		s, err := attempt(path, abs, cfg.clock)
		switch {
		case err == nil:
			return s, nil
		case !isBusy(err):
			var fe *FormatError
			if errors.As(err, &fe) {
				return nil, err
			}
			return nil, fmt.Errorf("budgetfile: opening %s: %w", path, err)
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, &LockedError{Path: path}
		}
		// Nothing is held while waiting, so that every waiter can take the file in turn.
		time.Sleep(min(left, retryDelay+rand.N(retryDelay)))
	}
}

// retryDelay is the least time an Open waiting for the file sleeps between two attempts
// (it sleeps up to twice as long, at random, so that waiters spread out).
const retryDelay = 5 * time.Millisecond

// isDir reports whether dir is a folder.
func isDir(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// attempt opens the file once, failing at once when another connection holds it. On any
// failure it closes what it opened, so that it holds no lock afterwards.
func attempt(path, abs string, clock sdk.Clock) (*Store, error) {
	// A URI, so that no character of the path is read as a parameter.
	db, err := sql.Open("sqlite", "file://"+(&url.URL{Path: abs}).EscapedPath())
	if err != nil {
		return nil, err
	}
	s := &Store{path: path, db: db, clock: clock}
	if err := s.open(); err != nil {
		_ = s.release()
		return nil, err
	}
	return s, nil
}

// open takes the file's lock, brings its schema up to date and applies the reopening rules.
func (s *Store) open() error {
	ctx := context.Background()
	s.db.SetMaxOpenConns(1)
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	s.conn = conn
	for _, q := range []string{
		`PRAGMA busy_timeout = 0`,
		// Every lock taken is kept until the connection closes, and the WAL's index lives in
		// this process's memory: no other process can read or write the file meanwhile.
		`PRAGMA locking_mode = EXCLUSIVE`,
		// Take the lock at once: a brand-new file is not in WAL mode yet, and two processes
		// sharing a read lock would both fail to switch it.
		`BEGIN EXCLUSIVE`,
		`COMMIT`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	var mode string
	if err := conn.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		return fmt.Errorf("the file cannot be put in WAL mode (it stays in %q)", mode)
	}
	// A commit is in the WAL (which a process's end does not lose) when it returns; the
	// journal asks for FULL where a power loss must not lose it either.
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
		return err
	}
	if err := migrate(ctx, conn, s.path, migrations); err != nil {
		return err
	}
	// The reopening rules. A reserved hold was never signed: nothing can have left. A signed
	// one may have left: in doubt until resolved. ("state < 4" lets the index of outstanding
	// holds serve.)
	if _, err := conn.ExecContext(ctx, `BEGIN;
		UPDATE holds SET state = 5 WHERE state < 4 AND state = 0;
		UPDATE holds SET state = 3 WHERE state < 4 AND state = 1;
		COMMIT`); err != nil {
		_, _ = conn.ExecContext(ctx, `ROLLBACK`)
		return err
	}
	s.journal, err = newJournal(ctx, conn)
	return err
}

// isBusy reports whether err is SQLite's "database is locked".
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}
