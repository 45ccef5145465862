package budgetfile_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/x402/budgetfile"
)

// waiterEnv names the file a child process of TestWaitingProcessesEachGetTheFileInTurn opens
// again and again, waiting for it.
const waiterEnv = "BUDGETFILE_TEST_WAITER"

// waiterWait is how long a waiting process waits for the file (budgetfile.WithWait).
const waiterWait = 15 * time.Second

// Four processes wait on one budget file (WithWait) while a fifth holds it: once it closes
// the file, each of them gets it in turn, again and again, within its wait; none keeps a lock
// on the file while it waits. TestWaitersEachGetTheFileInTurn does the same with the Stores
// of one process; here the locks are those of separate processes. SDK_TEST_FULL=1 runs 20
// rounds of 20 opens with a holder that keeps the file a second; the default, 3 rounds of 8
// with 200 ms.
func TestWaitingProcessesEachGetTheFileInTurn(t *testing.T) {
	if path := os.Getenv(waiterEnv); path != "" {
		waitInChild(path)
		return
	}
	t.Parallel()
	rounds, opens, hold := testenv.Size(3, 20), testenv.Size(8, 20), testenv.Size(200, 1000)
	const waiters = 4
	path := filepath.Join(t.TempDir(), "budget.db")
	type waiter struct {
		cmd *exec.Cmd
		in  io.WriteCloser
		out *bufio.Scanner
	}
	ws := make([]*waiter, waiters)
	for i := range ws {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWaitingProcessesEachGetTheFileInTurn$", "-test.count=1")
		cmd.Env = append(os.Environ(), waiterEnv+"="+path)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		in, err := cmd.StdinPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		ws[i] = &waiter{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	}
	for round := range rounds {
		holder, err := budgetfile.Open(path)
		require.NoError(t, err)
		for _, w := range ws {
			_, err := fmt.Fprintf(w.in, "%d\n", opens/waiters)
			require.NoError(t, err)
		}
		time.Sleep(time.Duration(hold) * time.Millisecond)
		closed := time.Now()
		require.NoError(t, holder.Close())
		var wg sync.WaitGroup
		reports := make([]string, waiters)
		for i, w := range ws {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for w.out.Scan() {
					if line := w.out.Text(); strings.HasPrefix(line, "opened ") || strings.HasPrefix(line, "failed ") {
						reports[i] = line
						return
					}
				}
			}()
		}
		wg.Wait()
		for i, r := range reports {
			require.True(t, strings.HasPrefix(r, "opened "), "round %d, waiter %d: %q", round, i, r)
			first, err := strconv.ParseInt(strings.Fields(r)[1], 10, 64)
			require.NoError(t, err)
			assert.False(t, time.Unix(0, first).Before(closed), "round %d, waiter %d opened the file before the holder closed it", round, i)
		}
	}
	for _, w := range ws {
		require.NoError(t, w.in.Close())
		require.NoError(t, w.cmd.Wait())
	}
}

// waitInChild reads numbers from its standard input until it closes; for each, it opens the
// file at path that many times, waiting for it, keeping it a moment each time, and says
// "opened T" (T the Unix nanoseconds of its first open) or "failed ERR".
func waitInChild(path string) {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		n, err := strconv.Atoi(in.Text())
		var first time.Time
		for range n {
			if err != nil {
				break
			}
			var s *budgetfile.Store
			start := time.Now()
			if s, err = budgetfile.Open(path, budgetfile.WithWait(waiterWait)); err != nil {
				err = fmt.Errorf("after %s: %w", time.Since(start).Round(time.Millisecond), err)
				break
			}
			if first.IsZero() {
				first = time.Now()
			}
			time.Sleep(10 * time.Millisecond)
			err = s.Close()
		}
		if err != nil {
			fmt.Printf("failed %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
			continue
		}
		fmt.Printf("opened %d\n", first.UnixNano())
	}
}
