package secrettest

import (
	"flag"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m, New())) }

// TestMainLetsWaitingTestsRunTogether checks that Main raised the number of parallel tests
// (this package's own TestMain runs through it), unless the command line set -parallel.
func TestMainLetsWaitingTestsRunTogether(t *testing.T) {
	if slices.ContainsFunc(os.Args[1:], func(a string) bool { return strings.HasPrefix(strings.TrimLeft(a, "-"), "test.parallel") }) {
		t.Skip("-parallel was given on the command line, which Main leaves as it is")
	}
	got, err := strconv.Atoi(flag.Lookup("test.parallel").Value.String())
	if err != nil {
		t.Fatal(err)
	}
	if got != waitingParallelism() || got < 8 {
		t.Errorf("-test.parallel = %d, want %d (at least 8)", got, waitingParallelism())
	}
}
