package solanafake_test

import (
	"math/big"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/solanafake"
)

// x402Payment returns the transaction the reference x402 client builds for an "exact"
// payment of amount of mint to seller: a v0 message whose fee payer is the facilitator
// (left unsigned), a compute budget of 20,000 units at 1 micro-lamport, the TransferChecked
// signed by the payer, and a memo.
func x402Payment(t testing.TB, f *fixture, facilitator solana.PublicKey, payer solana.PrivateKey, seller, mint solana.PublicKey, amount uint64) *solana.Transaction {
	t.Helper()
	return f.buildV0(t, facilitator, []solana.PrivateKey{payer},
		computeUnitLimit(20_000), computeUnitPrice(1), pay(payer.PublicKey(), seller, mint, amount), memo("0123456789abcdef0123456789abcdef"))
}

func TestAnX402PaymentIsSimulatedUnsignedThenSettledByTheFacilitator(t *testing.T) {
	t.Parallel()
	for _, mint := range []solana.PublicKey{usdc, dollar} {
		t.Run(programOf(mint).String(), func(t *testing.T) {
			t.Parallel()
			f := start(t)
			facilitator, payer := f.wallet(1_000_000_000), f.wallet(0)
			seller := solana.NewWallet().PublicKey()
			f.cluster.FundToken(mint, payer.PublicKey(), 10_000)
			f.cluster.FundToken(mint, seller, 0)
			tx := x402Payment(t, f, facilitator.PublicKey(), payer, seller, mint, 10_000)
			require.True(t, tx.Message.IsVersioned())
			require.True(t, tx.Signatures[0].IsZero(), "the fee payer's signature is left for the facilitator")

			sim, err := f.cluster.Simulate(tx)
			require.NoError(t, err, "a simulation does not check signatures")
			assert.Equal(t, uint64(2*5_000+1), sim.Fee)
			assert.Equal(t, uint64(2*150+6_200+6_000), sim.UnitsConsumed)
			assert.Contains(t, sim.Logs, "Program log: Instruction: TransferChecked")

			_, err = f.cluster.Submit(tx, solanafake.SendOptions{})
			e := errAs(t, err)
			assert.Equal(t, solanafake.CodeSignatureVerification, e.Code, "but sending does")
			assert.Equal(t, "Transaction signature verification failure", e.Message)
			assert.EqualError(t, e, "solana node error -32003: Transaction signature verification failure")

			sign(t, tx, facilitator)
			sig := f.submit(t, tx)
			assert.Equal(t, facilitator.PublicKey(), tx.Message.AccountKeys[0])
			assert.Equal(t, tx.Signatures[0], sig, "the transaction is known by the fee payer's signature")
			assert.Equal(t, uint64(1_000_000_000-10_001), f.cluster.SOLBalance(facilitator.PublicKey()))
			assert.Zero(t, f.cluster.SOLBalance(payer.PublicKey()), "the payer needs no SOL")
			assert.Equal(t, uint64(10_000), f.cluster.TokenBalance(mint, seller))

			landed, ok := f.cluster.Landed(sig)
			require.True(t, ok)
			memo := []byte("0123456789abcdef0123456789abcdef")
			assert.Equal(t, solanafake.Landed{
				Signature: sig, Slot: landed.Slot, Stage: solanafake.StageConfirmed, Memos: [][]byte{memo},
				Transfers: []solanafake.Transfer{{Signature: sig, From: ata(payer.PublicKey(), mint), To: ata(seller, mint),
					Owner: payer.PublicKey(), Mint: mint, Amount: big.NewInt(10_000), Memos: [][]byte{memo}}},
			}, landed)
			assert.Equal(t, []solanafake.Memo{{Signature: sig, Data: memo}}, f.cluster.Memos())
		})
	}
}

func TestAnotherSignersBadSignatureIsRefused(t *testing.T) {
	t.Parallel()
	f := start(t)
	facilitator, payer, thief := f.wallet(1_000_000_000), f.wallet(0), solana.NewWallet().PrivateKey
	seller := solana.NewWallet().PublicKey()
	f.cluster.FundToken(usdc, payer.PublicKey(), 10_000)
	f.cluster.FundToken(usdc, seller, 0)
	tx := x402Payment(t, f, facilitator.PublicKey(), payer, seller, usdc, 10_000)
	message, err := tx.Message.MarshalBinary()
	require.NoError(t, err)
	tx.Signatures[1], err = thief.Sign(message)
	require.NoError(t, err)
	sign(t, tx, facilitator)

	assert.Equal(t, solanafake.CodeSignatureVerification, f.refusal(t, tx).Code)
	sig, err := f.cluster.Submit(tx, solanafake.SendOptions{SkipPreflight: true})
	require.NoError(t, err, "without preflight the node answers the signature")
	_, landed := f.cluster.Landed(sig)
	assert.False(t, landed, "but the transaction never lands")
	assert.Equal(t, uint64(10_000), f.cluster.TokenBalance(usdc, payer.PublicKey()))
	assert.Equal(t, []solanafake.Received{
		{Signature: sig, Outcome: solanafake.OutcomeRejected, Error: "Transaction signature verification failure"},
		{Signature: sig, SkipPreflight: true, Outcome: solanafake.OutcomeDropped, Error: "Transaction signature verification failure"},
	}, f.cluster.Received())
}

func TestSimulateReportsWhatWouldFail(t *testing.T) {
	t.Parallel()
	f := start(t)
	facilitator, payer := f.wallet(1_000_000_000), f.wallet(0)
	seller := solana.NewWallet().PublicKey()
	f.cluster.FundToken(usdc, payer.PublicKey(), 10_000)

	_, err := f.cluster.Simulate(x402Payment(t, f, facilitator.PublicKey(), payer, seller, usdc, 10_000))
	e := errAs(t, err)
	assert.Equal(t, solanafake.CodePreflightFailure, e.Code)
	assert.Equal(t, "Transaction simulation failed: Error processing Instruction 2: invalid account data for instruction", e.Message,
		"the seller's account is missing")
	assert.JSONEq(t, `{"InstructionError":[2,"InvalidAccountData"]}`, errJSON(t, e))
	assert.Equal(t, "Program "+solana.TokenProgramID.String()+" failed: invalid account data for instruction", e.Logs[len(e.Logs)-1])
	assert.Equal(t, uint64(2*150+6_200), e.UnitsConsumed)

	_, err = f.cluster.Simulate(x402Payment(t, f, solana.NewWallet().PublicKey(), payer, seller, usdc, 10_000))
	assert.JSONEq(t, `"AccountNotFound"`, errJSON(t, errAs(t, err)), "a fee payer without SOL")

	lookups := x402Payment(t, f, facilitator.PublicKey(), payer, seller, usdc, 10_000)
	lookups.Message.AddressTableLookups = solana.MessageAddressTableLookupSlice{{AccountKey: solana.NewWallet().PublicKey(), WritableIndexes: []uint8{0}}}
	_, err = f.cluster.Simulate(lookups)
	e = errAs(t, err)
	assert.Equal(t, solanafake.CodeInvalidParams, e.Code)
	assert.Contains(t, e.Message, "address table lookups")
	assert.Empty(t, f.cluster.Received(), "simulations are not sends")
}

func TestALegacyAndAV0MessageRunAlike(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	seller := solana.NewWallet().PublicKey()
	f.cluster.FundToken(usdc, payer.PublicKey(), 2)
	f.cluster.FundToken(usdc, seller, 0)
	legacy := f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, pay(payer.PublicKey(), seller, usdc, 1))
	v0 := f.buildV0(t, payer.PublicKey(), []solana.PrivateKey{payer}, pay(payer.PublicKey(), seller, usdc, 1))
	assert.False(t, legacy.Message.IsVersioned())
	assert.True(t, v0.Message.IsVersioned())
	f.submit(t, legacy)
	f.submit(t, v0)
	assert.Equal(t, uint64(2), f.cluster.TokenBalance(usdc, seller))
}

func TestAFeePayerThatCannotPayNeverLands(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		lamports uint64
		err      string
	}{
		"no SOL":                      {0, `"AccountNotFound"`},
		"short of the fee":            {4_999, `"InsufficientFundsForFee"`},
		"left below a wallet's rent":  {5_000 + 890_879, `{"InsufficientFundsForRent":{"account_index":0}}`},
		"left with exactly a minimum": {5_000 + 890_880, ""},
		"left with nothing":           {5_000, ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := start(t)
			payer := f.wallet(tc.lamports)
			tx := f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, memo("x"))
			if tc.err == "" {
				f.submit(t, tx)
				assert.Equal(t, tc.lamports-5_000, f.cluster.SOLBalance(payer.PublicKey()))
				return
			}
			e := f.refusal(t, tx)
			assert.JSONEq(t, tc.err, errJSON(t, e))
			assert.Empty(t, e.Logs, "nothing ran")
			sig, err := f.cluster.Submit(tx, solanafake.SendOptions{SkipPreflight: true})
			require.NoError(t, err)
			_, landed := f.cluster.Landed(sig)
			assert.False(t, landed)
			assert.Equal(t, solanafake.OutcomeDropped, f.cluster.Received()[1].Outcome)
			assert.Equal(t, tc.lamports, f.cluster.SOLBalance(payer.PublicKey()))
		})
	}
}

func TestUnknownProgramsAndMemoRules(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	other := solana.NewWallet().PublicKey()
	for name, tc := range map[string]struct {
		ix   solana.Instruction
		want string
	}{
		"a System transfer": {solana.NewInstruction(solana.SystemProgramID, solana.AccountMetaSlice{solana.Meta(payer.PublicKey()).WRITE().SIGNER(), solana.Meta(other).WRITE()},
			[]byte{2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}), `{"InstructionError":[0,"UnsupportedProgramId"]}`},
		"an unsigned memo account": {solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{solana.Meta(other)}, []byte("x")), `{"InstructionError":[0,"MissingRequiredSignature"]}`},
		"a memo not UTF-8":         {memo("\xff\xfe"), `{"InstructionError":[0,"InvalidInstructionData"]}`},
	} {
		assert.JSONEq(t, tc.want, errJSON(t, f.refusal(t, f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, tc.ix))), name)
	}
}

func TestSubmitRefusesATransactionThatDoesNotEncode(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	tx := f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, memo(string(make([]byte, 1300))))
	_, err := f.cluster.Submit(tx, solanafake.SendOptions{})
	e := errAs(t, err)
	assert.Equal(t, solanafake.CodeInvalidParams, e.Code)
	assert.Contains(t, e.Message, "too large")
	assert.Equal(t, []solanafake.Received{{Outcome: solanafake.OutcomeRejected, Error: e.Message}}, f.cluster.Received())
}

func TestMintsAndFunding(t *testing.T) {
	t.Parallel()
	f := start(t)
	m, ok := f.cluster.Mint(dollar)
	assert.True(t, ok)
	assert.Equal(t, solanafake.Mint{Address: dollar, Program: solana.Token2022ProgramID, Decimals: 6}, m)
	_, ok = f.cluster.Mint(solana.NewWallet().PublicKey())
	assert.False(t, ok)
	assert.Panics(t, func() { f.cluster.AddMint(solanafake.Mint{Address: usdc, Program: solana.TokenProgramID}) }, "a mint twice")
	assert.Panics(t, func() {
		f.cluster.AddMint(solanafake.Mint{Address: solana.NewWallet().PublicKey(), Program: solana.MemoProgramID})
	}, "not a token program")
	assert.Panics(t, func() { f.cluster.FundToken(solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey(), 1) })

	wallet := solana.NewWallet().PublicKey()
	assert.Zero(t, f.cluster.TokenBalance(usdc, wallet))
	account := f.cluster.FundToken(usdc, wallet, 0)
	acc, ok := f.cluster.TokenAccount(account)
	assert.True(t, ok, "funding 0 creates the account")
	assert.Equal(t, solanafake.TokenAccount{Mint: usdc, Owner: wallet}, acc)
	f.cluster.FundToken(usdc, wallet, 7)
	f.cluster.FundToken(usdc, wallet, 8)
	assert.Equal(t, uint64(15), f.cluster.TokenBalance(usdc, wallet))
	f.cluster.FundSOL(wallet, 3)
	f.cluster.FundSOL(wallet, 4)
	assert.Equal(t, uint64(7), f.cluster.SOLBalance(wallet))
	assert.Equal(t, uint64(1_461_600), f.cluster.SOLBalance(usdc), "a mint holds its rent")
}
