package evm

import (
	"errors"
	"strconv"
	"strings"

	"github.com/agentapis/sdk/x402/wire"
)

// Networks and USDC contracts the scheme knows without configuration.
const (
	// NetworkBase is Base mainnet (chain id 8453) in CAIP-2 form, the network a Policy
	// without Networks allows for EVM payments.
	NetworkBase = "eip155:8453"
	// NetworkBaseSepolia is the Base Sepolia test network (chain id 84532) in CAIP-2 form.
	NetworkBaseSepolia = "eip155:84532"
	// USDCBase is the USDC token contract on Base mainnet (EIP-712 name "USD Coin", version "2").
	USDCBase = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
	// USDCBaseSepolia is the USDC token contract on Base Sepolia (EIP-712 name "USDC", version "2").
	USDCBaseSepolia = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
)

// knownUSDC maps the networks this package knows to their USDC contract.
var knownUSDC = map[string]string{
	NetworkBase:        USDCBase,
	NetworkBaseSepolia: USDCBaseSepolia,
}

// KnownUSDC returns the USDC contract of a network this package knows (Base and Base
// Sepolia), in CAIP-2 or v1 form.
func KnownUSDC(network string) (asset string, ok bool) {
	n, _ := wire.NormalizeNetwork(network) // "" when unknown, which knownUSDC does not hold
	asset, ok = knownUSDC[n]
	return asset, ok
}

// ChainID returns the chain id of an EVM network given in CAIP-2 form (eip155:<id>) or as a
// known x402 v1 name ("base").
func ChainID(network string) (uint64, error) {
	n, err := wire.NormalizeNetwork(network)
	if err != nil {
		return 0, err
	}
	ref, ok := strings.CutPrefix(n, "eip155:")
	if !ok {
		return 0, errors.New("is not an EVM (eip155) network")
	}
	id, err := strconv.ParseUint(ref, 10, 64)
	if err != nil || ref[0] == '0' || len(ref) > 19 { // no leading zero, no zero, at most 19 digits
		return 0, errors.New("has an invalid EVM chain id")
	}
	return id, nil
}
