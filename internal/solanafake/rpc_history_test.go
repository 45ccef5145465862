package solanafake_test

import (
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/solanafake"
	"github.com/agentapis/sdk/internal/testkit"
)

func TestSignatureStatusesAreConfirmedThenFinalized(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	sig := f.submit(t, f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, memo("x")))
	failed, err := f.cluster.Submit(f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, memo("\xff")), solanafake.SendOptions{SkipPreflight: true})
	require.NoError(t, err)

	st, err := f.node.GetSignatureStatuses(t.Context(), false, sig, failed, solana.Signature{1})
	require.NoError(t, err)
	require.Len(t, st.Value, 3)
	assert.Equal(t, rpc.ConfirmationStatusConfirmed, st.Value[0].ConfirmationStatus)
	require.NotNil(t, st.Value[0].Confirmations)
	assert.Equal(t, uint64(1), *st.Value[0].Confirmations, "the second one's blockhash made a block since")
	assert.Nil(t, st.Value[0].Err)
	assert.NotZero(t, st.Value[0].Slot)
	assert.Equal(t, map[string]any{"InstructionError": []any{0.0, "InvalidInstructionData"}}, st.Value[1].Err)
	assert.Nil(t, st.Value[2], "an unknown signature is null")

	f.clock.Advance(10 * solanafake.BlockInterval)
	st, err = f.node.GetSignatureStatuses(t.Context(), false, sig)
	require.NoError(t, err)
	assert.Equal(t, uint64(11), *st.Value[0].Confirmations, "the blocks since it landed, the second one's blockhash included")
	f.clock.Advance((solanafake.FinalityDepth - 11) * solanafake.BlockInterval)
	st, err = f.node.GetSignatureStatuses(t.Context(), false, sig)
	require.NoError(t, err)
	assert.Equal(t, rpc.ConfirmationStatusFinalized, st.Value[0].ConfirmationStatus, "32 blocks later")
	assert.Nil(t, st.Value[0].Confirmations, "null once finalized")
	landed, ok := f.cluster.Landed(sig)
	require.True(t, ok)
	assert.Equal(t, solanafake.StageFinalized, landed.Stage)

	f.clock.Advance(300 * solanafake.BlockInterval)
	st, err = f.node.GetSignatureStatuses(t.Context(), false, sig)
	require.NoError(t, err)
	assert.Nil(t, st.Value[0], "more than 300 blocks later the status cache has forgotten it")
	st, err = f.node.GetSignatureStatuses(t.Context(), true, sig)
	require.NoError(t, err)
	assert.NotNil(t, st.Value[0], "the history has not")
}

func TestAStageRuleCanCountTheQueries(t *testing.T) {
	t.Parallel()
	afterTwo := func(asked int, _ uint64) solanafake.Stage {
		switch {
		case asked < 2:
			return solanafake.StageProcessed
		case asked == 2:
			return solanafake.StageConfirmed
		}
		return solanafake.StageFinalized
	}
	f := newFixture(t, solanafake.Config{Stage: afterTwo})
	payer := f.wallet(10_000_000)
	sig := f.submit(t, f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, memo("x")))
	landed, _ := f.cluster.Landed(sig)
	assert.Equal(t, solanafake.StageProcessed, landed.Stage)

	var stages []rpc.ConfirmationStatusType
	var confirmations []any
	for range 3 {
		st, err := f.node.GetSignatureStatuses(t.Context(), false, sig)
		require.NoError(t, err)
		stages = append(stages, st.Value[0].ConfirmationStatus)
		if c := st.Value[0].Confirmations; c != nil {
			confirmations = append(confirmations, *c)
		} else {
			confirmations = append(confirmations, nil)
		}
	}
	assert.Equal(t, []rpc.ConfirmationStatusType{"processed", "confirmed", "finalized"}, stages)
	assert.Equal(t, []any{uint64(0), uint64(1), nil}, confirmations)
	landed, _ = f.cluster.Landed(sig)
	assert.Equal(t, solanafake.StageFinalized, landed.Stage)
}

func TestGetSignaturesForAddressListsNewestFirstWithTheirMemos(t *testing.T) {
	t.Parallel()
	f := start(t)
	facilitator, payer := f.wallet(1_000_000_000), f.wallet(0)
	seller := solana.NewWallet().PublicKey()
	from := f.cluster.FundToken(usdc, payer.PublicKey(), 100)
	f.cluster.FundToken(usdc, seller, 0)
	send := func(opts solanafake.SendOptions, ixs ...solana.Instruction) solana.Signature {
		sig, err := f.cluster.Submit(f.buildV0(t, facilitator.PublicKey(), []solana.PrivateKey{facilitator, payer}, ixs...), opts)
		require.NoError(t, err)
		return sig
	}
	first := send(solanafake.SendOptions{}, pay(payer.PublicKey(), seller, usdc, 1), memo("API-PRO"))
	second := send(solanafake.SendOptions{}, pay(payer.PublicKey(), seller, usdc, 1), memo("a"), memo("🦖"))
	f.clock.Advance(time.Second)
	failed := send(solanafake.SendOptions{SkipPreflight: true}, pay(payer.PublicKey(), seller, usdc, 1_000), memo("\xff"))
	unrelated := f.wallet(1_000_000)
	f.submit(t, f.build(t, unrelated.PublicKey(), []solana.PrivateKey{unrelated}, memo("elsewhere")))
	fourth := send(solanafake.SendOptions{}, pay(payer.PublicKey(), seller, usdc, 1))

	opts := &rpc.GetSignaturesForAddressOpts{Commitment: rpc.CommitmentConfirmed}
	list, err := f.node.GetSignaturesForAddressWithOpts(t.Context(), from, opts)
	require.NoError(t, err)
	require.Len(t, list, 4)
	var sigs []solana.Signature
	for _, s := range list {
		sigs = append(sigs, s.Signature)
		assert.Equal(t, rpc.ConfirmationStatusConfirmed, s.ConfirmationStatus)
		require.NotNil(t, s.BlockTime)
	}
	assert.Equal(t, []solana.Signature{fourth, failed, second, first}, sigs)
	assert.Equal(t, t0.Unix(), list[3].BlockTime.Time().Unix())
	assert.Equal(t, t0.Add(time.Second).Unix(), list[0].BlockTime.Time().Unix())
	require.NotNil(t, list[3].Memo)
	assert.Equal(t, "[7] API-PRO", *list[3].Memo)
	require.NotNil(t, list[2].Memo)
	assert.Equal(t, "[1] a; [4] 🦖", *list[2].Memo, "the length in bytes, joined by semicolons")
	assert.Nil(t, list[0].Memo)
	require.NotNil(t, list[1].Memo)
	assert.Equal(t, "[1] (unparsable)", *list[1].Memo, "a failed transaction's memo shows too")
	assert.Nil(t, list[3].Err)
	assert.Equal(t, map[string]any{"InstructionError": []any{0.0, map[string]any{"Custom": 1.0}}}, list[1].Err)
	assert.Greater(t, list[0].Slot, list[3].Slot)

	opts.Limit = testkit.Ptr(2)
	list, err = f.node.GetSignaturesForAddressWithOpts(t.Context(), from, opts)
	require.NoError(t, err)
	assert.Len(t, list, 2)
	opts.Limit, opts.Before, opts.Until = nil, failed, first
	list, err = f.node.GetSignaturesForAddressWithOpts(t.Context(), payer.PublicKey(), opts)
	require.NoError(t, err)
	require.Len(t, list, 1, "before and until are left out")
	assert.Equal(t, second, list[0].Signature)
	opts.Before, opts.Until = solana.Signature{3}, solana.Signature{}
	list, err = f.node.GetSignaturesForAddressWithOpts(t.Context(), from, opts)
	require.NoError(t, err)
	assert.Empty(t, list, "an unknown before")

	list, err = f.node.GetSignaturesForAddress(t.Context(), from)
	require.NoError(t, err)
	assert.Empty(t, list, "nothing is finalized yet, and finalized is the default")
	f.clock.Advance(solanafake.FinalityDepth * solanafake.BlockInterval)
	list, err = f.node.GetSignaturesForAddress(t.Context(), from)
	require.NoError(t, err)
	require.Len(t, list, 4)
	assert.Equal(t, rpc.ConfirmationStatusFinalized, list[0].ConfirmationStatus)

	for _, bad := range []*rpc.GetSignaturesForAddressOpts{{Commitment: rpc.CommitmentProcessed}, {Limit: testkit.Ptr(1001)}, {Limit: testkit.Ptr(0)}} {
		_, err = f.node.GetSignaturesForAddressWithOpts(t.Context(), from, bad)
		assert.Equal(t, solanafake.CodeInvalidParams, rpcError(t, err).Code)
	}
}

func TestGetTransactionShowsTheMetaAndTheTransaction(t *testing.T) {
	t.Parallel()
	f := start(t)
	facilitator, payer := f.wallet(1_000_000_000), f.wallet(0)
	seller := solana.NewWallet().PublicKey()
	f.cluster.FundToken(dollar, payer.PublicKey(), 10_000)
	tx := f.buildV0(t, facilitator.PublicKey(), []solana.PrivateKey{facilitator, payer}, computeUnitLimit(40_000), computeUnitPrice(1_000),
		createATA(facilitator.PublicKey(), seller, dollar, solana.Token2022ProgramID, true), pay(payer.PublicKey(), seller, dollar, 2_500), memo("nonce"))
	sig := f.submit(t, tx)
	wire, err := tx.MarshalBinary()
	require.NoError(t, err)

	v0 := uint64(0)
	opts := &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &v0}
	got, err := f.node.GetTransaction(t.Context(), sig, opts)
	require.NoError(t, err)
	assert.Equal(t, rpc.TransactionVersion(0), got.Version)
	assert.NotZero(t, got.Slot)
	require.NotNil(t, got.BlockTime)
	assert.Equal(t, t0.Unix(), got.BlockTime.Time().Unix())
	meta := got.Meta
	assert.Nil(t, meta.Err)
	assert.Equal(t, uint64(2*5_000+40), meta.Fee, "40,000 units at 1,000 micro-lamports")
	keys := tx.Message.AccountKeys
	index := func(k solana.PublicKey) int {
		i, err := tx.Message.GetAccountIndex(k)
		require.NoError(t, err)
		return int(i)
	}
	require.Len(t, meta.PreBalances, len(keys))
	assert.Equal(t, uint64(1_000_000_000), meta.PreBalances[0])
	assert.Equal(t, uint64(1_000_000_000-10_040-2_074_080), meta.PostBalances[0], "the fee and the new account's rent")
	assert.Equal(t, uint64(0), meta.PreBalances[index(ata(seller, dollar))])
	assert.Equal(t, uint64(2_074_080), meta.PostBalances[index(ata(seller, dollar))])
	require.Len(t, meta.PreTokenBalances, 1, "the seller's account did not exist")
	assert.Equal(t, uint16(index(ata(payer.PublicKey(), dollar))), meta.PreTokenBalances[0].AccountIndex)
	assert.Equal(t, "10000", meta.PreTokenBalances[0].UiTokenAmount.Amount)
	assert.Equal(t, dollar, meta.PreTokenBalances[0].Mint)
	assert.Equal(t, payer.PublicKey(), *meta.PreTokenBalances[0].Owner)
	assert.Equal(t, solana.Token2022ProgramID, *meta.PreTokenBalances[0].ProgramId)
	require.Len(t, meta.PostTokenBalances, 2)
	amounts := map[solana.PublicKey]string{}
	for _, b := range meta.PostTokenBalances {
		amounts[*b.Owner] = b.UiTokenAmount.Amount
	}
	assert.Equal(t, map[solana.PublicKey]string{payer.PublicKey(): "7500", seller: "2500"}, amounts)
	assert.Contains(t, meta.LogMessages, `Program log: Memo (len 5): "nonce"`)
	require.NotNil(t, meta.ComputeUnitsConsumed)
	assert.Equal(t, uint64(2*150+20_000+6_200+6_000), *meta.ComputeUnitsConsumed)
	decoded, err := got.Transaction.GetTransaction()
	require.NoError(t, err)
	assert.Equal(t, tx.Signatures, decoded.Signatures)
	assert.Equal(t, tx.Message.AccountKeys, decoded.Message.AccountKeys)
	assert.Equal(t, tx.Message.Instructions, decoded.Message.Instructions)
	assert.Equal(t, tx.Message.RecentBlockhash, decoded.Message.RecentBlockhash)

	opts.Encoding = solana.EncodingBase64
	got, err = f.node.GetTransaction(t.Context(), sig, opts)
	require.NoError(t, err)
	assert.Equal(t, wire, got.Transaction.GetBinary(), "the wire transaction as sent")

	_, err = f.node.GetTransaction(t.Context(), sig, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed})
	e := rpcError(t, err)
	assert.Equal(t, solanafake.CodeUnsupportedTransactionVersion, e.Code, "a v0 transaction needs maxSupportedTransactionVersion")
	_, err = f.node.GetTransaction(t.Context(), sig, &rpc.GetTransactionOpts{MaxSupportedTransactionVersion: &v0})
	assert.ErrorIs(t, err, rpc.ErrNotFound, "not finalized yet, and finalized is the default")
	_, err = f.node.GetTransaction(t.Context(), sig, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentProcessed})
	assert.Equal(t, "Method does not support commitment below `confirmed`", rpcError(t, err).Message)
	_, err = f.node.GetTransaction(t.Context(), solana.Signature{4}, &rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed})
	assert.ErrorIs(t, err, rpc.ErrNotFound)
}

func TestGetTransactionOfAFailedLegacyTransaction(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	f.cluster.FundToken(usdc, payer.PublicKey(), 1)
	sig, err := f.cluster.Submit(f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, pay(payer.PublicKey(), payer.PublicKey(), usdc, 2)),
		solanafake.SendOptions{SkipPreflight: true})
	require.NoError(t, err)
	f.clock.Advance(solanafake.FinalityDepth * solanafake.BlockInterval)

	v0 := uint64(0)
	got, err := f.node.GetTransaction(t.Context(), sig, &rpc.GetTransactionOpts{MaxSupportedTransactionVersion: &v0})
	require.NoError(t, err, "finalized now")
	assert.Equal(t, rpc.LegacyTransactionVersion, got.Version)
	assert.Equal(t, map[string]any{"InstructionError": []any{0.0, map[string]any{"Custom": 1.0}}}, got.Meta.Err)
	assert.Equal(t, []uint64{10_000_000, 2_039_280, 1_461_600, 0}, got.Meta.PreBalances)
	assert.Equal(t, []uint64{10_000_000 - 5_000, 2_039_280, 1_461_600, 0}, got.Meta.PostBalances, "a failure pays its fee")
	assert.Equal(t, got.Meta.PreTokenBalances, got.Meta.PostTokenBalances)
	assert.Equal(t, "Program log: Error: insufficient funds", got.Meta.LogMessages[2])
}
