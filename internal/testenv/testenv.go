// Package testenv says what the SDK's tests read from their environment: whether the long
// tests (soaks, crash loops, fleets, differential runs) run at their full size, which CI asks
// for with SDK_TEST_FULL=1, or at the small size that keeps `go test ./...` quick.
package testenv

import (
	"os"
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
