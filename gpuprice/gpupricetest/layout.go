package gpupricetest

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// The sizes of the SPL Token program's accounts.
const (
	tokenAccountSize = 165
	mintSize         = 82
)

// tokenAccountData returns acc in the SPL Token account layout: mint, owner, amount, no
// delegate, initialized, not native, nothing delegated, no close authority.
func tokenAccountData(acc tokenAccount) []byte {
	b := make([]byte, tokenAccountSize)
	copy(b[0:32], acc.mint[:])
	copy(b[32:64], acc.owner[:])
	binary.LittleEndian.PutUint64(b[64:72], acc.amount)
	b[108] = 1 // AccountState::Initialized
	return b
}

// mintData returns a mint in the SPL Token mint layout, without mint or freeze authority.
func mintData(supply uint64, decimals uint8) []byte {
	b := make([]byte, mintSize)
	binary.LittleEndian.PutUint64(b[36:44], supply)
	b[44] = decimals
	b[45] = 1 // is_initialized
	return b
}

// supply returns the tokens of mint held in all accounts.
func (c *chain) supply(mint solana.PublicKey) uint64 {
	var total uint64
	for _, acc := range c.tokens {
		if acc.mint == mint {
			total += acc.amount
		}
	}
	return total
}
