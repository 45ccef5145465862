package interop_test

import (
	"os/exec"
	"syscall"
)

// killWithParent has the kernel kill cmd's process if the test binary dies
// without running its cleanups (a panic, a -timeout), so that no node or anvil
// outlives it.
func killWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
