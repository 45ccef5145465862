// Package budgetpg keeps a budget.Budget in PostgreSQL, so that any number of processes, on
// any number of machines, draw on one budget: its limits hold across all of them, and what
// each has reserved, signed and spent survives restarts and crashes.
//
// # When to pick it
//
// The default store keeps a budget in memory: one process, forgotten at exit. A budget
// that several processes on several machines share, such as a fleet of crawlers paying
// from one wallet, needs a server they all reach: pick this store, with a PostgreSQL server
// the fleet already runs (the SDK is tested with PostgreSQL 15). Its cost is a round trip
// and a commit per operation. Programs that do not import this package do not link a
// database driver.
//
//	store, err := budgetpg.Open(ctx, os.Getenv("BUDGET_DSN"), budgetpg.WithName("crawlers"))
//	if err != nil {
//		return err
//	}
//	defer store.Close()
//	spend, err := budget.New(usdc.Dollars(50), // fleet-wide
//		budget.WithStore(store), budget.WithWindowLimit(24*time.Hour, usdc.Dollars(10), 0))
//	if err != nil {
//		return err // ledger.ErrLimitsDiffer when the fleet runs with other limits
//	}
//	signer, err := evm.NewPrivateKeySigner(os.Getenv("WALLET_KEY"))
//	if err != nil {
//		return err
//	}
//	scheme, err := evm.NewExact(signer)
//	if err != nil {
//		return err
//	}
//	payer, err := x402.NewPayer(x402.Policy{}, []x402.Scheme{scheme}, x402.WithBudget(spend))
//	if err != nil {
//		return err
//	}
//	client := &http.Client{Transport: payer.RoundTripper(nil)}
//	resp, err := client.Get("https://shop.example/report")
//	if err != nil {
//		return err
//	}
//	defer resp.Body.Close()
//
// # Guarantees
//
//   - One atomic step. A reservation is one statement: a function in the database locks the
//     budget's row, checks every limit (the total, per payment, per payee, each window's
//     amount and count) against running sums kept in that row, records the hold and
//     commits. The reservations of every process apply one after the other, so no limit is
//     ever passed, whoever reserves at the same time; there is no read-then-write race.
//   - Durability. An operation returns once PostgreSQL has committed it: the hold is
//     recorded before anything is signed, and the signature before the payment is sent.
//     Keep synchronous_commit on (PostgreSQL's default): with it off, a server crash may
//     forget the last commits.
//   - True answers. A context that ends before an operation's statement is sent stops it;
//     once sent, the operation finishes (within a bound of the store's own, 30 seconds) and
//     returns its real answer, whatever the context: a reservation reported failed was not
//     recorded, and the connection goes back to the pool. Should an answer still be lost
//     (the network cut), HoldState finds out whether the reservation was made.
//   - Flat cost. Sums are kept as holds change; refused holds expire through an index by
//     deadline; signatures are found through an index by payment id; each window keeps the
//     time it was moved to and its running sums, and reads through an index by reservation
//     time only the holds that leave it or, when the clock went back, come back into it. No
//     operation reads all the outstanding holds, except Outstanding, which lists them, and
//     ChangeLimits, which counts the holds of the new windows once.
//   - The same answers as every store: refusals name the limit, what is left and when
//     enough frees up, computed by the SDK's one implementation of those rules.
//   - No release on error: an error of the database leaves a hold counted.
//
// # What a fleet shares
//
// Every Store opened on the same database with the same name (WithName; DefaultName
// without it) keeps the same budget: its limits, holds, Spent, Reserved, windows and payee
// accounts. Several budgets, each with a name, can share one database.
//
// The limits are recorded with the budget by the first Configure (budget.New calls it)
// of any process, and every later one must give the same limits, or fail with a
// *ledger.LimitsError (ledger.ErrLimitsDiffer), which names both: processes with other
// limits would each let through what another refuses. ChangeLimits changes a fleet's limits
// on purpose: it records the new ones, which every Store of the budget enforces from its
// next reservation on (the database checks each reservation against the limits it records),
// and keeps every hold and Spent; a window added or made longer counts every hold of its
// length, and a payee limit added counts what was already paid to the payee. Processes that
// start later configure with the new limits.
//
// Time is PostgreSQL's: each operation reads the server's clock (clock_timestamp()) once it
// holds the budget's lock, to record when a hold was reserved, to move the windows and to
// expire refused holds. One clock decides for the whole fleet, whatever the machines'
// clocks say, and no reading is kept as a floor for later ones: should the server's clock be
// corrected back, the windows count again the holds reserved within their length before the
// corrected time, the holds reserved at the later readings keep counting until their own
// time has passed, and nothing frees early.
//
// Payees are compared exactly, as the caller gives them (EVM addresses in lower-case hex,
// Solana addresses in base58 as they are).
//
// # Liveness and reopening
//
// Each Store registers a session: a connection of its own, held for the Store's life,
// holding a session-level advisory lock. PostgreSQL drops that lock when the connection
// ends, however the process ends: a session without its lock is dead. When a Store opens,
// and when a reservation is refused, the holds of dead sessions of the budget are settled by
// the reopening rules: reserved and never signed, released (the process cannot have sent
// anything); signed, in doubt until budget.Budget.Resolve (it may have been paid). Refused
// holds keep counting until they expire, and Spent is what was committed. A live session's
// holds are never touched, so a process starting never releases another's reservation.
//
// When a live process's session connection breaks (a network cut, a server restart), the
// Store registers a new session; the reservations of the old one count as a dead
// process's, and a Sign on one already released fails with ledger.ErrNotReserved: the
// payer then sends nothing. A reservation looks its session up once it holds the budget's
// lock, so one that waited for the lock while a sweep removed its session is made again
// under the new session, never recorded under a session no sweep would find. Closing a Store ends its session
// the same way. A connection pooler between the Store and PostgreSQL must give each
// connection a session of its own (direct connections, or session pooling): transaction
// pooling loses the lock.
//
// # Migrations and the DSN
//
// Open creates the schema on an empty database and upgrades it: numbered migrations,
// embedded in the SDK, applied in order in one transaction under an advisory lock, so
// that processes starting together apply each once. The table x402_budget_schema_migrations
// records them; a database that a later version of the SDK upgraded is refused
// (ErrSchemaNewer) rather than misread. The tables and functions are named x402_budget*,
// in the schema of the connection's search_path; the role needs the right to create them
// for the first Open. Upgrade every process of a fleet together: one of an earlier version
// fails on a schema a later one upgraded, without touching a hold.
//
// Migration 3 kept every hold, sum and window of the databases of earlier versions: each
// hold got the HoldID of its old number (8 zero bytes, then the number in big-endian), which
// stays as its place in the order of reservations; EVM payees were written in lower case and
// the payees' accounts made again by payee exactly; a named payee limit in lower case that
// is not an EVM address was renamed to the one exact payee its holds have, when they have
// one; the latest reservation time, a floor that an ahead clock could push, was dropped.
// Migration 4 replaced the functions.
//
// The DSN is a postgres:// URL or key=value settings, as libpq and pgx read them; the
// PG* environment variables fill in what it leaves out. pool_max_conns sets the size of
// the Store's pool (each Store holds one more connection, its session's), search_path
// the schema. No error quotes the DSN, whose password is a secret.
//
// Every hold is kept (committed and released ones too), so the tables are also the
// budget's ledger, to be audited with SQL.
package budgetpg
