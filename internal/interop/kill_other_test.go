//go:build !linux

package interop_test

import "os/exec"

// killWithParent does nothing where the kernel cannot kill a child with its
// parent: the tests' cleanups stop their children.
func killWithParent(*exec.Cmd) {}
