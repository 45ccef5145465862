// Package testenv says what the SDK's tests read from their environment: whether the long
// tests (soaks, crash loops, fleets, differential runs) run at their full size, which CI asks
// for with SDK_TEST_FULL=1, or at the small size that keeps `go test ./...` quick.
package testenv

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// EnvFull names the environment variable that runs the long tests at their full size when it
// is "1".
const EnvFull = "SDK_TEST_FULL"

// Full reports whether the long tests run at their full size.
func Full() bool { return os.Getenv(EnvFull) == "1" }

// Size returns full when the long tests run at their full size, else small.
func Size(small, full int) int {
	if Full() {
		return full
	}
	return small
}

// Outstanding returns how many outstanding holds a store benchmark keeps beside the one it
// measures: full, or 1,000 under -short, which CI's single run of each benchmark uses so that
// the filling does not outlast the run (the figures come from runs without -short).
func Outstanding(full int) int {
	if testing.Short() {
		return 1_000
	}
	return full
}

// RunWaitingTestsTogether raises -test.parallel to 4 per CPU (8 at least) unless the command
// line set it. A package whose parallel tests wait on timers, stalled servers and bounded
// calls, rather than on the CPU, calls it from TestMain, so that on a small machine they do
// not wait in line behind each other; a package of CPU-bound tests does not, as they would
// only slow each other down.
func RunWaitingTestsTogether() {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(WaitingParallelism()))
	}
}

// WaitingParallelism is the -test.parallel RunWaitingTestsTogether sets.
func WaitingParallelism() int { return max(8, 4*runtime.GOMAXPROCS(0)) }
