package budgetpg_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/x402/budgetpg"
	"github.com/agentapis/sdk/x402/ledger"
)

// benchProcesses is the number of processes reserving at once.
const benchProcesses = 8

// envCount is the number of reservations a benchmark child makes.
const envCount = "BUDGETPG_TEST_COUNT"

// benchLimits are the limits of the benchmark's budget: a total that never refuses, as the
// floor's limit never does.
var benchLimits = ledger.Limits{Total: new(big.Int).Lsh(big.NewInt(1), 100)}

// BenchmarkReserve8Processes measures reservations per second from 8 processes (the test
// binary re-executed) on one budget: "store" reserves through Store.Reserve, "floor" runs a
// loop of the bare conditional UPDATE every reservation needs at least (UPDATE ... SET held
// = held + $1 WHERE held + $1 <= limit) on one row of the same server. Target: the store at
// least 0.5x the floor's reservations per second. The processes are started and connected
// outside the timer.
func BenchmarkReserve8Processes(b *testing.B) {
	dsn := requireDSN(b)
	b.Run("store", func(b *testing.B) {
		measureProcesses(b, "bench-store", budgetName(b))
	})
	b.Run("floor", func(b *testing.B) {
		table := fmt.Sprintf("bench_floor_%d", budgets.Add(1))
		if err := execOn(dsn, "CREATE TABLE "+table+" (id integer PRIMARY KEY, held numeric NOT NULL, lim numeric NOT NULL); "+
			"INSERT INTO "+table+" VALUES (1, 0, "+benchLimits.Total.String()+")"); err != nil {
			b.Fatal(err)
		}
		measureProcesses(b, "bench-floor", table)
	})
}

// measureProcesses starts benchProcesses children playing role on target, waits until each
// is ready, then times them making b.N reservations between them.
func measureProcesses(b *testing.B, role, target string) {
	per := (b.N + benchProcesses - 1) / benchProcesses
	children := make([]*child, benchProcesses)
	for i := range children {
		children[i] = startChild(b, role, target, envCount+"="+strconv.Itoa(per))
	}
	for _, c := range children {
		if got := c.line(b, time.Minute); got != "ready" {
			b.Fatalf("a child said %q", got)
		}
	}
	b.ResetTimer()
	start := time.Now()
	for _, c := range children {
		if _, err := fmt.Fprintln(c.in, "go"); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range children {
		if got := c.line(b, 5*time.Minute); got != "done" {
			b.Fatalf("a child said %q", got)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(per*benchProcesses)/elapsed.Seconds(), "reservations/s")
	for _, c := range children {
		c.wait(b, time.Minute)
	}
}

// benchChild runs prepare, says "ready", waits for "go", makes the reservations, says
// "done".
func benchChild(ctx context.Context, prepare func(ctx context.Context) (reserve func() error, done func(), err error)) error {
	n, err := strconv.Atoi(os.Getenv(envCount))
	if err != nil {
		return err
	}
	reserve, done, err := prepare(ctx)
	if err != nil {
		return err
	}
	defer done()
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return err
	}
	for range n {
		if err := reserve(); err != nil {
			return err
		}
	}
	fmt.Println("done")
	return nil
}

// benchStoreChild reserves through a Store.
func benchStoreChild(ctx context.Context) error {
	return benchChild(ctx, func(ctx context.Context) (func() error, func(), error) {
		s, err := budgetpg.Open(ctx, os.Getenv(envDSN), budgetpg.WithName(os.Getenv(envBudget)))
		if err != nil {
			return nil, nil, err
		}
		if err := s.Configure(ctx, benchLimits); err != nil {
			s.Close()
			return nil, nil, err
		}
		r := ledger.Reservation{Amount: big.NewInt(1), PayTo: "0x209693bc6afc0c5328ba36faf03c514ef312287c", Rail: "x402 eip155:8453",
			Resource: "https://shop.example/item"}
		reserve := func() error { return s.Reserve(ctx, ledger.NewHoldID(), r) }
		return reserve, func() { s.Close() }, nil
	})
}

// benchFloorChild runs the bare conditional UPDATE on the floor's table.
func benchFloorChild(ctx context.Context) error {
	return benchChild(ctx, func(ctx context.Context) (func() error, func(), error) {
		conn, err := pgx.Connect(ctx, os.Getenv(envDSN))
		if err != nil {
			return nil, nil, err
		}
		sql := "UPDATE " + os.Getenv(envBudget) + " SET held = held + $1::numeric WHERE id = 1 AND held + $1::numeric <= lim"
		reserve := func() error {
			tag, err := conn.Exec(ctx, sql, "1")
			if err == nil && tag.RowsAffected() != 1 {
				err = errors.New("the floor's limit refused")
			}
			return err
		}
		return reserve, func() { _ = conn.Close(context.Background()) }, nil
	})
}

// BenchmarkReserveBesideOutstanding reserves and releases one hold (two statements) beside
// 0 and 20,000 outstanding holds, half in doubt and half refused (expiring after the
// benchmark), under a total, a payee limit and two windows that count them all. Target: the
// second at most 1.5x the first: no operation reads all the outstanding holds.
func BenchmarkReserveBesideOutstanding(b *testing.B) {
	huge := new(big.Int).Lsh(big.NewInt(1), 100)
	limits := ledger.Limits{Total: huge, PerPayment: huge, PerPayee: huge, Windows: []ledger.Window{
		{Length: time.Hour, Amount: huge, Count: 1 << 40}, {Length: 24 * time.Hour, Count: 1 << 40},
	}}
	now := time.Now()
	for _, n := range []int{0, testenv.Outstanding(20_000)} {
		budget := budgetName(b)
		s, err := budgetpg.Open(b.Context(), requireDSN(b), budgetpg.WithName(budget))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		if err := s.Configure(b.Context(), limits); err != nil {
			b.Fatal(err)
		}
		// The outstanding holds are made by the store's own functions, inside the server
		// (a round trip each would take minutes), committed every 500.
		if _, err := admin(b).Exec(b.Context(), fmt.Sprintf(`DO $$
DECLARE
	budget bigint := (SELECT id FROM x402_budgets WHERE name = '%s');
	session bigint := (SELECT max(id) FROM x402_budget_sessions WHERE budget_id = budget);
	h bytea;
BEGIN
	FOR i IN 1 .. %d LOOP
		h := decode(md5(i::text), 'hex');
		PERFORM x402_budget_reserve(budget, session, h, 1000, '0x' || lpad(to_hex(i %% 1000), 4, '0'),
			'test', '/item', '0xpayer', '0xasset', %d);
		PERFORM x402_budget_sign(budget, h, 'sig-' || i, %d + i * 1000000000::bigint,
			%d + i * 1000000000::bigint + %d, '', %d);
		PERFORM x402_budget_mark(budget, h, (2 + i %% 2)::smallint, %d);
		IF i %% 500 = 0 THEN
			COMMIT;
		END IF;
	END LOOP;
END $$`, budget, n, now.UnixNano(), now.Add(time.Hour).UnixNano(), now.Add(time.Hour).UnixNano(),
			int64(ledger.ExpiryMargin), now.UnixNano(), now.UnixNano())); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("outstanding=%d", n), func(b *testing.B) {
			ctx := b.Context()
			r := ledger.Reservation{Amount: big.NewInt(1000), PayTo: "0x0001", Rail: "x402 eip155:8453", Resource: "/item"}
			b.ResetTimer()
			for range b.N {
				id := ledger.NewHoldID()
				if err := s.Reserve(ctx, id, r); err != nil {
					b.Fatal(err)
				}
				if _, err := s.Mark(ctx, id, ledger.Released); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
