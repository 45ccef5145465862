package x402

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestIsCAIP2MatchesTheGrammar compares the hand-written check with the CAIP-2 grammar.
func TestIsCAIP2MatchesTheGrammar(t *testing.T) {
	t.Parallel()
	grammar := regexp.MustCompile(`^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$`)
	for _, s := range []string{
		"eip155:8453", "eip155:84532", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "cosmos:cosmoshub-4",
		"ab:1", "abcdefghi:1", "eip155:", ":1", "eip155", "EIP155:1", "eip155:1:2", "eip155:8453 ",
		"eip155:" + "123456789012345678901234567890123", "eip155:" + "12345678901234567890123456789012",
		"base", "", "eip_155:1", "eip155:a.b", "eip155:ü",
	} {
		assert.Equal(t, grammar.MatchString(s), isCAIP2(s), s)
	}
}

func TestEVMChainID(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]uint64{"eip155:8453": 8453, "base": 8453, "base-sepolia": 84532, "eip155:1": 1} {
		got, err := evmChainID(in)
		assert.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"eip155:0", "eip155:01", "eip155:-1", "eip155:18446744073709551616", "solana:x", "eip155:"} {
		_, err := evmChainID(in)
		assert.Error(t, err, in)
	}
}
