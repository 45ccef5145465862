// Package budgetfile keeps the holds of a budget.Budget in one SQLite file, so that a budget
// outlives its process: what was spent, and every payment that may have left, are still
// counted after a restart or a crash. There is no server to run; the driver is pure Go
// (modernc.org/sqlite), so the program needs no C compiler. A program that does not import
// this package does not link it.
//
//	store, err := budgetfile.Open("/var/lib/myagent/budget.db") // made on first use; the folder must exist
//	if err != nil {
//		return err
//	}
//	defer store.Close()
//	spend, err := budget.New(usdc.Dollars(10), budget.WithStore(store))
//	if err != nil {
//		return err
//	}
//	signer, err := evm.NewPrivateKeySigner(os.Getenv("EVM_PRIVATE_KEY"))
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
//	resp, err := client.Get("https://api.example.com/report/1")
//	if err != nil {
//		return err
//	}
//	defer resp.Body.Close()
//
// # When to use it
//
// Pick it for one process on one machine whose limits must hold across restarts: an agent
// or a daemon that is restarted, a command run again and again, a scheduled job. The
// default store, in memory, is the right one when the budget may start afresh with the
// process. When several processes, or several machines, must draw on one budget, use the
// PostgreSQL store of package x402/budgetpg.
//
// # Durability
//
// Every change is in the file before the call that made it returns, and the Budget reserves
// before anything is signed and records the signature before it is sent:
//
//   - a reservation, a commit, a refusal or a doubt is committed to the file's write-ahead log
//     (SQLite's WAL, synchronous=NORMAL). It survives the end of the process, however it ends
//     (SIGKILL included); a power loss may take the latest ones back;
//   - a signature is committed with synchronous=FULL: the log is on the disk (one fsync)
//     before Sign returns, so before the signed payment can leave the process, and with it
//     everything written before.
//
// So after a power loss a commit written after the latest signature may be missing: its hold
// reads back as signed, and so in doubt; it stays counted until Budget.Resolve, never lost.
// A reservation never signed may be missing: nothing was signed for it. That is one fsync
// per payment, plus two at every checkpoint of the log (about every 100 payments).
//
// Opening the file applies the reopening rules: holds reserved and never signed are
// released (nothing can have left for them), signed ones are in doubt until resolved,
// refused ones keep counting until they expire, and Spent is what was committed.
//
// # Limits and time
//
// The first Configure of a file records its limits in it. A later Configure (a restart, the
// next run of a command) with other limits fails with a *ledger.LimitsError, which matches
// ledger.ErrLimitsDiffer and names both: a budget does not quietly change its limits from one
// run to the next. ChangeLimits changes them on purpose and records the new ones; every hold
// and Spent stay, and the accounts are read back from the file, so that a window added or
// made longer counts every hold of its length.
//
// The store decides with its clock (WithClock; the system's without it): when a hold is
// reserved, which holds a rolling window counts, when a refused hold has expired. It keeps no
// reading as a floor: after a run whose clock was years ahead, a run whose clock is right
// finds every hold the ahead run reserved counting until its own time has passed, and
// nothing released early. Nor does it write what its clock alone decided: a refused hold
// that expires by a run's clock stops counting for that run, and stays refused in the file
// for the next run to decide again by its own. Payees are compared exactly, as the caller gives them.
//
// # One process at a time
//
// A Store holds the file for its whole life with an exclusive lock (SQLite's
// locking_mode=EXCLUSIVE): another process, another Store of the same process, or another
// SQLite program that opens the file gets a *LockedError ("database is locked" for other
// programs) until Close. Open can wait for the file instead (WithWait): it tries again every
// few milliseconds, holding nothing in between, so that several waiting processes each get
// the file in turn. The lock goes with the process: when a process ends, killed or not, the
// kernel releases it, and the next Open succeeds at once.
//
// Refusing a second process is what keeps the store simple and every operation flat: the
// process that holds the file keeps its accounts (sums, rolling windows, indexes) in memory,
// read back from the file when the budget is configured, and writes each change as one
// SQLite transaction. Sharing the file would make every process re-read the others' changes,
// and releasing the reservations of a process that died would need to know which processes
// are alive; the PostgreSQL store does that. SQLite's locks are POSIX record locks: opening
// the same file by other means in the same process and closing it drops them, so leave the
// file alone while a Store has it.
//
// # The file
//
// The file keeps every hold ever reserved (about 200 bytes each, with a URL as resource) and
// what each payee was paid, and the limits. The budget's total applies to the file's whole
// life: raise it with ChangeLimits, which keeps what was spent and what is in doubt; deleting
// a file forgets them.
// While a Store has the file, the log sits beside it ("-wal"); Close folds it in and removes
// it. Copy the file only while no Store has it open.
//
// The schema has numbered versions: a release that changes it upgrades a file written by an
// earlier one, in order, when it opens it, and a file of a later release is refused with a
// *FormatError, as is another program's database. Version 2 gave each hold of version 1 the
// HoldID of its old number (8 zero bytes, then the number in big-endian), wrote the EVM
// payees of version 1 in lower case (the form callers now give; other payees stay as they
// are), and added up again what each payee was paid, by payee exactly; every hold, sum and
// window counts as before.
//
// # Cost
//
// Configuring the budget reads back the outstanding holds and the committed ones reserved
// within twice the longest window's length (5 to 10 ms for each thousand). Then every
// operation is the in-memory store's, whatever the number of outstanding holds, plus one
// SQLite transaction: tens of microseconds, and the fsync of a signature. A Store is safe
// for concurrent use; its operations run one at a time, so a signature's fsync holds back
// the operations behind it. Operations do not watch their context: each is a short write to
// a file no other process can hold.
package budgetfile
