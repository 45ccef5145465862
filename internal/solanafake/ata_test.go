package solanafake_test

import (
	"testing"

	"github.com/gagliardetto/solana-go"
	associatedtokenaccount "github.com/gagliardetto/solana-go/programs/associated-token-account"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/solanafake"
)

func TestCreatingAnAssociatedAccountChargesItsProgramsRent(t *testing.T) {
	t.Parallel()
	for mint, rent := range map[solana.PublicKey]uint64{usdc: 2_039_280, dollar: 2_074_080} {
		t.Run(programOf(mint).String(), func(t *testing.T) {
			t.Parallel()
			f := start(t)
			payer := f.wallet(10_000_000)
			seller := solana.NewWallet().PublicKey()
			f.cluster.FundToken(mint, payer.PublicKey(), 5)

			f.submit(t, f.build(t, payer.PublicKey(), []solana.PrivateKey{payer},
				createATA(payer.PublicKey(), seller, mint, programOf(mint), false), pay(payer.PublicKey(), seller, mint, 5)))
			acc, ok := f.cluster.TokenAccount(ata(seller, mint))
			require.True(t, ok)
			assert.Equal(t, solanafake.TokenAccount{Mint: mint, Owner: seller, Amount: 5}, acc)
			assert.Equal(t, uint64(10_000_000-5_000)-rent, f.cluster.SOLBalance(payer.PublicKey()))
			assert.Equal(t, rent, f.cluster.SOLBalance(ata(seller, mint)), "the account holds its rent")
			assert.Equal(t, solanafake.RentExempt(map[solana.PublicKey]uint64{usdc: 165, dollar: 170}[mint]), rent)

			e := f.refusal(t, f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, createATA(payer.PublicKey(), seller, mint, programOf(mint), false)))
			assert.JSONEq(t, `{"InstructionError":[0,"IllegalOwner"]}`, errJSON(t, e), "Create fails on an existing account")
			f.submit(t, f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, createATA(payer.PublicKey(), seller, mint, programOf(mint), true)))
			assert.Equal(t, uint64(10_000_000-2*5_000)-rent, f.cluster.SOLBalance(payer.PublicKey()), "CreateIdempotent does not, and costs no rent")
		})
	}
}

func TestSolanaGosCreateBuilderMakesAnSPLTokenAccount(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	seller := solana.NewWallet().PublicKey()
	f.submit(t, f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, associatedtokenaccount.NewCreateInstruction(payer.PublicKey(), seller, usdc).Build()))
	_, ok := f.cluster.TokenAccount(ata(seller, usdc))
	assert.True(t, ok)
}

func TestAssociatedAccountRefusals(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(100_000_000)
	seller := solana.NewWallet().PublicKey()
	payerKey := payer.PublicKey()

	wrongSeed := createATA(payerKey, seller, usdc, solana.TokenProgramID, true)
	wrongSeed.Accounts()[1].PublicKey = solana.NewWallet().PublicKey()
	unsignedPayer := createATA(f.wallet(100_000_000).PublicKey(), seller, usdc, solana.TokenProgramID, true)
	unsignedPayer.Accounts()[0].IsSigner = false
	for name, tc := range map[string]struct {
		ix   solana.Instruction
		want string
	}{
		"Token-2022 mint under SPL Token": {createATA(payerKey, seller, dollar, solana.TokenProgramID, true), `{"InstructionError":[0,"IncorrectProgramId"]}`},
		"SPL Token mint under Token-2022": {createATA(payerKey, seller, usdc, solana.Token2022ProgramID, true), `{"InstructionError":[0,"IncorrectProgramId"]}`},
		"not a token program":             {createATA(payerKey, seller, usdc, solana.MemoProgramID, true), `{"InstructionError":[0,"IncorrectProgramId"]}`},
		"another address":                 {wrongSeed, `{"InstructionError":[0,"InvalidSeeds"]}`},
		"unknown mint":                    {createATA(payerKey, seller, solana.NewWallet().PublicKey(), solana.TokenProgramID, true), `{"InstructionError":[0,{"Custom":2}]}`},
		"bad data": {solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID, createATA(payerKey, seller, usdc, solana.TokenProgramID, false).Accounts(), []byte{2}),
			`{"InstructionError":[0,"InvalidInstructionData"]}`},
		"unsigned payer": {unsignedPayer, `{"InstructionError":[0,"MissingRequiredSignature"]}`},
		"too few accounts": {solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID, solana.AccountMetaSlice{solana.Meta(payerKey).WRITE().SIGNER()}, nil),
			`{"InstructionError":[0,"NotEnoughAccountKeys"]}`},
	} {
		e := f.refusal(t, f.build(t, payerKey, []solana.PrivateKey{payer}, tc.ix))
		assert.JSONEq(t, tc.want, errJSON(t, e), name)
	}
	_, exists := f.cluster.TokenAccount(ata(seller, usdc))
	assert.False(t, exists)
}

func TestAPayerShortOfTheRentFailsInTheSystemProgram(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(2_074_079 + 5_000)
	seller := solana.NewWallet().PublicKey()
	e := f.refusal(t, f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, createATA(payer.PublicKey(), seller, dollar, solana.Token2022ProgramID, true)))
	assert.Equal(t, "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1", e.Message)
	assert.Contains(t, e.Logs, "Transfer: insufficient lamports 2074079, need 2074080")
	assert.Contains(t, e.Logs, "Program 11111111111111111111111111111111 failed: custom program error: 0x1")
}
