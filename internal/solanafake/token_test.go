package solanafake_test

import (
	"math/big"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/solanafake"
)

func TestTransferCheckedMovesTokensOfEitherProgram(t *testing.T) {
	t.Parallel()
	for _, mint := range []solana.PublicKey{usdc, dollar} {
		t.Run(programOf(mint).String(), func(t *testing.T) {
			t.Parallel()
			f := start(t)
			payer, seller := f.wallet(1_000_000), solana.NewWallet().PublicKey()
			from := f.cluster.FundToken(mint, payer.PublicKey(), 10_000_000)
			to := f.cluster.FundToken(mint, seller, 0)
			assert.Equal(t, ata(payer.PublicKey(), mint), from, "the account derived with the mint's program")

			sig := f.submit(t, f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, pay(payer.PublicKey(), seller, mint, 2_500_000)))
			assert.Equal(t, uint64(7_500_000), f.cluster.TokenBalance(mint, payer.PublicKey()))
			assert.Equal(t, uint64(2_500_000), f.cluster.TokenBalance(mint, seller))
			assert.Equal(t, []solanafake.Transfer{{Signature: sig, From: from, To: to, Owner: payer.PublicKey(), Mint: mint, Amount: big.NewInt(2_500_000)}},
				f.cluster.Transfers())
			assert.Equal(t, uint64(1_000_000-5_000), f.cluster.SOLBalance(payer.PublicKey()), "one signature's fee")
		})
	}
}

func TestTheTwoTokenProgramsDeriveDifferentAccounts(t *testing.T) {
	t.Parallel()
	wallet := solana.NewWallet().PublicKey()
	classic, _, err := solana.FindAssociatedTokenAddress(wallet, dollar)
	require.NoError(t, err)
	assert.Equal(t, classic, solanafake.AssociatedTokenAddress(wallet, solana.TokenProgramID, dollar), "solana-go derives with SPL Token")
	assert.NotEqual(t, classic, solanafake.AssociatedTokenAddress(wallet, solana.Token2022ProgramID, dollar))

	f := start(t)
	assert.Equal(t, solanafake.AssociatedTokenAddress(wallet, solana.Token2022ProgramID, dollar), f.cluster.AssociatedAccount(wallet, dollar))
	unknown := solana.NewWallet().PublicKey()
	assert.Equal(t, solanafake.AssociatedTokenAddress(wallet, solana.TokenProgramID, unknown), f.cluster.AssociatedAccount(wallet, unknown),
		"SPL Token for a mint the cluster does not have")
}

func TestTransferCheckedRefusals(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer, seller, stranger := f.wallet(100_000_000), solana.NewWallet().PublicKey(), f.wallet(0)
	f.cluster.FundToken(usdc, payer.PublicKey(), 5_000_000)
	f.cluster.FundToken(usdc, seller, 0)
	f.cluster.FundToken(nineDec, seller, 0)
	f.cluster.FundToken(dollar, payer.PublicKey(), 5_000_000)
	f.cluster.FundToken(dollar, seller, 0)
	f.cluster.FundToken(usdc, stranger.PublicKey(), 5_000_000)
	src, dst := ata(payer.PublicKey(), usdc), ata(seller, usdc)

	readonlySource := transferChecked(solana.TokenProgramID, src, usdc, dst, payer.PublicKey(), 1, 6)
	readonlySource.Accounts()[0].IsWritable = false
	unsigned := transferChecked(solana.TokenProgramID, ata(stranger.PublicKey(), usdc), usdc, dst, stranger.PublicKey(), 1, 6)
	unsigned.Accounts()[3].IsSigner = false
	for name, tc := range map[string]struct {
		ix   solana.Instruction
		want string // the transaction error's JSON
	}{
		"wrong decimals":           {transferChecked(solana.TokenProgramID, src, usdc, dst, payer.PublicKey(), 1, 9), `{"InstructionError":[0,{"Custom":18}]}`},
		"mint named is not theirs": {transferChecked(solana.TokenProgramID, src, nineDec, dst, payer.PublicKey(), 1, 9), `{"InstructionError":[0,{"Custom":3}]}`},
		"accounts of two mints": {transferChecked(solana.TokenProgramID, src, usdc, ata(seller, nineDec), payer.PublicKey(), 1, 6),
			`{"InstructionError":[0,{"Custom":3}]}`},
		"short balance":       {pay(payer.PublicKey(), seller, usdc, 5_000_001), `{"InstructionError":[0,{"Custom":1}]}`},
		"missing destination": {pay(payer.PublicKey(), solana.NewWallet().PublicKey(), usdc, 1), `{"InstructionError":[0,"InvalidAccountData"]}`},
		"not the owner":       {transferChecked(solana.TokenProgramID, ata(stranger.PublicKey(), usdc), usdc, dst, payer.PublicKey(), 1, 6), `{"InstructionError":[0,{"Custom":4}]}`},
		"unsigned authority":  {unsigned, `{"InstructionError":[0,"MissingRequiredSignature"]}`},
		"read-only source":    {readonlySource, `{"InstructionError":[0,"ReadonlyDataModified"]}`},
		"Token-2022 accounts by SPL Token": {transferChecked(solana.TokenProgramID, ata(payer.PublicKey(), dollar), dollar, ata(seller, dollar), payer.PublicKey(), 1, 6),
			`{"InstructionError":[0,"IncorrectProgramId"]}`},
		"SPL Token accounts by Token-2022": {transferChecked(solana.Token2022ProgramID, src, usdc, dst, payer.PublicKey(), 1, 6),
			`{"InstructionError":[0,"IncorrectProgramId"]}`},
		"a plain Transfer": {token.NewTransferInstruction(1, src, dst, payer.PublicKey(), nil).Build(), `{"InstructionError":[0,"InvalidInstructionData"]}`},
		"too few accounts": {solana.NewInstruction(solana.TokenProgramID, solana.AccountMetaSlice{solana.Meta(src).WRITE()}, []byte{12, 1, 0, 0, 0, 0, 0, 0, 0, 6}),
			`{"InstructionError":[0,"NotEnoughAccountKeys"]}`},
	} {
		e := f.refusal(t, f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, tc.ix))
		assert.Equal(t, solanafake.CodePreflightFailure, e.Code, name)
		assert.JSONEq(t, tc.want, errJSON(t, e), name)
	}
	assert.Equal(t, uint64(5_000_000), f.cluster.TokenBalance(usdc, payer.PublicKey()), "nothing moved")
	assert.Empty(t, f.cluster.Transfers())
	assert.Equal(t, uint64(100_000_000), f.cluster.SOLBalance(payer.PublicKey()), "a refused preflight costs nothing")
}

func TestAShortBalanceIsLoggedAsTheProgramDoes(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(1_000_000)
	f.cluster.FundToken(dollar, payer.PublicKey(), 1)
	seller := solana.NewWallet().PublicKey()
	f.cluster.FundToken(dollar, seller, 0)

	e := f.refusal(t, f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, pay(payer.PublicKey(), seller, dollar, 2)))
	assert.Equal(t, "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1", e.Message)
	program := solana.Token2022ProgramID.String()
	assert.Equal(t, []string{
		"Program " + program + " invoke [1]",
		"Program log: Instruction: TransferChecked",
		"Program log: Error: insufficient funds",
		"Program " + program + " failed: custom program error: 0x1",
	}, e.Logs)
	assert.Equal(t, uint64(6_200), e.UnitsConsumed)
}

func TestATransferToItselfKeepsTheBalance(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(1_000_000)
	f.cluster.FundToken(usdc, payer.PublicKey(), 3)
	f.submit(t, f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, pay(payer.PublicKey(), payer.PublicKey(), usdc, 3)))
	assert.Equal(t, uint64(3), f.cluster.TokenBalance(usdc, payer.PublicKey()))
}

func TestAFailingInstructionRollsBackTheWholeTransaction(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	seller := solana.NewWallet().PublicKey()
	f.cluster.FundToken(usdc, payer.PublicKey(), 4)
	tx := f.build(t, payer.PublicKey(), []solana.PrivateKey{payer},
		createATA(payer.PublicKey(), seller, usdc, solana.TokenProgramID, true),
		pay(payer.PublicKey(), seller, usdc, 3),
		pay(payer.PublicKey(), seller, usdc, 3),
		memo("x", payer.PublicKey()))
	e := f.refusal(t, tx)
	assert.JSONEq(t, `{"InstructionError":[2,{"Custom":1}]}`, errJSON(t, e))
	_, exists := f.cluster.TokenAccount(ata(seller, usdc))
	assert.False(t, exists)
	assert.Equal(t, uint64(4), f.cluster.TokenBalance(usdc, payer.PublicKey()))

	sig, err := f.cluster.Submit(tx, solanafake.SendOptions{SkipPreflight: true})
	require.NoError(t, err)
	landed, ok := f.cluster.Landed(sig)
	require.True(t, ok, "without preflight it lands, failed")
	assert.JSONEq(t, `{"InstructionError":[2,{"Custom":1}]}`, string(landed.Err.Value))
	assert.Equal(t, "Error processing Instruction 2: custom program error: 0x1", landed.Err.Text)
	assert.Empty(t, landed.Transfers)
	assert.Empty(t, landed.Memos)
	assert.Equal(t, uint64(10_000_000-5_000), f.cluster.SOLBalance(payer.PublicKey()), "only the fee, not the rent")
	assert.Empty(t, f.cluster.Memos())
}
