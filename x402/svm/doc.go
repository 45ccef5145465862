// Package svm pays and verifies the x402 "exact" scheme on Solana, and holds the building
// blocks of every Solana payment of the SDK (gpuprice's key purchase uses them too): token
// account derivation, TransferChecked for the Token and Token-2022 programs, the memo,
// signing, sending, confirmation, what a budget hold records of a Solana payment, and the
// lookup that finds it on chain later.
//
//	node, err := svm.DialNode(os.Getenv("SOLANA_RPC_URL"))
//	if err != nil {
//		return err
//	}
//	signer, err := svm.PrivateKeySignerFromBase58(os.Getenv("SOLANA_PRIVATE_KEY"))
//	if err != nil {
//		return err
//	}
//	scheme, err := svm.NewExact(signer, node)
//	if err != nil {
//		return err
//	}
//	payer, err := x402.NewPayer(x402.Policy{MaxTotal: usdc.Dollars(10)}, []x402.Scheme{scheme})
//	if err != nil {
//		return err
//	}
//	_ = payer
//
// # The payment
//
// A payment is a v0 transaction whose fee payer is the facilitator named by the offer's
// extra.feePayer: key 0, its signature left empty for the facilitator, which pays the fee, so
// the payer needs no SOL. Its instructions, in order: SetComputeUnitLimit, SetComputeUnitPrice
// (never above MaxComputeUnitPrice), a TransferChecked of exactly the offer's amount of its
// mint, with the mint's own program (Token or Token-2022), from the payer's associated token
// account to the payee's, and a Memo: the seller's extra.memo, else 16 random bytes in hex,
// which make the transaction unique. The payer signs only as the transfer's authority.
// Before anything is signed, an offer without extra.feePayer, or whose fee payer is the
// payer's own wallet, or whose addresses are not Solana addresses, is refused; the payer core
// checks the mint, the network, the amount and the payee against its policy.
//
// The payment's identifier in the budget is the payer's signature: the transaction's id is
// the fee payer's, which the client cannot know before the facilitator signs. Its expiry is
// when its blockhash can no longer land (an upper bound: blocks of 600 ms), and its Ref
// records the blockhash, the last block height at which it can land (never below what the
// node says, whatever the server claims), the payer's token account and the memo.
//
// # Looking payments up
//
// Lookup is the reconcile.Lookup of every Solana payment: it reads the finalized block
// height, then the statuses of the payments' signatures, and for an x402 payment (whose
// signature is not its transaction's id) the payer's token account's history, matched by
// memo and by the payer's signature. It commits a payment only on a transaction it read and
// checked against what the payment recorded (the payer's signature, the one transfer, its
// amount, mint, accounts and memo). A payment not found is released only on reads at the
// finalized commitment, once the finalized height is past the last height at which it could
// land and the history, read back to before the payment, shows no trace of it. Given several
// nodes (WithNodes), a release needs all of them to agree, and answers that contradict each
// other resolve nothing (a *ConflictError); one node alone is still trusted not to lie
// consistently about heights, statuses and history at once, which Caveats says.
//
// # Verifying
//
// VerifyExact checks a payment offline as the reference facilitator does before it
// simulates it, with its reason codes; x402test's facilitator uses it, then settles the
// payment on a fake cluster. Addresses compare exactly: base58 is case-sensitive.
package svm
