package solanafake_test

import (
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/solanafake"
)

func TestBlocksAdvanceWithTheClockAndWithEachBlockhash(t *testing.T) {
	t.Parallel()
	f := start(t)
	height := f.cluster.BlockHeight()
	f.clock.Advance(4 * time.Second)
	assert.Equal(t, height+10, f.cluster.BlockHeight(), "a block every 400 ms")

	first, lastValid := f.cluster.LatestBlockhash()
	second, _ := f.cluster.LatestBlockhash()
	assert.NotEqual(t, first, second, "every blockhash is a new block's")
	assert.Equal(t, height+10+1+solanafake.BlockhashWindow, lastValid)
	assert.Equal(t, height+12, f.cluster.BlockHeight())
}

func TestTheFinalizedCommitmentTrails32Blocks(t *testing.T) {
	t.Parallel()
	f := start(t)
	ctx := t.Context()
	confirmed, err := f.node.GetBlockHeight(ctx, rpc.CommitmentConfirmed)
	require.NoError(t, err)
	processed, err := f.node.GetBlockHeight(ctx, rpc.CommitmentProcessed)
	require.NoError(t, err)
	finalized, err := f.node.GetBlockHeight(ctx, rpc.CommitmentFinalized)
	require.NoError(t, err)
	byDefault, err := f.node.GetBlockHeight(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, confirmed, processed)
	assert.Equal(t, confirmed-solanafake.FinalityDepth, finalized)
	assert.Equal(t, finalized, byDefault, "finalized by default, as on a node")

	slot, err := f.node.GetSlot(ctx, rpc.CommitmentConfirmed)
	require.NoError(t, err)
	finalSlot, err := f.node.GetSlot(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, slot-solanafake.FinalityDepth, finalSlot)
	assert.Greater(t, slot, confirmed, "slots and heights differ")

	fin, err := f.node.GetLatestBlockhash(ctx, rpc.CommitmentFinalized)
	require.NoError(t, err)
	conf, err := f.node.GetLatestBlockhash(ctx, rpc.CommitmentConfirmed)
	require.NoError(t, err)
	assert.Equal(t, confirmed+1-solanafake.FinalityDepth+solanafake.BlockhashWindow, fin.Value.LastValidBlockHeight)
	assert.Equal(t, confirmed+2+solanafake.BlockhashWindow, conf.Value.LastValidBlockHeight)
	assert.Equal(t, slot+1-solanafake.FinalityDepth, fin.Context.Slot)
	assert.Equal(t, slot+2, conf.Context.Slot)

	_, err = f.node.GetBlockHeight(ctx, "recent")
	assert.Equal(t, solanafake.CodeInvalidParams, rpcError(t, err).Code, "a commitment Agave no longer knows")
}

func TestABlockhashIsUsableFor150Blocks(t *testing.T) {
	t.Parallel()
	for name, cm := range map[string]rpc.CommitmentType{"confirmed": rpc.CommitmentConfirmed, "finalized": rpc.CommitmentFinalized} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := start(t)
			payer := f.wallet(10_000_000)
			bh, err := f.node.GetLatestBlockhash(t.Context(), cm)
			require.NoError(t, err)
			tx := func(text string) *solana.Transaction {
				tx, err := solana.NewTransaction([]solana.Instruction{memo(text)}, bh.Value.Blockhash, solana.TransactionPayer(payer.PublicKey()))
				require.NoError(t, err)
				sign(t, tx, payer)
				return tx
			}
			height, err := f.node.GetBlockHeight(t.Context(), rpc.CommitmentConfirmed)
			require.NoError(t, err)
			f.clock.Advance(time.Duration(bh.Value.LastValidBlockHeight-height) * solanafake.BlockInterval)
			f.submit(t, tx("at the last valid height"))
			f.clock.Advance(solanafake.BlockInterval)
			e := f.refusal(t, tx("one block later"))
			assert.Equal(t, "Transaction simulation failed: Blockhash not found", e.Message)
			assert.JSONEq(t, `"BlockhashNotFound"`, errJSON(t, e))
		})
	}
}

func TestABlockhashTheClusterNeverGaveIsRefused(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	tx, err := solana.NewTransaction([]solana.Instruction{memo("x")}, solana.Hash{7, 7, 7}, solana.TransactionPayer(payer.PublicKey()))
	require.NoError(t, err)
	sign(t, tx, payer)
	assert.JSONEq(t, `"BlockhashNotFound"`, errJSON(t, f.refusal(t, tx)))

	sig, err := f.cluster.Submit(tx, solanafake.SendOptions{SkipPreflight: true})
	require.NoError(t, err)
	assert.Equal(t, tx.Signatures[0], sig)
	_, landed := f.cluster.Landed(sig)
	assert.False(t, landed)
	assert.Equal(t, solanafake.Received{Signature: sig, SkipPreflight: true, Outcome: solanafake.OutcomeDropped, Error: "Blockhash not found"},
		f.cluster.Received()[1])
}

func TestAMessageLandsOnceWhoeverSignsIt(t *testing.T) {
	t.Parallel()
	f := start(t)
	facilitator, payer := f.wallet(1_000_000_000), f.wallet(0)
	seller := solana.NewWallet().PublicKey()
	f.cluster.FundToken(usdc, payer.PublicKey(), 10)
	f.cluster.FundToken(usdc, seller, 0)
	tx := f.buildV0(t, facilitator.PublicKey(), []solana.PrivateKey{facilitator, payer}, pay(payer.PublicKey(), seller, usdc, 1), memo("nonce"))
	sig := f.submit(t, tx)

	e := f.refusal(t, tx)
	assert.Equal(t, "Transaction simulation failed: This transaction has already been processed", e.Message)
	assert.JSONEq(t, `"AlreadyProcessed"`, errJSON(t, e))
	again, err := f.cluster.Submit(tx, solanafake.SendOptions{SkipPreflight: true})
	require.NoError(t, err)
	assert.Equal(t, sig, again)

	unsigned := *tx
	unsigned.Signatures = []solana.Signature{{}, tx.Signatures[1]}
	_, err = f.cluster.Simulate(&unsigned)
	assert.JSONEq(t, `"AlreadyProcessed"`, errJSON(t, errAs(t, err)), "the status cache holds the message, not the signature")

	assert.Equal(t, uint64(9), f.cluster.TokenBalance(usdc, payer.PublicKey()), "applied once")
	var outcomes []solanafake.Outcome
	for _, r := range f.cluster.Received() {
		outcomes = append(outcomes, r.Outcome)
	}
	assert.Equal(t, []solanafake.Outcome{solanafake.OutcomeApplied, solanafake.OutcomeRejected, solanafake.OutcomeDuplicate}, outcomes)

	f.clock.Advance((solanafake.BlockhashWindow + 1) * solanafake.BlockInterval)
	assert.JSONEq(t, `"BlockhashNotFound"`, errJSON(t, f.refusal(t, tx)), "once its blockhash expired, that is what a node says")
}

func TestAClockThatGoesBackLeavesLandedTransactionsConfirmed(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	f.clock.Advance(time.Minute)
	sig := f.submit(t, f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, memo("x")))
	f.clock.Advance(-time.Minute)
	landed, ok := f.cluster.Landed(sig)
	require.True(t, ok)
	assert.Equal(t, solanafake.StageConfirmed, landed.Stage, "not finalized by an age that wrapped around")
	st, err := f.node.GetSignatureStatuses(t.Context(), false, sig)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), *st.Value[0].Confirmations)
}
