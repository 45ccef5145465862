// Package evm pays and verifies the x402 "exact" scheme on EVM chains: a fixed amount of a
// token (USDC) moved by an EIP-3009 TransferWithAuthorization that the payer signs under
// EIP-712 and a facilitator submits, paying the gas. Give an Exact to x402.NewPayer:
//
//	signer, err := evm.NewPrivateKeySigner(os.Getenv("EVM_PRIVATE_KEY"))
//	if err != nil {
//		return err
//	}
//	scheme, err := evm.NewExact(signer)
//	if err != nil {
//		return err
//	}
//	payer, err := x402.NewPayer(x402.Policy{MaxTotal: usdc.Dollars(10)}, []x402.Scheme{scheme})
//	if err != nil {
//		return err
//	}
//	_ = payer
//
// The authorization pays exactly the offer's amount to its payTo, with a nonce of 32 random
// bytes, validAfter = now-600 (every reference client back-dates it, for facilitators whose
// clock runs behind) and validBefore = now + the offer's maxTimeoutSeconds (at most the
// policy's MaxValidity), under the domain {extra.name, extra.version, chain id, asset}: the
// token's own name and version, never a table's guess. Signer is an interface (an address
// and a 65-byte signature of a digest), so a hardware wallet or a key management service can
// sign; PrivateKeySigner keeps a secp256k1 key in memory and prints as its address only.
//
// VerifyExact checks a payment offline as the reference facilitator does (scheme, network,
// asset, recipient, exact amount, validity window, and the signature recovering to the
// payer), with its reason codes; x402test's facilitator and a server can use it. Addresses
// compare in any letter case (CanonicalAddress).
//
// Lookup finds out what became of the authorizations a budget holds in doubt, so that a
// reconcile.Reconciler commits or releases them, through one or more JSON-RPC endpoints:
//
//	lookup, err := evm.DialLookup(evm.NetworkBase, os.Getenv("BASE_RPC_URL"),
//		evm.WithEndpoint(os.Getenv("BASE_RPC_URL_2"))) // a node of another operator
//	if err != nil {
//		return err
//	}
//	defer lookup.Close()
//
// A payment is committed when any endpoint reads its authorizationState used at its latest
// block and has its AuthorizationUsed event (whose transaction is reported with it). It is
// released only when every endpoint reads it unused at its latest block and at its finalized
// block (its safe block on a chain without finality), that block's time is past validBefore
// plus ledger.ExpiryMargin, and the endpoint has no AuthorizationUsed event of it from the
// first block it could settle in (found by time, from its reservation) up to its latest. On
// Base that is once Ethereum finalized the batch holding that block, typically 20 to 30
// minutes after the expiry. Answers that contradict each other (*ConflictError), a batch
// answered under other ids (*BatchError) and any failure resolve nothing. With a single
// endpoint the lookup still trusts that node not to lie consistently about state, events and
// time at once; its Caveats say so, and so does every reconcile.Report. Endpoint URLs must be
// https (http on the loopback interface, or with WithInsecureHTTP) and never appear in an
// error.
package evm
