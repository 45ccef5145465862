// Package clitest runs an example program's main logic in a test, and checks the command line
// behaviour every example shares (see package cli): -h prints the usage and does nothing
// else, and a refused command line exits with cli.ExitRefused having done nothing.
package clitest

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentapis/sdk/examples/internal/cli"
)

// Main is an example's main logic: it runs with the command line args and the environment
// env, writes to stdout and stderr, and returns the exit status.
type Main func(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int

// Run runs main with args and an environment holding only env, and returns its exit status
// and what it wrote.
func Run(t *testing.T, main Main, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = main(t.Context(), args, func(k string) string { return env[k] }, &out, &errOut)
	return code, out.String(), errOut.String()
}

// Output runs an example's run, which writes what the program prints to w, and returns what it
// wrote, failing the test when it fails.
func Output(t *testing.T, run func(ctx context.Context, w io.Writer) error) string {
	t.Helper()
	var out bytes.Buffer
	if err := run(t.Context(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	return out.String()
}

// AssertContainsAll checks that the output text holds each of wants.
func AssertContainsAll(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		assert.Contains(t, text, want)
	}
}

// AssertHelp checks that -h, -help and --help make the program name print its usage, listing
// every variable of vars, and exit with cli.ExitOK having printed nothing else.
func AssertHelp(t *testing.T, main Main, name string, vars ...string) {
	t.Helper()
	for _, arg := range []string{"-h", "-help", "--help"} {
		code, out, errOut := Run(t, main, nil, arg)
		assert.Equal(t, cli.ExitOK, code, arg)
		assert.Empty(t, errOut, arg)
		assert.True(t, strings.HasPrefix(out, "Usage: go run ./examples/"+name+" [flags]\n"), "%s: the usage comes first:\n%s", arg, out)
		_, env, ok := strings.Cut(out, "\nEnvironment:")
		if !assert.True(t, ok, "%s: the usage lists the environment:\n%s", arg, out) {
			continue
		}
		lines := strings.Split(strings.TrimSuffix(env, "\n"), "\n")
		if len(vars) == 0 {
			assert.Equal(t, []string{" none read."}, lines, "%s: nothing follows the usage", arg)
			continue
		}
		var listed []string
		for _, line := range lines[1:] {
			name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
			listed = append(listed, name)
		}
		assert.Equal(t, vars, listed, "%s: the usage lists the program's variables, and nothing follows it", arg)
	}
}

// AssertRefused checks that the program refuses args with env: it exits with
// cli.ExitRefused, writes a message holding want and the hint to -h on stderr, and nothing
// on stdout.
func AssertRefused(t *testing.T, main Main, name string, env map[string]string, want string, args ...string) {
	t.Helper()
	code, out, errOut := Run(t, main, env, args...)
	assert.Equal(t, cli.ExitRefused, code, "%v", args)
	assert.Empty(t, out, "%v: nothing is done", args)
	assert.Contains(t, errOut, name+": "+want, "%v", args)
	assert.Contains(t, errOut, "Run go run ./examples/"+name+" -h for its flags and environment variables.", "%v", args)
}
