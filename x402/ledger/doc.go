// Package ledger keeps the accounts behind budget.Budget: the holds of the payments a wallet
// has reserved, signed, refused, left in doubt, committed or released, and the limits every
// reservation is checked against. The Budget owns the rules of the SDK (which rail signs
// what, when an outcome is final); a Store owns where the holds live and the atomic step
// that checks every limit and records a reservation. Store is the contract a store of the
// caller's implements too; package ledgertest is how it proves it does.
//
// # The hold state machine
//
// Reserve records a hold in state Reserved under a HoldID the caller made (NewHoldID). Sign
// moves it to Signed and records what was signed. From there: Committed (the payment went
// through; its amount moves to Spent), Refused (the server said no; it counts until its
// expiry plus ExpiryMargin), InDoubt (the outcome is unknown; it counts until Resolve or
// Committed). Released gives the amount back and applies to a Reserved hold only, except
// through Discard (a signature that never left the process), Resolve (a payment looked up on
// its rail and found unsettled after its expiry) and the expiry of a Refused hold. Committed
// and Released are final. Nothing else ever gives back an amount that may have left.
//
// # Hold ids
//
// The caller makes a hold's id before it reserves, so that a reservation whose answer was
// lost (a context that ended, a connection that broke after the store committed) is found
// again: HoldState answers where the hold stands, or ErrUnknownHold when the reservation
// never landed; the caller then gives nothing back that it cannot account for. A Reserve
// under an id already recorded is ErrDuplicateHold and changes nothing, so reserving again
// under the same id never holds twice. A store keeps its own order of reservations where it
// needs one (which of two holds reserved at the same time leaves a window first).
//
// # What every store guarantees
//
//   - Atomic limits. Reserve checks every limit against the holds recorded and records the
//     new hold in one atomic step, whoever else reserves on the same store at the same time
//     (goroutines, processes, machines): the limits hold at every instant.
//   - Durability. A method that changes a hold returns only once the change is durable in the
//     store's own terms (the in-memory store: once it is in memory). The Budget reserves
//     before anything is signed and records the signature before it is sent, so a crash never
//     forgets a payment that may have left.
//   - Reopening (durable stores). A hold recorded as Reserved and never signed is Released;
//     one recorded as Signed is InDoubt until resolved; Refused holds keep counting until
//     they expire; InDoubt holds stay in doubt; Spent is what was committed. The limits are
//     recorded: a Configure with other limits is ErrLimitsDiffer (a *LimitsError naming
//     both), and ChangeLimits is how they change.
//   - The store's own clock. No method takes the caller's time: a store reads its own clock
//     (the in-memory and file stores, the sdk.Clock they were given; the PostgreSQL store,
//     the server's) to decide whether a refused hold has expired, which holds a window
//     counts, and when a hold was reserved. No reading is kept as a floor for later
//     decisions: a clock that once read years ahead, then was corrected, frees nothing early
//     afterwards. Times are compared as Unix nanoseconds, and returned in UTC.
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
// Committed ones. The total limit bounds Spent plus Held. A payee's use is the Spent plus
// Held of the holds to that payee; payees are compared exactly, as the caller gives them
// (EVM addresses in lower-case hex, Solana addresses in base58 as they are): no store
// changes their letter case. A Refused hold is Released once the store's clock reads a time
// after its expiry plus ExpiryMargin; one without an expiry counts until it is committed or
// resolved.
//
// A window counts, when the store's clock reads now, the holds not released that were
// reserved within its length before now: a reservation at t counts at every instant of [t,
// t+Length). A hold reserved at a later reading than now (the clock was ahead, then
// corrected back) counts too, until its own time has passed: a clock's errors make a hold
// count longer, never shorter. When the clock goes back, a window counts again the holds
// reserved within its length before the new reading. The in-memory store keeps the
// committed holds that left a window for the window's length of credited time (a jump of the
// clock counts as a second; see Memory); the durable stores keep every hold.
//
// ChangeLimits replaces the limits on purpose and keeps every hold and Spent. A new payee
// limit counts what was already spent with the payee. A window added, or made longer, counts
// from the change on the holds of its length that the store still has: the durable stores
// every one; the in-memory store every outstanding hold and the committed ones its windows
// kept (those of the longest window before the change, and those that left it within its
// length).
//
// A refusal is a *Refusal naming the limit, what is left under it, and RetryAt: the first
// instant at which the payment fits under that limit if nothing else happens. For a window
// that is when the earliest-reserved counted holds leave it; for the total and a payee, when
// refused holds expire; zero when only a release, a resolution or nothing can free enough.
// When several limits refuse, the one reported is the first (per payment, total, payee,
// windows in order) that cannot free up by time alone, or else the one that frees up last.
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
// store RunReopen for the reopening rules and DifferentialReopen.
package ledger
