// Package errtest finds the error of a given type in an error's tree for a test, or fails
// the test, so that a test can go on to assert the error's fields.
package errtest

import (
	"errors"
	"testing"
)

// As returns the first error of type T in err's tree (see errors.As), failing t at once
// when there is none.
func As[T error](t testing.TB, err error) T {
	t.Helper()
	var target T
	if !errors.As(err, &target) {
		t.Fatalf("want %T, got %T: %v", target, err, err)
	}
	return target
}
