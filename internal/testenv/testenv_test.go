package testenv

import (
	"flag"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	RunWaitingTestsTogether()
	os.Exit(m.Run())
}

// TestWaitingTestsRunTogether checks that RunWaitingTestsTogether, which this package's
// TestMain calls, raised -test.parallel, unless the command line set it.
func TestWaitingTestsRunTogether(t *testing.T) {
	if slices.ContainsFunc(os.Args[1:], func(a string) bool { return strings.HasPrefix(strings.TrimLeft(a, "-"), "test.parallel") }) {
		t.Skip("-parallel was given on the command line, which RunWaitingTestsTogether leaves as it is")
	}
	got, err := strconv.Atoi(flag.Lookup("test.parallel").Value.String())
	if err != nil {
		t.Fatal(err)
	}
	if got != WaitingParallelism() || got < 8 {
		t.Errorf("-test.parallel = %d, want %d (at least 8)", got, WaitingParallelism())
	}
}
