// Package budget bounds what may leave a wallet, whatever the payment rail: the x402
// payments of a Payer (package x402, on EVM chains and on Solana alike), gpuprice's USDC key
// purchase on Solana, or any rail of the caller's. Every rail that draws on one Budget is
// bounded by its limits together.
//
//	b, err := budget.New(usdc.Dollars(10), // $10.00 in all
//		budget.WithWindowLimit(time.Hour, usdc.Dollars(2), 0), // at most $2.00 an hour
//		budget.WithPayeeLimit(usdc.Dollars(5)))                // at most $5.00 to any payee
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
//	payer, err := x402.NewPayer(x402.Policy{}, []x402.Scheme{scheme}, x402.WithBudget(b))
//	if err != nil {
//		return err
//	}
//	_ = payer
//
// # Holds
//
// A payment first reserves its amount (Reserve); nothing may be signed before. The Hold it
// gets then follows the payment:
//
//   - Release gives the amount back, and only while nothing was signed;
//   - Sign records what was signed (identifier, expiry) before it leaves: from then on the
//     amount counts until it is committed, or until the payment can no longer be used;
//   - Commit moves the amount to Spent: a success receipt or a 2xx answer proved the payment;
//   - Refused keeps the amount counted until the payment expires (plus ledger.ExpiryMargin):
//     the server said no, but the payee still holds a valid authorization and could settle it;
//   - InDoubt keeps the amount counted until it is resolved: the payment may have settled (no
//     answer, a 5xx, an answer to a re-sent request). Budget.Resolve ends that once the chain
//     was checked, by hand or by a reconciler (package reconcile);
//   - Discard gives back the amount of a payment that was signed but never left the process.
//
// Nothing a server says releases a signed payment early, and no error of the store releases
// anything: a hold whose change could not be recorded simply stays counted. A reservation or
// a signature whose answer was lost (the context ended, the connection broke) is looked up
// again by the identifier the Budget made before the call, and finished: released when
// nothing was sent, as it never is after a failed call.
//
// # Limits
//
// Every limit is checked in the same atomic step as the reservation: the total (New's limit)
// on what was spent plus what is held; one payment's amount (WithPaymentLimit); the amount and
// number of payments in rolling windows (WithWindowLimit); what each payee may get
// (WithPayeeLimit, WithPayeeLimitFor). A refusal is a *LimitError naming the limit, what is
// left of it and, when time alone frees enough, when that is (RetryAt). Amounts are USDC
// atomic units (package usdc), so every rail that shares a budget must pay in that unit.
//
// # Stores
//
// Where the holds live is the budget's store (WithStore), any ledger.Store: by default in
// memory, where a restart forgets them and each process has its own; x402/budgetfile keeps
// them in one file, for one process whose budget must outlive restarts and crashes;
// x402/budgetpg in PostgreSQL, for any number of processes on any number of machines. A
// store decides with its own clock when a refused payment expires and which payments a
// window counts (PostgreSQL's for budgetpg), so no process's wrong clock frees money early.
// A Budget is safe for concurrent use: however many goroutines pay at once, no limit is ever
// passed.
package budget
