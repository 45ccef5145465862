// Package reconcile resolves the payments a budget holds in doubt by asking their chains: a
// payment whose answer was lost (a dropped connection after the server settled it, a crash)
// stays counted until someone finds out what became of it. A Reconciler does that, on demand
// (Reconcile) or in the background (Run), with one Lookup per scheme and chain family
// (evm.Lookup, svm.Lookup, or the caller's own):
//
//	lookup, err := evm.DialLookup(evm.NetworkBase, os.Getenv("BASE_RPC_URL"))
//	if err != nil {
//		return err
//	}
//	defer lookup.Close()
//	reconciler, err := reconcile.New(payer.Budget(), reconcile.WithLookup(lookup))
//	if err != nil {
//		return err
//	}
//	report, err := reconciler.Reconcile(ctx)
//	if err != nil {
//		return err
//	}
//	for _, c := range report.Committed {
//		fmt.Println("settled:", usdc.Format(c.Amount), "in", c.Transaction)
//	}
//	for _, p := range report.Pending {
//		fmt.Println("still in doubt:", usdc.Format(p.Amount), "until", p.Until, p.Err)
//	}
//
// Nothing is released because of an error: a node that fails, times out or answers something
// unreadable leaves the payments it covered as they are, and so does a node that says
// "unused" before the payment's expiry. A release needs more than one answer: evm.Lookup
// releases only on the word of every endpoint it was given (evm.WithEndpoint), each at its
// finalized block and cross-checked with its own events; what a lookup still trusts (a
// single endpoint) is in Report.Caveats. A node that cannot be reached costs one bounded wait
// per reconciliation (ErrUnreachable). Lookups are batched and paced (WithBatch, WithRate) so
// that a public endpoint serves them.
package reconcile
