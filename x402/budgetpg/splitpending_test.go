//go:build splitpending

package budgetpg_test

import (
	"testing"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/crashtest"
)

// This file connects the tests to the packages of the payer (the crash test's children, the
// fleet of payers, the money tests' rule for a missing server); standalone_test.go stands in
// for it while those do not build.

// dsnEnv names the environment variable that gives the tests their PostgreSQL database.
const dsnEnv = budgettest.EnvPostgresDSN

// isCrashChild reports whether this test binary runs as a crash test's child.
func isCrashChild() bool { return crashtest.IsChild() }

// needServer skips t without a PostgreSQL server, but fails it in CI, where the server must
// be there.
func needServer(t testing.TB) { budgettest.PostgresDSN(t) }

func init() { roles["fleet"] = fleetChild }
