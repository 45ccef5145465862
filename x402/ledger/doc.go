// Package ledger keeps the accounts behind x402.Budget: the holds of the payments a wallet
// has reserved, signed, refused, left in doubt, committed or released, and the limits every
// reservation is checked against. The Budget owns the rules of the SDK (which rail signs
// what, when an outcome is final); a Store owns where the holds live and the atomic step
// that checks every limit and records a reservation.
//
// # The hold state machine
//
// Reserve records a hold in state Reserved. Sign moves it to Signed and records what was
// signed. From there: Committed (the payment went through; its amount moves to Spent),
// Refused (the server said no; it counts until its expiry plus ExpiryMargin), InDoubt (the
// outcome is unknown; it counts until Resolve or Committed). Released gives the amount back
// and applies to a Reserved hold only, except through Discard (a signature that never left
// the process), Resolve (a payment looked up on its rail and found unsettled after its
// expiry) and the expiry of a Refused hold. Committed and Released are final. Nothing else
// ever gives back an amount that may have left.
//
// # What every store guarantees
//
//   - Atomic limits. Reserve checks every limit of Configure against the holds recorded and
//     records the new hold in one atomic step, whoever else reserves on the same store at the
//     same time (goroutines, processes, machines): the limits hold at every instant.
//   - Durability. A method that changes a hold returns only once the change is durable in the
//     store's own terms (the in-memory store: once it is in memory). The Budget reserves
//     before anything is signed and records the signature before it is sent, so a crash never
//     forgets a payment that may have left.
//   - Reopening (durable stores). A hold recorded as Reserved and never signed is Released;
//     one recorded as Signed is InDoubt until resolved; Refused holds keep counting until
//     they expire; InDoubt holds stay in doubt; Spent is what was committed.
//   - The caller's clock. Every method takes the caller's now; a store never reads a clock of
//     its own, so a fake clock drives every store alike. Times are compared as Unix
//     nanoseconds, and returned in UTC.
//   - Flat cost. No operation scans all outstanding holds: refused holds are found through an
//     index by expiry, signatures through an index by identifier, and each window keeps its
//     running sums. Only a refusal walks the holds that must leave a window or expire for the
//     payment to fit, and Outstanding lists them all because that is what it is asked for.
//   - No release on error. An error other than the sentinels of this package may leave a
//     change applied or not; the caller never gives an amount back because of one.
//
// # Accounting
//
// Held is the sum of the holds Reserved, Signed, Refused or InDoubt; Spent the sum of the
// Committed ones. The total limit bounds Spent plus Held. A hold counts in a window from its
// reservation time for the window's length (a reservation at t counts at every instant of
// [t, t+Length)) unless it is Released; a window's count is the number of such holds. A
// payee's use is the Spent plus Held of the holds to that payee (payees compared in lower
// case). A Refused hold is Released once now is after its expiry plus ExpiryMargin; one
// without an expiry counts until it is committed or resolved.
//
// A refusal is a *Refusal naming the limit, what is left under it, and RetryAt: the first
// instant at which the payment fits under that limit if nothing else happens. For a window
// that is when the oldest counted holds leave it; for the total and a payee, when refused
// holds expire; zero when only a release, a resolution or nothing can free enough. When
// several limits refuse, the one reported is the first (per payment, total, payee, windows in
// order) that cannot free up by time alone, or else the one that frees up last.
//
// # Stores
//
// Memory, in this package, is the default. Durable stores live in packages of their own so
// that x402 links no database driver: x402/budgetfile (one file, SQLite in WAL mode) and
// x402/budgetpg (PostgreSQL, shared by processes on many machines). Every store computes its
// refusals with a Checker fed by what it keeps (Usage), so that a refusal reads the same
// whichever store made it. A durable store that only one process uses at a time can keep
// its accounts in a Memory restored from what it reads back (Restore) and write every change
// through its Journal, as budgetfile does. Every store runs the conformance suite of package
// ledgertest: Run for the contract, Differential against the reference, and for a durable
// store RunReopen for the reopening rules, DifferentialReopen, and the crash test of package
// crashtest.
package ledger
