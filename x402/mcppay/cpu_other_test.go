//go:build !unix

package mcppay_test

import "time"

// processCPU reports nothing where getrusage is missing: the benchmark's cpu-ns/op is 0.
func processCPU() time.Duration { return 0 }
