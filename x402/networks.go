package x402

import (
	"errors"
	"strconv"
	"strings"
)

// Networks and USDC contracts the payer knows without configuration.
const (
	// NetworkBase is Base mainnet (chain id 8453) in CAIP-2 form, the default network of a Payer.
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
	n, _ := normalizeNetwork(network) // "" when unknown, which knownUSDC does not hold
	asset, ok = knownUSDC[n]
	return asset, ok
}

// v1Networks maps the legacy network names of x402 v1 to their EVM chain ids.
var v1Networks = map[string]uint64{
	"ethereum":           1,
	"sepolia":            11155111,
	"abstract":           2741,
	"abstract-testnet":   11124,
	"base":               8453,
	"base-sepolia":       84532,
	"avalanche":          43114,
	"avalanche-fuji":     43113,
	"iotex":              4689,
	"sei":                1329,
	"sei-testnet":        1328,
	"polygon":            137,
	"polygon-amoy":       80002,
	"peaq":               3338,
	"story":              1514,
	"educhain":           41923,
	"skale-base-sepolia": 324705682,
	"megaeth":            4326,
	"monad":              143,
	"stable":             988,
	"stable-testnet":     2201,
}

// isCAIP2 reports whether s is a CAIP-2 chain id such as eip155:8453: a namespace of 3 to 8
// characters [-a-z0-9], a colon, and a reference of 1 to 32 characters [-_a-zA-Z0-9].
func isCAIP2(s string) bool {
	ns, ref, ok := strings.Cut(s, ":")
	if !ok || len(ns) < 3 || len(ns) > 8 || len(ref) < 1 || len(ref) > 32 {
		return false
	}
	for i := 0; i < len(ns); i++ {
		if c := ns[i]; !(c == '-' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	for i := 0; i < len(ref); i++ {
		if c := ref[i]; !(c == '-' || c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// normalizeNetwork returns the CAIP-2 form of a v2 network or of a known v1 legacy name.
func normalizeNetwork(network string) (string, error) {
	if isCAIP2(network) {
		return network, nil
	}
	if id, ok := v1Networks[network]; ok {
		return "eip155:" + strconv.FormatUint(id, 10), nil
	}
	return "", errors.New("is not a CAIP-2 network id")
}

// evmChainID returns the chain id of an EVM network given in CAIP-2 form (eip155:<id>) or as
// a known v1 legacy name.
func evmChainID(network string) (uint64, error) {
	if id, ok := v1Networks[network]; ok {
		return id, nil
	}
	ref, ok := strings.CutPrefix(network, "eip155:")
	if !ok {
		return 0, errors.New("is not an EVM (eip155) network")
	}
	id, err := strconv.ParseUint(ref, 10, 64)
	if err != nil || ref[0] == '0' || len(ref) > 19 { // no leading zero, no zero, at most 19 digits
		return 0, errors.New("has an invalid EVM chain id")
	}
	return id, nil
}
