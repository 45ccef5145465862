package wire

import (
	"errors"
	"strings"
)

// v1Networks maps the legacy network names of x402 v1 to their CAIP-2 form: the only place
// the SDK translates a network name.
var v1Networks = map[string]string{
	"ethereum":           "eip155:1",
	"sepolia":            "eip155:11155111",
	"abstract":           "eip155:2741",
	"abstract-testnet":   "eip155:11124",
	"base":               "eip155:8453",
	"base-sepolia":       "eip155:84532",
	"avalanche":          "eip155:43114",
	"avalanche-fuji":     "eip155:43113",
	"iotex":              "eip155:4689",
	"sei":                "eip155:1329",
	"sei-testnet":        "eip155:1328",
	"polygon":            "eip155:137",
	"polygon-amoy":       "eip155:80002",
	"peaq":               "eip155:3338",
	"story":              "eip155:1514",
	"educhain":           "eip155:41923",
	"skale-base-sepolia": "eip155:324705682",
	"megaeth":            "eip155:4326",
	"monad":              "eip155:143",
	"stable":             "eip155:988",
	"stable-testnet":     "eip155:2201",
	"solana":             "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
	"solana-devnet":      "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
	"solana-testnet":     "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z",
}

// IsCAIP2 reports whether s is a CAIP-2 chain id such as eip155:8453: a namespace of 3 to 8
// characters [-a-z0-9], a colon, and a reference of 1 to 32 characters [-_a-zA-Z0-9].
func IsCAIP2(s string) bool {
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

// errNotNetwork is the reason given for a network that is neither CAIP-2 nor a v1 name.
var errNotNetwork = errors.New("is neither a CAIP-2 network id (eip155:8453) nor a known x402 v1 name (base)")

// NormalizeNetwork returns the CAIP-2 form of a network: a CAIP-2 id as it is, or the id of a
// known x402 v1 name ("base" is eip155:8453, "solana" is Solana mainnet). Every part of the
// SDK that compares networks compares what this returns.
func NormalizeNetwork(network string) (string, error) {
	if IsCAIP2(network) {
		return network, nil
	}
	if n, ok := v1Networks[network]; ok {
		return n, nil
	}
	return "", errNotNetwork
}

// Namespace returns the CAIP-2 namespace of a network ("eip155", "solana"), translating a v1
// name first; "" when the network is neither.
func Namespace(network string) string {
	n, err := NormalizeNetwork(network)
	if err != nil {
		return ""
	}
	ns, _, _ := strings.Cut(n, ":")
	return ns
}
