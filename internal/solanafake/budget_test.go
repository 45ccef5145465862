package solanafake_test

import (
	"encoding/binary"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/solanafake"
)

func TestTheFeeIsPerSignaturePlusThePriorityFee(t *testing.T) {
	t.Parallel()
	f := start(t)
	seller := solana.NewWallet().PublicKey()
	f.cluster.FundToken(usdc, seller, 0)
	for name, tc := range map[string]struct {
		twoSigners bool
		budget     []solana.Instruction
		fee        uint64
	}{
		"one signature":  {false, nil, 5_000},
		"two signatures": {true, nil, 10_000},
		"the reference facilitator's budget: 20,000 units at 1 micro-lamport": {true,
			[]solana.Instruction{computeUnitLimit(20_000), computeUnitPrice(1)}, 10_000 + 1},
		"the highest price it accepts": {true, []solana.Instruction{computeUnitLimit(20_000), computeUnitPrice(5_000_000)}, 10_000 + 100_000},
		"a price without a limit: 3,000 for the builtin, 200,000 for each other instruction": {false,
			[]solana.Instruction{computeUnitPrice(3)}, 5_000 + 2}, // 3 × 403,000 = 1,209,000 micro-lamports, rounded up
		"a limit above the cap": {false, []solana.Instruction{computeUnitLimit(2_000_000), computeUnitPrice(1_000_000)}, 5_000 + 1_400_000},
		"rounded up":            {false, []solana.Instruction{computeUnitLimit(1), computeUnitPrice(1_000_001)}, 5_000 + 2},
		"a limit of 0":          {false, []solana.Instruction{computeUnitLimit(0), computeUnitPrice(1_000_000)}, 5_000},
	} {
		feePayer, owner := f.wallet(10_000_000), f.wallet(0)
		signers := []solana.PrivateKey{feePayer, owner}
		if !tc.twoSigners {
			owner, signers = feePayer, []solana.PrivateKey{feePayer}
		}
		f.cluster.FundToken(usdc, owner.PublicKey(), 1)
		ixs := append(append([]solana.Instruction{}, tc.budget...), pay(owner.PublicKey(), seller, usdc, 1), memo("fee"))
		tx := f.buildV0(t, feePayer.PublicKey(), signers, ixs...)

		message, err := tx.Message.MarshalBinary()
		require.NoError(t, err)
		quoted, err := f.node.GetFeeForMessage(t.Context(), encode(message), "")
		require.NoError(t, err, name)
		require.NotNil(t, quoted.Value, name)
		assert.Equal(t, tc.fee, *quoted.Value, "%s: getFeeForMessage", name)
		sim, err := f.cluster.Simulate(tx)
		require.NoError(t, err, name)
		assert.Equal(t, tc.fee, sim.Fee, "%s: Simulate", name)
		f.submit(t, tx)
		assert.Equal(t, 10_000_000-tc.fee, f.cluster.SOLBalance(feePayer.PublicKey()), "%s: charged", name)
	}
}

func TestMalformedComputeBudgetInstructionsAreRefusedBeforeRunning(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	budgetIx := func(data ...byte) solana.Instruction {
		return solana.NewInstruction(solana.ComputeBudget, solana.AccountMetaSlice{}, data)
	}
	heap := func(bytes uint32) solana.Instruction {
		return budgetIx(binary.LittleEndian.AppendUint32([]byte{1}, bytes)...)
	}
	loaded := func(bytes uint32) solana.Instruction {
		return budgetIx(binary.LittleEndian.AppendUint32([]byte{4}, bytes)...)
	}
	for name, tc := range map[string]struct {
		ixs  []solana.Instruction
		want string
	}{
		"a repeated price":           {[]solana.Instruction{computeUnitPrice(1), computeUnitLimit(1), computeUnitPrice(2)}, `{"DuplicateInstruction":2}`},
		"a repeated limit":           {[]solana.Instruction{computeUnitLimit(1), computeUnitLimit(1)}, `{"DuplicateInstruction":1}`},
		"a short limit":              {[]solana.Instruction{budgetIx(2, 1, 0)}, `{"InstructionError":[0,"InvalidInstructionData"]}`},
		"a short price":              {[]solana.Instruction{memo("m"), budgetIx(3, 1, 0, 0, 0)}, `{"InstructionError":[1,"InvalidInstructionData"]}`},
		"the retired RequestUnits":   {[]solana.Instruction{budgetIx(0, 1, 0, 0, 0, 1, 0, 0, 0)}, `{"InstructionError":[0,"InvalidInstructionData"]}`},
		"no data":                    {[]solana.Instruction{budgetIx()}, `{"InstructionError":[0,"InvalidInstructionData"]}`},
		"a heap frame not in KiB":    {[]solana.Instruction{computeUnitLimit(1), heap(33_000)}, `{"InstructionError":[1,"InvalidInstructionData"]}`},
		"a heap frame too large":     {[]solana.Instruction{heap(512 * 1024)}, `{"InstructionError":[0,"InvalidInstructionData"]}`},
		"no loaded accounts at all":  {[]solana.Instruction{loaded(0)}, `"InvalidLoadedAccountsDataSizeLimit"`},
		"a repeat before a bad heap": {[]solana.Instruction{heap(1), computeUnitLimit(1), computeUnitLimit(1)}, `{"DuplicateInstruction":2}`},
	} {
		tx := f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, append(tc.ixs, memo("after"))...)
		e := f.refusal(t, tx)
		assert.JSONEq(t, tc.want, errJSON(t, e), name)
		assert.Empty(t, e.Logs, "%s: nothing ran", name)

		sig, err := f.cluster.Submit(tx, solanafake.SendOptions{SkipPreflight: true})
		require.NoError(t, err, name)
		_, landed := f.cluster.Landed(sig)
		assert.False(t, landed, "%s: never lands", name)
	}
	assert.Equal(t, uint64(10_000_000), f.cluster.SOLBalance(payer.PublicKey()), "and pays nothing")

	f.submit(t, f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, heap(64*1024), loaded(64*1024), memo("ok")))
	assert.Equal(t, uint64(10_000_000-5_000), f.cluster.SOLBalance(payer.PublicKey()), "well-formed ones have no other effect")
}

func TestComputeBudgetInstructionsRunAsABuiltin(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	sim, err := f.cluster.Simulate(f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, computeUnitLimit(20_000), computeUnitPrice(1), memo("hi")))
	require.NoError(t, err)
	assert.Equal(t, []string{
		"Program ComputeBudget111111111111111111111111111111 invoke [1]",
		"Program ComputeBudget111111111111111111111111111111 success",
		"Program ComputeBudget111111111111111111111111111111 invoke [1]",
		"Program ComputeBudget111111111111111111111111111111 success",
		"Program MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr invoke [1]",
		`Program log: Memo (len 2): "hi"`,
		"Program MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr success",
	}, sim.Logs)
	assert.Equal(t, uint64(2*150+6_000), sim.UnitsConsumed)
}

func TestAFeePayerShortOfThePriorityFeeCannotPay(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(5_000 + 99)
	e := f.refusal(t, f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, computeUnitLimit(100), computeUnitPrice(1_000_000), memo("x")))
	assert.Equal(t, "Transaction simulation failed: Insufficient funds for fee", e.Message)
	assert.JSONEq(t, `"InsufficientFundsForFee"`, errJSON(t, e))
}

func TestGetFeeForMessageIgnoresAMalformedBudget(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	tx := f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, computeUnitPrice(1_000_000_000), computeUnitPrice(1_000_000_000), memo("x"))
	message, err := tx.Message.MarshalBinary()
	require.NoError(t, err)
	quoted, err := f.node.GetFeeForMessage(t.Context(), encode(message), "")
	require.NoError(t, err)
	require.NotNil(t, quoted.Value)
	assert.Equal(t, uint64(5_000), *quoted.Value, "Agave falls back to the default budget")
}
