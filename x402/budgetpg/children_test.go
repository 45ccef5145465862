package budgetpg_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The environment of a child process: the DSN of the tests' schema, the budget it opens, and
// what its role needs.
const (
	envDSN    = "BUDGETPG_TEST_DSN"
	envBudget = "BUDGETPG_TEST_BUDGET"
)

// childLife bounds a child's life: one that nobody stops stops by itself.
const childLife = 2 * time.Minute

// roles are the parts a child process can play, by name.
var roles = map[string]func(ctx context.Context) error{
	"holder":      holderChild,
	"bench-store": benchStoreChild,
	"bench-floor": benchFloorChild,
}

// runChild plays role in a child process and returns its exit code.
func runChild(role string) int {
	play, ok := roles[role]
	if !ok {
		fmt.Fprintln(os.Stderr, "unknown child role", role)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), childLife)
	defer cancel()
	if err := play(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "child "+role+":", err)
		return 1
	}
	return 0
}

// child is a running child process.
type child struct {
	cmd *exec.Cmd
	out *bufio.Reader
	in  io.WriteCloser
}

// startChild starts the test binary as a child playing role on budget, with env added. The
// child is killed, if it still runs, when the test ends.
func startChild(t testing.TB, role, budget string, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=" + role, envDSN + "=" + requireDSN(t), envBudget + "=" + budget}, env...)...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	c := &child{cmd: cmd, out: bufio.NewReader(stdout), in: stdin}
	t.Cleanup(func() {
		if c.cmd.ProcessState == nil {
			_ = c.cmd.Process.Kill()
			_ = c.cmd.Wait()
		}
	})
	return c
}

// line reads the child's next line of output, waiting at most d.
func (c *child) line(t testing.TB, d time.Duration) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		s, _ := c.out.ReadString('\n')
		got <- strings.TrimSpace(s)
	}()
	select {
	case s := <-got:
		return s
	case <-time.After(d):
		_ = c.cmd.Process.Kill()
		t.Fatalf("the child said nothing in %s", d)
		return ""
	}
}

// kill kills the child with SIGKILL, as a crash would, and waits for it.
func (c *child) kill(t testing.TB) {
	t.Helper()
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGKILL))
	_ = c.cmd.Wait()
}

// wait waits at most d for the child to exit, and fails the test unless it exited with 0.
func (c *child) wait(t testing.TB, d time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "the child failed")
	case <-time.After(d):
		_ = c.cmd.Process.Kill()
		<-done
		t.Fatalf("the child did not finish in %s", d)
	}
}

// waitForStdin waits until the parent closes the child's standard input, or ctx ends.
func waitForStdin(ctx context.Context) {
	closed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(closed)
	}()
	select {
	case <-closed:
	case <-ctx.Done():
	}
}
