package gpupricetest_test

import (
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/x402/usdc"
)

// FuzzSendTransaction sends mutated wire transactions to the node: whatever arrives, the
// node answers (a signature or a JSON-RPC error), and no USDC is created or destroyed.
func FuzzSendTransaction(f *testing.F) {
	srv := gpupricetest.NewServer()
	f.Cleanup(srv.Close)
	c := rpc.New(srv.RPCURL)
	payer := solana.NewWallet().PrivateKey
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(50))
	srv.FundSOL(payer.PublicKey(), 1_000_000_000) // fees of 200,000 transactions
	const supply = 50_000_000

	seed := func(ixs ...solana.Instruction) {
		bh, err := c.GetLatestBlockhash(f.Context(), "")
		require.NoError(f, err)
		tx, err := solana.NewTransaction(ixs, bh.Value.Blockhash, solana.TransactionPayer(payer.PublicKey()))
		require.NoError(f, err)
		_, err = tx.Sign(func(solana.PublicKey) *solana.PrivateKey { return &payer })
		require.NoError(f, err)
		wire, err := tx.MarshalBinary()
		require.NoError(f, err)
		f.Add(wire, false)
		f.Add(wire, true)
	}
	from, _, _ := solana.FindAssociatedTokenAddress(payer.PublicKey(), gpupricetest.USDCMint)
	seed(token.NewTransferCheckedInstruction(5_000_000, 6, from, gpupricetest.USDCMint, srv.TreasuryATA(), payer.PublicKey(), nil).Build(),
		solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{solana.Meta(payer.PublicKey()).SIGNER()}, []byte("API-PRO")))
	seed(solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID, solana.AccountMetaSlice{
		solana.Meta(payer.PublicKey()).WRITE().SIGNER(), solana.Meta(srv.TreasuryATA()).WRITE(), solana.Meta(srv.Treasury),
		solana.Meta(gpupricetest.USDCMint), solana.Meta(solana.SystemProgramID), solana.Meta(solana.TokenProgramID),
	}, []byte{1}))

	f.Fuzz(func(t *testing.T, wire []byte, skipPreflight bool) {
		_, err := c.SendRawTransactionWithOpts(t.Context(), wire, rpc.TransactionOpts{SkipPreflight: skipPreflight})
		if err != nil {
			rpcError(t, err)
		}
		var mint token.Mint
		require.NoError(t, c.GetAccountDataInto(t.Context(), gpupricetest.USDCMint, &mint))
		require.Equal(t, uint64(supply), mint.Supply)
	})
}
