package solanafake_test

import (
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/stretchr/testify/require"
)

// FuzzSendTransaction sends and simulates mutated wire transactions: whatever arrives, the
// node answers (a result or a JSON-RPC error), and no token is created or destroyed.
func FuzzSendTransaction(f *testing.F) {
	fx := start(f)
	facilitator, payer := fx.wallet(1_000_000_000_000), fx.wallet(0)
	seller := solana.NewWallet().PublicKey()
	fx.cluster.FundToken(usdc, payer.PublicKey(), 50_000_000)
	fx.cluster.FundToken(dollar, payer.PublicKey(), 50_000_000)
	fx.cluster.FundToken(usdc, seller, 0)
	const supply = 50_000_000

	seed := func(tx *solana.Transaction) {
		wire, err := tx.MarshalBinary()
		require.NoError(f, err)
		f.Add(wire, false)
		f.Add(wire, true)
	}
	seed(x402Payment(f, fx, facilitator.PublicKey(), payer, seller, usdc, 5_000_000))
	signed := x402Payment(f, fx, facilitator.PublicKey(), payer, seller, usdc, 5_000_000)
	sign(f, signed, facilitator)
	seed(signed)
	seed(fx.build(f, facilitator.PublicKey(), []solana.PrivateKey{facilitator, payer},
		createATA(facilitator.PublicKey(), seller, dollar, solana.Token2022ProgramID, true), pay(payer.PublicKey(), seller, dollar, 1)))

	f.Fuzz(func(t *testing.T, wire []byte, skipPreflight bool) {
		if _, err := fx.node.SendRawTransactionWithOpts(t.Context(), wire, rpc.TransactionOpts{SkipPreflight: skipPreflight}); err != nil {
			rpcError(t, err)
		}
		if _, err := fx.node.SimulateRawTransactionWithOpts(t.Context(), wire, nil); err != nil {
			rpcError(t, err)
		}
		for _, mint := range []solana.PublicKey{usdc, dollar} {
			var m token.Mint
			require.NoError(t, fx.node.GetAccountDataInto(t.Context(), mint, &m))
			require.Equal(t, uint64(supply), m.Supply)
		}
	})
}
