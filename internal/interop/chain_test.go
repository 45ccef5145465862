package interop_test

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/evm"
)

// usdcABI is the part of FiatTokenV2_2's interface the tests read.
const usdcABI = `[
	{"type":"function","name":"balanceOf","stateMutability":"view",
	 "inputs":[{"name":"account","type":"address"}],"outputs":[{"name":"","type":"uint256"}]},
	{"type":"function","name":"authorizationState","stateMutability":"view",
	 "inputs":[{"name":"authorizer","type":"address"},{"name":"nonce","type":"bytes32"}],
	 "outputs":[{"name":"","type":"bool"}]},
	{"type":"function","name":"DOMAIN_SEPARATOR","stateMutability":"view",
	 "inputs":[],"outputs":[{"name":"","type":"bytes32"}]},
	{"type":"event","name":"AuthorizationUsed","anonymous":false,
	 "inputs":[{"name":"authorizer","type":"address","indexed":true},{"name":"nonce","type":"bytes32","indexed":true}]},
	{"type":"event","name":"Transfer","anonymous":false,
	 "inputs":[{"name":"from","type":"address","indexed":true},{"name":"to","type":"address","indexed":true},
	           {"name":"value","type":"uint256","indexed":false}]}
]`

// usdc is the parsed usdcABI.
var usdc = func() abi.ABI {
	parsed, err := abi.JSON(strings.NewReader(usdcABI))
	if err != nil {
		panic(err)
	}
	return parsed
}()

// usdcChain reads Circle's USDC contract at Base's USDC address on a node,
// through go-ethereum's ethclient: the chain's own account of what settled,
// independent of what any server says.
type usdcChain struct {
	client *ethclient.Client
	token  common.Address
}

// dialUSDC connects to the node at rpcURL; the connection closes when the test
// ends.
func dialUSDC(ctx context.Context, t testing.TB, rpcURL string) *usdcChain {
	t.Helper()
	client, err := ethclient.DialContext(ctx, rpcURL)
	require.NoError(t, err)
	t.Cleanup(client.Close)
	return &usdcChain{client: client, token: common.HexToAddress(evm.USDCBase)}
}

// call runs a view function of the token and returns its single result.
func (c *usdcChain) call(ctx context.Context, t testing.TB, method string, args ...any) any {
	t.Helper()
	data, err := usdc.Pack(method, args...)
	require.NoError(t, err)
	out, err := c.client.CallContract(ctx, ethereum.CallMsg{To: &c.token, Data: data}, nil)
	require.NoError(t, err, "calling %s", method)
	values, err := usdc.Unpack(method, out)
	require.NoError(t, err, "decoding %s", method)
	require.Len(t, values, 1)
	return values[0]
}

// balanceOf returns the USDC balance of address, in atomic units.
func (c *usdcChain) balanceOf(ctx context.Context, t testing.TB, address string) *big.Int {
	t.Helper()
	return c.call(ctx, t, "balanceOf", common.HexToAddress(address)).(*big.Int)
}

// authorizationState reports whether the EIP-3009 authorization of authorizer
// with nonce was used (or cancelled): true once it settled.
func (c *usdcChain) authorizationState(ctx context.Context, t testing.TB, authorizer string, nonce [32]byte) bool {
	t.Helper()
	return c.call(ctx, t, "authorizationState", common.HexToAddress(authorizer), nonce).(bool)
}

// domainSeparator returns the token's EIP-712 domain separator.
func (c *usdcChain) domainSeparator(ctx context.Context, t testing.TB) [32]byte {
	t.Helper()
	return c.call(ctx, t, "DOMAIN_SEPARATOR").([32]byte)
}

// authorizationUsed is one AuthorizationUsed event of the token.
type authorizationUsed struct {
	Authorizer common.Address
	Nonce      [32]byte
	Tx         common.Hash
}

// transfer is one Transfer event of the token.
type transfer struct {
	From, To common.Address
	Value    *big.Int
}

// authorizationsUsed returns every AuthorizationUsed event the token emitted, in
// chain order: one per settled EIP-3009 authorization.
func (c *usdcChain) authorizationsUsed(ctx context.Context, t testing.TB) []authorizationUsed {
	t.Helper()
	logs, err := c.client.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: big.NewInt(0),
		Addresses: []common.Address{c.token},
		Topics:    [][]common.Hash{{usdc.Events["AuthorizationUsed"].ID}},
	})
	require.NoError(t, err)
	out := make([]authorizationUsed, 0, len(logs))
	for _, l := range logs {
		used, ok := c.decodeAuthorizationUsed(l)
		require.True(t, ok, "log %d of %s", l.Index, l.TxHash)
		out = append(out, used)
	}
	return out
}

// settlement is what a transaction did to the token: its AuthorizationUsed and
// Transfer events.
type settlement struct {
	Succeeded bool
	Used      []authorizationUsed
	Transfers []transfer
}

// settlement reads the receipt of the transaction tx (0x hex) and the token's
// events in it. The transaction must exist and be mined.
func (c *usdcChain) settlement(ctx context.Context, t testing.TB, tx string) settlement {
	t.Helper()
	require.Regexp(t, "^0x[0-9a-fA-F]{64}$", tx, "not a transaction hash")
	receipt, err := c.client.TransactionReceipt(ctx, common.HexToHash(tx))
	require.NoError(t, err, "the receipt of %s", tx)
	s := settlement{Succeeded: receipt.Status == types.ReceiptStatusSuccessful}
	for _, l := range receipt.Logs {
		if used, ok := c.decodeAuthorizationUsed(*l); ok {
			s.Used = append(s.Used, used)
		}
		if tr, ok := c.decodeTransfer(t, *l); ok {
			s.Transfers = append(s.Transfers, tr)
		}
	}
	return s
}

func (c *usdcChain) decodeAuthorizationUsed(l types.Log) (authorizationUsed, bool) {
	if l.Address != c.token || len(l.Topics) != 3 || l.Topics[0] != usdc.Events["AuthorizationUsed"].ID {
		return authorizationUsed{}, false
	}
	return authorizationUsed{
		Authorizer: common.BytesToAddress(l.Topics[1].Bytes()),
		Nonce:      l.Topics[2],
		Tx:         l.TxHash,
	}, true
}

func (c *usdcChain) decodeTransfer(t testing.TB, l types.Log) (transfer, bool) {
	t.Helper()
	if l.Address != c.token || len(l.Topics) != 3 || l.Topics[0] != usdc.Events["Transfer"].ID {
		return transfer{}, false
	}
	values, err := usdc.Unpack("Transfer", l.Data)
	require.NoError(t, err)
	return transfer{
		From:  common.BytesToAddress(l.Topics[1].Bytes()),
		To:    common.BytesToAddress(l.Topics[2].Bytes()),
		Value: values[0].(*big.Int),
	}, true
}

// chainState is what a test watches for change: balances and the settled
// authorizations.
type chainState struct {
	Balances map[string]string
	Used     []authorizationUsed
}

// snapshot reads the balances of addresses and every settled authorization.
func (c *usdcChain) snapshot(ctx context.Context, t testing.TB, addresses ...string) chainState {
	t.Helper()
	s := chainState{Balances: make(map[string]string, len(addresses)), Used: c.authorizationsUsed(ctx, t)}
	for _, a := range addresses {
		s.Balances[a] = c.balanceOf(ctx, t, a).String()
	}
	return s
}

// assertUnchanged checks that nothing moved on chain since before was taken: the
// same balances, no new settled authorization.
func (c *usdcChain) assertUnchanged(ctx context.Context, t testing.TB, before chainState) {
	t.Helper()
	addresses := make([]string, 0, len(before.Balances))
	for a := range before.Balances {
		addresses = append(addresses, a)
	}
	after := c.snapshot(ctx, t, addresses...)
	assert.Equal(t, before.Balances, after.Balances, "balances moved")
	assert.Equal(t, before.Used, after.Used, "an authorization settled")
}

// nonceOf decodes an EIP-3009 nonce in 0x hex.
func nonceOf(t testing.TB, hexNonce string) [32]byte {
	t.Helper()
	b := common.FromHex(hexNonce)
	require.Len(t, b, 32, "nonce %q", hexNonce)
	return [32]byte(b)
}
