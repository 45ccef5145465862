//go:build !splitpending

package budgetpg_test

import (
	"os"
	"testing"
)

// This file stands in for splitpending_test.go while the packages of the payer do not build:
// no crash test runs, no fleet of payers, and the rule for a missing server is written here.

// dsnEnv names the environment variable that gives the tests their PostgreSQL database.
const dsnEnv = "SDK_TEST_POSTGRES_DSN"

// isCrashChild reports whether this test binary runs as a crash test's child: never, while
// the crash test does not build.
func isCrashChild() bool { return false }

// needServer skips t without a PostgreSQL server, but fails it in CI, where the server must
// be there.
func needServer(t testing.TB) {
	t.Helper()
	if os.Getenv(dsnEnv) != "" {
		return
	}
	const how = dsnEnv + " is not set: these tests need a PostgreSQL server (see internal/budgettest)"
	if os.Getenv("CI") != "" {
		t.Fatal(how)
	}
	t.Skip(how)
}
