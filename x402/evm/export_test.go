package evm

import "github.com/ethereum/go-ethereum/common"

// DigestFor exposes the EIP-712 digest of an authorization under an entry's domain to the
// external tests and benchmarks.
var DigestFor = digestFor

// DomainSeparator exposes the EIP-712 domain separator computation.
func DomainSeparator(name, version string, chainID uint64, contract string) common.Hash {
	return domainSeparator(name, version, chainID, common.HexToAddress(contract))
}
