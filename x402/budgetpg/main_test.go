package budgetpg_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentapis/sdk/internal/secrettest"
)

// childEnv, when set, makes the test binary a child process of a test (see children.go):
// its value names the part it plays.
const childEnv = "BUDGETPG_TEST_CHILD"

// schemaDSN is the DSN of the schema this run of the tests made for itself (search_path set
// to it), so that every run starts from an empty schema and its migrations; empty without
// a server.
var schemaDSN string

// baseDSN is the DSN the tests were given, for the tests that make schemas of their own.
var baseDSN string

// testSchema is the name of the schema of schemaDSN.
var testSchema string

// scan checks that the DSN's password reaches no error the tests see.
var scan = secrettest.New()

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		os.Exit(runChild(role))
	}
	if isCrashChild() {
		os.Exit(m.Run()) // a crash test's child pays in the schema its parent named
	}
	base := os.Getenv(dsnEnv)
	baseDSN = base
	if base == "" {
		os.Exit(secrettest.Main(m, scan))
	}
	if u, err := url.Parse(base); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			scan.Add(pw)
		}
	}
	schema := fmt.Sprintf("budgetpg_test_%d_%d", time.Now().Unix(), os.Getpid())
	if err := execOn(base, "CREATE SCHEMA "+schema); err != nil {
		fmt.Fprintln(os.Stderr, "budgetpg tests: cannot create the test schema:", err)
		os.Exit(1)
	}
	schemaDSN, testSchema = withSearchPath(base, schema), schema
	code := secrettest.Main(m, scan)
	if err := execOn(base, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
		fmt.Fprintln(os.Stderr, "budgetpg tests: cannot drop the test schema:", err)
	}
	os.Exit(code)
}

// execOn runs sql on the database of dsn, bounded in time.
func execOn(dsn, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// withSearchPath returns dsn with its search_path set to schema, in the DSN's own syntax.
func withSearchPath(dsn, schema string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err == nil {
			q := u.Query()
			q.Set("search_path", schema)
			u.RawQuery = q.Encode()
			return u.String()
		}
	}
	return dsn + " search_path=" + schema
}

// requireDSN returns the DSN of the tests' schema. Without a server it skips the test, but
// fails it in CI (CI set), where the server must be there.
func requireDSN(t testing.TB) string {
	t.Helper()
	needServer(t) // TestMain made the schema when there is a server
	return schemaDSN
}

// budgets numbers the budgets the tests make, so that each test has budgets of its own.
var budgets atomic.Int64

// budgetName returns a new budget name for t.
func budgetName(t testing.TB) string {
	return fmt.Sprintf("%s#%d", t.Name(), budgets.Add(1))
}

// admin returns a connection to the tests' schema, closed when the test ends.
func admin(t testing.TB) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), requireDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = conn.Close(ctx)
	})
	return conn
}

// freshSchema makes an empty schema for t, dropped when the test ends, and returns the DSN
// whose search_path is that schema.
func freshSchema(t testing.TB) string {
	t.Helper()
	requireDSN(t)
	schema := fmt.Sprintf("budgetpg_fresh_%d_%d", os.Getpid(), budgets.Add(1))
	if err := execOn(baseDSN, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := execOn(baseDSN, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Error(err)
		}
	})
	return withSearchPath(baseDSN, schema)
}
