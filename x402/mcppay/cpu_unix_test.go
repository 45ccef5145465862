//go:build unix

package mcppay_test

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time this process used so far, user and system: what a
// benchmark that runs client and server in one process costs, whatever else the machine
// runs meanwhile.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
