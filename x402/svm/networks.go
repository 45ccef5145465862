package svm

import (
	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/x402/wire"
)

// Solana networks in CAIP-2 form (the reference is the start of the cluster's genesis hash),
// and their USDC mints.
const (
	// NetworkMainnet is Solana mainnet-beta, the network a Policy without Networks allows
	// for Solana payments.
	NetworkMainnet = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
	// NetworkDevnet is Solana devnet.
	NetworkDevnet = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"
	// USDCMainnet is the USDC mint on mainnet (6 decimals, the classic Token program).
	USDCMainnet = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	// USDCDevnet is Circle's USDC mint on devnet (6 decimals, the classic Token program).
	USDCDevnet = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"
)

// knownUSDC maps the networks this package knows to their USDC mint.
var knownUSDC = map[string]string{NetworkMainnet: USDCMainnet, NetworkDevnet: USDCDevnet}

// KnownUSDC returns the USDC mint of mainnet or devnet, in CAIP-2 or v1 form ("solana",
// "solana-devnet").
func KnownUSDC(network string) (mint string, ok bool) {
	n, _ := wire.NormalizeNetwork(network) // "" when unknown, which knownUSDC does not hold
	mint, ok = knownUSDC[n]
	return mint, ok
}

// knownMints are mints whose program and decimals never change, so that paying with them
// needs no lookup of the mint.
var knownMints = map[solana.PublicKey]Mint{
	solana.MustPublicKeyFromBase58(USDCMainnet): {Program: solana.TokenProgramID, Decimals: 6},
	solana.MustPublicKeyFromBase58(USDCDevnet):  {Program: solana.TokenProgramID, Decimals: 6},
}
