package budgetfile_test

import (
	"bufio"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/x402/budgetfile"
)

// holdEnv names the file a child process of TestLockedWhileAnotherProcessHoldsIt opens and
// holds until it is killed.
const holdEnv = "BUDGETFILE_TEST_HOLD"

func TestLockedWhileAnotherStoreHoldsIt(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "budget.db")
	first, err := budgetfile.Open(path)
	require.NoError(t, err)
	_, err = budgetfile.Open(path)
	var locked *budgetfile.LockedError
	require.ErrorAs(t, err, &locked)
	assert.Equal(t, path, locked.Path)
	assert.Contains(t, err.Error(), "one process at a time")

	require.NoError(t, first.Close())
	require.NoError(t, first.Close(), "a second Close does nothing")
	again, err := budgetfile.Open(path)
	require.NoError(t, err, "Close released the file")
	require.NoError(t, again.Close())
	_, err = os.Stat(path + "-wal")
	assert.True(t, errors.Is(err, os.ErrNotExist), "Close folded the WAL into the file: %v", err)
}

func TestLockedWhileAnotherProcessHoldsIt(t *testing.T) {
	if path := os.Getenv(holdEnv); path != "" {
		holdInChild(path)
		return
	}
	t.Parallel()
	path := filepath.Join(t.TempDir(), "budget.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockedWhileAnotherProcessHoldsIt$", "-test.count=1")
	cmd.Env = append(os.Environ(), holdEnv+"="+path)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	opened := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "holding") {
				opened <- sc.Text()
			}
		}
		close(opened)
	}()
	select {
	case line, ok := <-opened:
		require.True(t, ok, "the child ended without opening the file")
		require.Equal(t, "holding", line)
	case <-time.After(30 * time.Second):
		t.Fatal("the child did not open the file within 30s")
	}

	_, err = budgetfile.Open(path)
	var locked *budgetfile.LockedError
	require.ErrorAs(t, err, &locked, "another process holds the file")

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	start := time.Now()
	s, err := budgetfile.Open(path)
	require.NoError(t, err, "the kernel released the lock of the killed process")
	assert.Less(t, time.Since(start), 5*time.Second)
	require.NoError(t, s.Close())
}

// holdInChild opens the file at path, says so on stdout, and waits to be killed (at most a
// minute).
func holdInChild(path string) {
	s, err := budgetfile.Open(path)
	if err != nil {
		os.Stdout.WriteString("failed: " + err.Error() + "\n")
		return
	}
	os.Stdout.WriteString("holding\n")
	time.Sleep(time.Minute)
	_ = s.Close()
}

func TestWithWaitWaitsForTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "budget.db")
	first, err := budgetfile.Open(path)
	require.NoError(t, err)
	closed := make(chan time.Time, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		closed <- time.Now()
		_ = first.Close()
	}()
	s, err := budgetfile.Open(path, budgetfile.WithWait(30*time.Second))
	require.NoError(t, err)
	assert.False(t, time.Now().Before(<-closed), "it opened once the other store closed")
	require.NoError(t, s.Close())

	_, err = budgetfile.Open(path, budgetfile.WithWait(-time.Second))
	var ve *sdk.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "wait", ve.Field)
	_, err = budgetfile.Open("")
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "path", ve.Field)
}

// Several Stores waiting on one file (WithWait) each get it in turn as the one before them
// closes it, within their wait: none keeps a lock on the file while it waits. Each round, a
// holder keeps the file for a while, and four waiters open it again and again, each keeping
// it a moment; every open must succeed. SDK_TEST_FULL=1 runs 20 rounds of 20 opens with a
// holder that keeps the file a second; the default, 3 rounds of 8 with 200 ms.
func TestWaitersEachGetTheFileInTurn(t *testing.T) {
	t.Parallel()
	rounds, opens, hold := 3, 8, 200*time.Millisecond
	if testenv.Full() {
		rounds, opens, hold = 20, 20, time.Second
	}
	const waiters = 4
	wait := hold + 10*time.Second
	path := filepath.Join(t.TempDir(), "budget.db")
	for round := range rounds {
		holder, err := budgetfile.Open(path)
		require.NoError(t, err)
		var wg sync.WaitGroup
		errs := make(chan error, opens)
		for w := range waiters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range opens / waiters {
					start := time.Now()
					s, err := budgetfile.Open(path, budgetfile.WithWait(wait))
					if err != nil {
						errs <- fmt.Errorf("round %d, waiter %d, after %s: %w", round, w, time.Since(start).Round(time.Millisecond), err)
						continue
					}
					time.Sleep(10 * time.Millisecond)
					errs <- s.Close()
				}
			}()
		}
		time.Sleep(hold)
		require.NoError(t, holder.Close())
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
	}
}

// Open in a folder that does not exist says which folder.
func TestOpenNamesAMissingFolder(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "no", "such")
	_, err := budgetfile.Open(filepath.Join(missing, "budget.db"))
	require.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), "the folder "+missing+" does not exist")
	assert.NotContains(t, err.Error(), "out of memory")
}

func TestRefusesFilesItDoesNotKnow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()

	other := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite", other)
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')`)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	_, err = budgetfile.Open(other)
	var fe *budgetfile.FormatError
	require.ErrorAs(t, err, &fe)
	assert.Contains(t, fe.Reason, "another program")
	db, err = sql.Open("sqlite", other)
	require.NoError(t, err)
	var tables int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'holds'`).Scan(&tables))
	assert.Zero(t, tables, "the other program's file was left as it was")
	require.NoError(t, db.Close())

	newer := filepath.Join(dir, "newer.db")
	s, err := budgetfile.Open(newer)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	db, err = sql.Open("sqlite", newer)
	require.NoError(t, err)
	_, err = db.Exec(`PRAGMA user_version = 99`)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	_, err = budgetfile.Open(newer)
	require.ErrorAs(t, err, &fe)
	assert.Contains(t, fe.Reason, "99")

	text := filepath.Join(dir, "text.db")
	require.NoError(t, os.WriteFile(text, []byte(strings.Repeat("not a database\n", 100)), 0o600))
	_, err = budgetfile.Open(text)
	require.Error(t, err)
	assert.False(t, errors.As(err, new(*budgetfile.LockedError)))
	body, err := os.ReadFile(text)
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("not a database\n", 100), string(body), "left as it was")
}
