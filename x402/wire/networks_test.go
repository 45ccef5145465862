package wire_test

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentapis/sdk/x402/wire"
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
		assert.Equal(t, grammar.MatchString(s), wire.IsCAIP2(s), s)
	}
}

func TestNormalizeNetworkTranslatesV1NamesInOnePlace(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"eip155:8453": "eip155:8453", "base": "eip155:8453", "base-sepolia": "eip155:84532", "polygon": "eip155:137",
		"solana": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", "solana-devnet": "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
		"solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp": "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
	} {
		got, err := wire.NormalizeNetwork(in)
		assert.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "Base", "mainnet", "eip155", "solana-mainnet"} {
		_, err := wire.NormalizeNetwork(in)
		assert.Error(t, err, in)
	}
	assert.Equal(t, "solana", wire.Namespace("solana"))
	assert.Equal(t, "eip155", wire.Namespace("base"))
	assert.Equal(t, "", wire.Namespace("nonsense"))
}
