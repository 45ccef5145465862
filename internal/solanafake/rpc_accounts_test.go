package solanafake_test

import (
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/testkit"
)

func TestGetAccountInfoOfAMintNamesItsProgramAndDecimals(t *testing.T) {
	t.Parallel()
	f := start(t)
	f.cluster.FundToken(dollar, solana.NewWallet().PublicKey(), 1_250_000)
	f.cluster.FundToken(dollar, solana.NewWallet().PublicKey(), 750_000)
	for mint, want := range map[solana.PublicKey]struct {
		program  solana.PublicKey
		decimals uint8
		supply   uint64
	}{usdc: {solana.TokenProgramID, 6, 0}, dollar: {solana.Token2022ProgramID, 6, 2_000_000}, nineDec: {solana.TokenProgramID, 9, 0}} {
		info, err := f.node.GetAccountInfoWithOpts(t.Context(), mint, &rpc.GetAccountInfoOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed})
		require.NoError(t, err)
		assert.Equal(t, want.program, info.Value.Owner, "the mint's program owns it")
		assert.Equal(t, uint64(1_461_600), info.Value.Lamports)
		data := info.Value.Data.GetBinary()
		require.Len(t, data, 82)
		assert.Equal(t, []byte{0, 0, 0, 0}, data[0:4], "no mint authority")
		assert.Equal(t, want.supply, binary.LittleEndian.Uint64(data[36:44]))
		assert.Equal(t, want.decimals, data[44])
		assert.Equal(t, byte(1), data[45], "initialized")
		assert.Equal(t, []byte{0, 0, 0, 0}, data[46:50], "no freeze authority")
		var m token.Mint
		require.NoError(t, f.node.GetAccountDataInto(t.Context(), mint, &m))
		assert.Equal(t, want.decimals, m.Decimals)
		assert.True(t, m.IsInitialized)
	}

	parsed, err := f.node.GetAccountInfoWithOpts(t.Context(), dollar, &rpc.GetAccountInfoOpts{Encoding: solana.EncodingJSONParsed})
	require.NoError(t, err)
	assert.JSONEq(t, `{"program":"spl-token-2022","space":82,"parsed":{"type":"mint","info":{"decimals":6,"freezeAuthority":null,
		"isInitialized":true,"mintAuthority":null,"supply":"2000000"}}}`, string(parsed.Value.Data.GetRawJSON()))
}

func TestGetAccountInfoOfTokenAccountsOfEitherProgram(t *testing.T) {
	t.Parallel()
	f := start(t)
	wallet := solana.NewWallet().PublicKey()
	for mint, size := range map[solana.PublicKey]int{usdc: 165, dollar: 170} {
		account := f.cluster.FundToken(mint, wallet, 7_250_000)
		info, err := f.node.GetAccountInfo(t.Context(), account)
		require.NoError(t, err)
		assert.Equal(t, programOf(mint), info.Value.Owner)
		assert.EqualValues(t, size, info.Value.Space)
		assert.Equal(t, f.cluster.SOLBalance(account), info.Value.Lamports)
		var acc token.Account
		require.NoError(t, f.node.GetAccountDataInto(t.Context(), account, &acc))
		assert.Equal(t, mint, acc.Mint)
		assert.Equal(t, wallet, acc.Owner)
		assert.Equal(t, uint64(7_250_000), acc.Amount)
		assert.Equal(t, token.Initialized, acc.State)

		bal, err := f.node.GetTokenAccountBalance(t.Context(), account, rpc.CommitmentConfirmed)
		require.NoError(t, err)
		assert.Equal(t, "7250000", bal.Value.Amount)
		assert.Equal(t, "7.25", bal.Value.UiAmountString)
	}
	t22 := f.cluster.AssociatedAccount(wallet, dollar)
	info, err := f.node.GetAccountInfo(t.Context(), t22)
	require.NoError(t, err)
	assert.Equal(t, []byte{2, 7, 0, 0, 0}, info.Value.Data.GetBinary()[165:], "the account type and the ImmutableOwner extension")
	sliced, err := f.node.GetAccountInfoWithOpts(t.Context(), t22, &rpc.GetAccountInfoOpts{DataSlice: &rpc.DataSlice{Offset: testkit.Ptr(uint64(64)), Length: testkit.Ptr(uint64(8))}})
	require.NoError(t, err)
	assert.Equal(t, binary.LittleEndian.AppendUint64(nil, 7_250_000), sliced.Value.Data.GetBinary())

	parsed, err := f.node.GetAccountInfoWithOpts(t.Context(), t22, &rpc.GetAccountInfoOpts{Encoding: solana.EncodingJSONParsed})
	require.NoError(t, err)
	var view struct {
		Program string `json:"program"`
		Parsed  struct {
			Info struct {
				Extensions []map[string]string `json:"extensions"`
			} `json:"info"`
		} `json:"parsed"`
	}
	require.NoError(t, json.Unmarshal(parsed.Value.Data.GetRawJSON(), &view))
	assert.Equal(t, "spl-token-2022", view.Program)
	assert.Equal(t, []map[string]string{{"extension": "immutableOwner"}}, view.Parsed.Info.Extensions)
}

func TestGetAccountInfoOfWalletsAndMissingAccounts(t *testing.T) {
	t.Parallel()
	f := start(t)
	wallet := f.wallet(1_500_000).PublicKey()
	info, err := f.node.GetAccountInfo(t.Context(), wallet)
	require.NoError(t, err)
	assert.Equal(t, solana.SystemProgramID, info.Value.Owner)
	assert.Equal(t, uint64(1_500_000), info.Value.Lamports)
	_, err = f.node.GetAccountInfo(t.Context(), solana.NewWallet().PublicKey())
	assert.ErrorIs(t, err, rpc.ErrNotFound, "value null")

	_, err = f.node.GetTokenAccountBalance(t.Context(), wallet, "")
	assert.Equal(t, "Invalid param: not a Token account", rpcError(t, err).Message)
	_, err = f.node.GetTokenAccountBalance(t.Context(), solana.NewWallet().PublicKey(), "")
	assert.Equal(t, "Invalid param: could not find account", rpcError(t, err).Message)
	bal, err := f.node.GetBalance(t.Context(), wallet, rpc.CommitmentConfirmed)
	require.NoError(t, err)
	assert.Equal(t, uint64(1_500_000), bal.Value)
	rent, err := f.node.GetMinimumBalanceForRentExemption(t.Context(), 170, "")
	require.NoError(t, err)
	assert.Equal(t, uint64(2_074_080), rent)
}
