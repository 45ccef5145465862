package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// childVar marks the test binary run as a program by TestMainRunsTheProgram.
const childVar = "CLI_TEST_MAIN_CHILD"

// TestMainRunsTheProgram runs this test binary again as a program whose main is Main: it
// passes the command line and the environment, exits with the program's status, and ends
// its context on an interrupt.
func TestMainRunsTheProgram(t *testing.T) {
	if os.Getenv(childVar) != "" {
		Main(func(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int {
			fmt.Fprintf(stdout, "env %s\n", env(childVar))
			if !slices.Contains(args, "wait") {
				return 3
			}
			fmt.Fprintln(stdout, "waiting")
			<-ctx.Done()
			fmt.Fprintln(stderr, "interrupted")
			return 7
		})
		return
	}
	t.Parallel()
	child := func(args ...string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestMainRunsTheProgram$", "--"}, args...)...)
		cmd.Env = append(os.Environ(), childVar+"=child")
		return cmd
	}

	out, err := child().Output()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 3, exit.ExitCode(), "the program's status")
	assert.Equal(t, "env child\n", string(out))

	if runtime.GOOS == "windows" {
		return // no interrupt to send
	}
	cmd := child("wait")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && lines.Text() != "waiting" {
	}
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	err = cmd.Wait()
	require.True(t, errors.As(err, &exit), "%v", err)
	assert.Equal(t, 7, exit.ExitCode(), "the interrupt ended the program's context, not the process")
	assert.Equal(t, "interrupted\n", stderr.String())
}
