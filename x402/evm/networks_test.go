package evm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentapis/sdk/x402/evm"
)

func TestChainID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]uint64{"eip155:8453": 8453, "base": 8453, "base-sepolia": 84532, "eip155:1": 1} {
		got, err := evm.ChainID(in)
		assert.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"eip155:0", "eip155:01", "eip155:-1", "eip155:18446744073709551616", "solana:x", "eip155:", "solana"} {
		_, err := evm.ChainID(in)
		assert.Error(t, err, in)
	}
}

func TestCanonicalAddressIsLowerCaseHex(t *testing.T) {
	t.Parallel()
	got, err := evm.CanonicalAddress("0x209693Bc6afc0C5328bA36FaF03C514EF312287C")
	assert.NoError(t, err)
	assert.Equal(t, "0x209693bc6afc0c5328ba36faf03c514ef312287c", got)
	for _, in := range []string{"", "0x12", "209693Bc6afc0C5328bA36FaF03C514EF312287C", "0xZZ9693Bc6afc0C5328bA36FaF03C514EF312287C",
		"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"} {
		_, err := evm.CanonicalAddress(in)
		assert.Error(t, err, in)
	}
}
