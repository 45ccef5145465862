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
// payer), with its reason codes; x402test's facilitator and a server can use it. Lookup reads
// authorizationState from the token contract, so that a reconcile.Reconciler resolves the
// authorizations a budget holds in doubt. Addresses compare in any letter case
// (CanonicalAddress).
package evm
