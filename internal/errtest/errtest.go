// Package errtest finds the error of a given type in an error's tree for a test, or fails
// the test, so that a test can go on to assert the error's fields.
//
// Deprecated: use internal/testkit; this package is removed once every client moved.
package errtest

import (
	"testing"

	"github.com/agentapis/sdk/internal/testkit"
)

// As returns the first error of type T in err's tree (see errors.As), failing t at once
// when there is none.
//
// Deprecated: use testkit.As; removed once every client moved.
func As[T error](t testing.TB, err error) T {
	t.Helper()
	return testkit.As[T](t, err)
}
