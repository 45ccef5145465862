// Package failrecord holds TB, a testing.TB that records the failures a checking helper
// reports instead of failing the test, so that the helper's own tests can show that it fails
// when it should and only then. It imports nothing of the SDK, so that any test-support
// package can use it.
package failrecord

import (
	"fmt"
	"testing"
)

// TB records Errorf and Fatalf as messages; everything else goes to the testing.TB it wraps.
// Fatalf records and returns: the helper under test goes on, as it would not on a real
// failure, so a test reads Messages rather than relying on where the helper stopped.
type TB struct {
	testing.TB
	// Messages are the failures reported, in order.
	Messages []string
}

// New returns a TB wrapping t.
func New(t testing.TB) *TB { return &TB{TB: t} }

// Helper does nothing: the failures are recorded, not printed.
func (f *TB) Helper() {}

// Errorf records a failure.
func (f *TB) Errorf(format string, args ...any) {
	f.Messages = append(f.Messages, fmt.Sprintf(format, args...))
}

// Fatalf records a failure and returns.
func (f *TB) Fatalf(format string, args ...any) { f.Errorf(format, args...) }
