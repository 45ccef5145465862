package gpupricetest_test

import (
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	associatedtokenaccount "github.com/gagliardetto/solana-go/programs/associated-token-account"
	memoprogram "github.com/gagliardetto/solana-go/programs/memo"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/usdc"
)

func TestBlockhashesAndBlockHeight(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(t0)
	srv := start(t, gpupricetest.WithClock(clock))
	c := node(srv)
	first, err := c.GetLatestBlockhash(t.Context(), rpc.CommitmentFinalized)
	require.NoError(t, err)
	height, err := c.GetBlockHeight(t.Context(), rpc.CommitmentFinalized)
	require.NoError(t, err)
	assert.Equal(t, height+150, first.Value.LastValidBlockHeight)
	assert.NotZero(t, first.Context.Slot)
	assert.False(t, first.Value.Blockhash.IsZero())

	second, err := c.GetLatestBlockhash(t.Context(), "")
	require.NoError(t, err)
	assert.NotEqual(t, first.Value.Blockhash, second.Value.Blockhash, "every call produces a block")
	assert.Equal(t, first.Value.LastValidBlockHeight+1, second.Value.LastValidBlockHeight)

	clock.Advance(4 * time.Second)
	later, err := c.GetBlockHeight(t.Context(), "")
	require.NoError(t, err)
	assert.Equal(t, height+1+10, later, "a block every 400 ms of the fake clock")
	assert.Equal(t, map[string]int{"getLatestBlockhash": 2, "getBlockHeight": 2}, srv.RPCCalls())
}

func TestTokenBalancesAndAccounts(t *testing.T) {
	t.Parallel()
	srv := start(t)
	c := node(srv)
	payer := newWallet().PublicKey()
	srv.FundUSDC(payer, usdc.Cents(725))

	bal, err := c.GetTokenAccountBalance(t.Context(), ata(t, payer, gpupricetest.USDCMint), rpc.CommitmentConfirmed)
	require.NoError(t, err)
	assert.Equal(t, "7250000", bal.Value.Amount)
	assert.EqualValues(t, 6, bal.Value.Decimals)
	assert.Equal(t, "7.25", bal.Value.UiAmountString)
	require.NotNil(t, bal.Value.UiAmount)
	assert.InDelta(t, 7.25, *bal.Value.UiAmount, 0)
	assert.Equal(t, "$7.25", usdc.Format(srv.USDCBalance(payer)))

	_, err = c.GetTokenAccountBalance(t.Context(), ata(t, newWallet().PublicKey(), gpupricetest.USDCMint), "")
	e := rpcError(t, err)
	assert.Equal(t, -32602, e.Code)
	assert.Equal(t, "Invalid param: could not find account", e.Message)
	_, err = c.GetTokenAccountBalance(t.Context(), gpupricetest.USDCMint, "")
	assert.Equal(t, "Invalid param: not a Token account", rpcError(t, err).Message)

	info, err := c.GetAccountInfo(t.Context(), srv.TreasuryATA())
	require.NoError(t, err)
	assert.Equal(t, solana.TokenProgramID, info.Value.Owner)
	var acc token.Account
	require.NoError(t, c.GetAccountDataInto(t.Context(), srv.TreasuryATA(), &acc))
	assert.Equal(t, gpupricetest.USDCMint, acc.Mint)
	assert.Equal(t, srv.Treasury, acc.Owner)
	assert.Zero(t, acc.Amount)
	assert.Equal(t, token.Initialized, acc.State)
	assert.EqualValues(t, 165, info.Value.Space)

	var mint token.Mint
	require.NoError(t, c.GetAccountDataInto(t.Context(), gpupricetest.USDCMint, &mint))
	assert.EqualValues(t, 6, mint.Decimals)
	assert.Equal(t, uint64(7_250_000), mint.Supply)

	parsed, err := c.GetAccountInfoWithOpts(t.Context(), ata(t, payer, gpupricetest.USDCMint), &rpc.GetAccountInfoOpts{Encoding: solana.EncodingJSONParsed})
	require.NoError(t, err)
	var view struct {
		Program string `json:"program"`
		Parsed  struct {
			Type string `json:"type"`
			Info struct {
				Mint        string `json:"mint"`
				Owner       string `json:"owner"`
				TokenAmount struct {
					Amount string `json:"amount"`
				} `json:"tokenAmount"`
			} `json:"info"`
		} `json:"parsed"`
	}
	require.NoError(t, json.Unmarshal(parsed.Value.Data.GetRawJSON(), &view))
	assert.Equal(t, "spl-token", view.Program)
	assert.Equal(t, "account", view.Parsed.Type)
	assert.Equal(t, payer.String(), view.Parsed.Info.Owner)
	assert.Equal(t, "7250000", view.Parsed.Info.TokenAmount.Amount)

	_, err = c.GetAccountInfo(t.Context(), ata(t, newWallet().PublicKey(), gpupricetest.USDCMint))
	assert.ErrorIs(t, err, rpc.ErrNotFound, "value null for a missing account")

	wallet := newWallet().PublicKey()
	srv.FundSOL(wallet, 1_500_000)
	sol, err := c.GetBalance(t.Context(), wallet, "")
	require.NoError(t, err)
	assert.Equal(t, uint64(1_500_000), sol.Value)
	info, err = c.GetAccountInfo(t.Context(), wallet)
	require.NoError(t, err)
	assert.Equal(t, solana.SystemProgramID, info.Value.Owner)
}

func TestWithoutTheTreasuryATA(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithTreasuryATA(false))
	_, err := node(srv).GetAccountInfo(t.Context(), srv.TreasuryATA())
	assert.ErrorIs(t, err, rpc.ErrNotFound)
	assert.False(t, srv.TokenAccountExists(srv.TreasuryATA()))
}

func TestAPurchaseTransferIsAppliedOnce(t *testing.T) {
	t.Parallel()
	srv := start(t)
	c := node(srv)
	payer := newPayer(srv)
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(10))
	tx := build(t, c, []solana.PrivateKey{payer},
		transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, 5_000_000, 6),
		memo(payer.PublicKey(), "API-PRO"))

	sig, err := send(t, c, tx)
	require.NoError(t, err)
	assert.Equal(t, tx.Signatures[0], sig)
	assert.Equal(t, "$5.00", usdc.Format(srv.USDCBalance(payer.PublicKey())))
	assert.Equal(t, "$5.00", usdc.Format(srv.USDCBalance(srv.Treasury)))
	require.Len(t, srv.Transfers(), 1)
	tr := srv.Transfers()[0]
	assert.Equal(t, gpupricetest.Transfer{
		Signature: sig,
		From:      ata(t, payer.PublicKey(), gpupricetest.USDCMint),
		To:        srv.TreasuryATA(),
		Owner:     payer.PublicKey(),
		Mint:      gpupricetest.USDCMint,
		Amount:    usdc.Dollars(5),
		Memos:     [][]byte{[]byte("API-PRO")},
	}, tr)
	assert.Equal(t, []gpupricetest.Memo{{Signature: sig, Signers: []solana.PublicKey{payer.PublicKey()}, Data: []byte("API-PRO")}}, srv.Memos())

	st, err := c.GetSignatureStatuses(t.Context(), false, sig)
	require.NoError(t, err)
	require.NotNil(t, st.Value[0])
	assert.Equal(t, rpc.ConfirmationStatusConfirmed, st.Value[0].ConfirmationStatus)
	assert.Nil(t, st.Value[0].Err)
	require.NotNil(t, st.Value[0].Confirmations)
	assert.NotZero(t, st.Value[0].Slot)
	st, err = c.GetSignatureStatuses(t.Context(), false, sig)
	require.NoError(t, err)
	assert.Equal(t, rpc.ConfirmationStatusFinalized, st.Value[0].ConfirmationStatus)
	assert.Nil(t, st.Value[0].Confirmations, "null once finalized")

	_, err = send(t, c, tx)
	e := rpcError(t, err)
	assert.Equal(t, -32002, e.Code)
	assert.Equal(t, "Transaction simulation failed: This transaction has already been processed", e.Message)
	assert.Equal(t, "AlreadyProcessed", simulationErr(t, e))
	again, err := c.SendTransactionWithOpts(t.Context(), tx, rpc.TransactionOpts{SkipPreflight: true})
	require.NoError(t, err)
	assert.Equal(t, sig, again)
	assert.Equal(t, "$5.00", usdc.Format(srv.USDCBalance(payer.PublicKey())), "not applied twice")
	assert.Len(t, srv.Transfers(), 1)

	var outcomes []gpupricetest.Outcome
	for _, r := range srv.Transactions() {
		assert.Equal(t, sig, r.Signature)
		outcomes = append(outcomes, r.Outcome)
	}
	assert.Equal(t, []gpupricetest.Outcome{gpupricetest.OutcomeApplied, gpupricetest.OutcomeRejected, gpupricetest.OutcomeDuplicate}, outcomes)
	assert.Equal(t, 3, srv.RPCCalls()["sendTransaction"])
}

func TestForgedSignaturesAreRefused(t *testing.T) {
	t.Parallel()
	srv := start(t)
	c := node(srv)
	victim, thief := newWallet(), newWallet()
	srv.FundUSDC(victim.PublicKey(), usdc.Dollars(10))

	tampered := build(t, c, []solana.PrivateKey{victim}, transfer(t, victim, thief.PublicKey(), gpupricetest.USDCMint, 10_000_000, 6))
	tampered.Signatures[0][5] ^= 1
	_, err := send(t, c, tampered)
	e := rpcError(t, err)
	assert.Equal(t, -32003, e.Code)
	assert.Equal(t, "Transaction signature verification failure", e.Message)

	// The thief signs a message that names the victim as the signer of the transfer.
	stolen := build(t, c, []solana.PrivateKey{thief}, memo(thief.PublicKey(), "x"))
	stolen.Message = build(t, c, []solana.PrivateKey{victim}, transfer(t, victim, thief.PublicKey(), gpupricetest.USDCMint, 10_000_000, 6)).Message
	msg, err := stolen.Message.MarshalBinary()
	require.NoError(t, err)
	stolen.Signatures[0], err = thief.Sign(msg)
	require.NoError(t, err)
	_, err = send(t, c, stolen)
	assert.Equal(t, -32003, rpcError(t, err).Code)

	sig, err := c.SendTransactionWithOpts(t.Context(), tampered, rpc.TransactionOpts{SkipPreflight: true})
	require.NoError(t, err, "without preflight the node answers the signature")
	st, err := c.GetSignatureStatuses(t.Context(), true, sig)
	require.NoError(t, err)
	assert.Nil(t, st.Value[0], "but the transaction never lands")

	assert.Equal(t, "$10.00", usdc.Format(srv.USDCBalance(victim.PublicKey())))
	assert.Empty(t, srv.Transfers())
	var outcomes []gpupricetest.Outcome
	for _, r := range srv.Transactions() {
		outcomes = append(outcomes, r.Outcome)
	}
	assert.Equal(t, []gpupricetest.Outcome{gpupricetest.OutcomeRejected, gpupricetest.OutcomeRejected, gpupricetest.OutcomeDropped}, outcomes)
}

func TestInsufficientFundsFailTheWholeTransaction(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithTreasuryATA(false))
	c := node(srv)
	payer := newPayer(srv)
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(4))
	tx := build(t, c, []solana.PrivateKey{payer},
		createIdempotent(payer.PublicKey(), srv.Treasury, gpupricetest.USDCMint),
		transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, 5_000_000, 6),
		memo(payer.PublicKey(), "API-PRO"))

	_, err := send(t, c, tx)
	e := rpcError(t, err)
	assert.Equal(t, -32002, e.Code)
	assert.Equal(t, "Transaction simulation failed: Error processing Instruction 1: custom program error: 0x1", e.Message)
	assert.Equal(t, map[string]any{"InstructionError": []any{json.Number("1"), map[string]any{"Custom": json.Number("1")}}}, simulationErr(t, e))
	assert.Contains(t, e.Data.(map[string]any)["logs"], "Program log: Error: insufficient funds")
	assert.False(t, srv.TokenAccountExists(srv.TreasuryATA()), "the account creation was rolled back")
	assert.Equal(t, "$4.00", usdc.Format(srv.USDCBalance(payer.PublicKey())))
	assert.Empty(t, srv.Transfers())
	assert.Empty(t, srv.Memos())

	sig, err := c.SendTransactionWithOpts(t.Context(), tx, rpc.TransactionOpts{SkipPreflight: true})
	require.NoError(t, err)
	st, err := c.GetSignatureStatuses(t.Context(), false, sig)
	require.NoError(t, err)
	require.NotNil(t, st.Value[0], "without preflight it lands, failed")
	assert.NotNil(t, st.Value[0].Err)
	assert.False(t, srv.TokenAccountExists(srv.TreasuryATA()))
	assert.Empty(t, srv.Memos())
	a := redeem(t, srv, sig.String())
	assert.Equal(t, http.StatusUnprocessableEntity, a.Status)
	assert.Equal(t, "tx_failed", a.ErrorCode())
	assert.Equal(t, gpupricetest.OutcomeFailed, srv.Transactions()[1].Outcome)
}

func TestTransferToAMissingAccountFails(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithTreasuryATA(false))
	c := node(srv)
	payer := newPayer(srv)
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(10))
	_, err := send(t, c, build(t, c, []solana.PrivateKey{payer}, transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, 5_000_000, 6)))
	e := rpcError(t, err)
	assert.Equal(t, "Transaction simulation failed: Error processing Instruction 0: invalid account data for instruction", e.Message)
	assert.Equal(t, "$10.00", usdc.Format(srv.USDCBalance(payer.PublicKey())))
}

func TestAssociatedTokenAccountCreation(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithTreasuryATA(false))
	c := node(srv)
	payer := newPayer(srv)
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(10))
	create := associatedtokenaccount.NewCreateInstruction(payer.PublicKey(), srv.Treasury, gpupricetest.USDCMint).Build()

	_, err := send(t, c, build(t, c, []solana.PrivateKey{payer}, create, transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, 5_000_000, 6)))
	require.NoError(t, err)
	assert.Equal(t, "$5.00", usdc.Format(srv.USDCBalance(srv.Treasury)))

	_, err = send(t, c, build(t, c, []solana.PrivateKey{payer}, create))
	assert.Equal(t, "Transaction simulation failed: Error processing Instruction 0: Provided owner is not allowed", rpcError(t, err).Message,
		"Create fails on an existing account")
	_, err = send(t, c, build(t, c, []solana.PrivateKey{payer}, createIdempotent(payer.PublicKey(), srv.Treasury, gpupricetest.USDCMint)))
	require.NoError(t, err, "CreateIdempotent does not")

	wrongSeed := createIdempotent(payer.PublicKey(), srv.Treasury, gpupricetest.USDCMint)
	wrongSeed.Accounts()[1].PublicKey = newWallet().PublicKey()
	_, err = send(t, c, build(t, c, []solana.PrivateKey{payer}, wrongSeed))
	assert.Contains(t, rpcError(t, err).Message, "Provided seeds do not result in a valid address")
}

func TestBlockhashesMustBeIssuedAndFresh(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(t0)
	srv := start(t, gpupricetest.WithClock(clock))
	c := node(srv)
	payer := newPayer(srv)
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(10))
	ix := transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, 1, 6)

	made, err := solana.NewTransaction([]solana.Instruction{ix}, solana.Hash{7, 7, 7}, solana.TransactionPayer(payer.PublicKey()))
	require.NoError(t, err)
	_, err = made.Sign(func(solana.PublicKey) *solana.PrivateKey { return &payer })
	require.NoError(t, err)
	_, err = send(t, c, made)
	e := rpcError(t, err)
	assert.Equal(t, "Transaction simulation failed: Blockhash not found", e.Message)
	assert.Equal(t, "BlockhashNotFound", simulationErr(t, e))

	stale := build(t, c, []solana.PrivateKey{payer}, ix)
	clock.Advance(60 * time.Second)
	fresh := build(t, c, []solana.PrivateKey{payer}, ix, memo(payer.PublicKey(), "fresh"))
	clock.Advance(400 * time.Millisecond)
	_, err = send(t, c, stale)
	assert.Equal(t, "BlockhashNotFound", simulationErr(t, rpcError(t, err)), "151 blocks later")
	_, err = send(t, c, fresh)
	assert.NoError(t, err)
}

func TestOnlyTheThreeProgramsRun(t *testing.T) {
	t.Parallel()
	srv := start(t)
	c := node(srv)
	payer := newPayer(srv)
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(10))
	for name, tc := range map[string]struct {
		ix   solana.Instruction
		want string
	}{
		"system transfer": {system.NewTransferInstruction(1, payer.PublicKey(), srv.Treasury).Build(), "Error processing Instruction 0: Unsupported program id"},
		"plain token transfer": {token.NewTransferInstruction(1, ata(t, payer.PublicKey(), gpupricetest.USDCMint), srv.TreasuryATA(), payer.PublicKey(), nil).Build(),
			"Error processing Instruction 0: invalid instruction data"},
		"wrong decimals": {transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, 1, 9), "Error processing Instruction 0: custom program error: 0x12"},
		"unsigned memo": {solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{solana.Meta(srv.Treasury)}, []byte("API-PRO")),
			"Error processing Instruction 0: missing required signature for instruction"},
		"memo not UTF-8": {memo(payer.PublicKey(), "\xff\xfe"), "Error processing Instruction 0: invalid instruction data"},
	} {
		_, err := send(t, c, build(t, c, []solana.PrivateKey{payer}, tc.ix))
		assert.Equal(t, "Transaction simulation failed: "+tc.want, rpcError(t, err).Message, name)
	}
	assert.Equal(t, "$10.00", usdc.Format(srv.USDCBalance(payer.PublicKey())))
}

func TestOnlyTheOwnerMovesItsTokens(t *testing.T) {
	t.Parallel()
	srv := start(t)
	c := node(srv)
	victim, thief := newWallet(), newPayer(srv)
	srv.FundUSDC(victim.PublicKey(), usdc.Dollars(10))
	srv.FundUSDC(thief.PublicKey(), new(big.Int))
	steal := token.NewTransferCheckedInstruction(1_000_000, 6, ata(t, victim.PublicKey(), gpupricetest.USDCMint), gpupricetest.USDCMint,
		ata(t, thief.PublicKey(), gpupricetest.USDCMint), thief.PublicKey(), nil).Build()
	_, err := send(t, c, build(t, c, []solana.PrivateKey{thief}, steal))
	assert.Equal(t, "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x4", rpcError(t, err).Message)

	unsigned := token.NewTransferCheckedInstruction(1_000_000, 6, ata(t, victim.PublicKey(), gpupricetest.USDCMint), gpupricetest.USDCMint,
		ata(t, thief.PublicKey(), gpupricetest.USDCMint), victim.PublicKey(), nil).Build()
	unsigned.Accounts()[3].IsSigner = false
	_, err = send(t, c, build(t, c, []solana.PrivateKey{thief}, unsigned))
	assert.Equal(t, "Transaction simulation failed: Error processing Instruction 0: missing required signature for instruction", rpcError(t, err).Message)
	assert.Equal(t, "$10.00", usdc.Format(srv.USDCBalance(victim.PublicKey())))
}

func TestTheMemoBuilderPrefixesALengthByte(t *testing.T) {
	t.Parallel()
	srv := start(t)
	payer := newPayer(srv)
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(10))
	sig := pay(t, srv, payer,
		transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, 5_000_000, 6),
		memoprogram.NewMemoInstruction([]byte("API-PRO"), payer.PublicKey()).Build())
	require.Len(t, srv.Memos(), 1)
	assert.Equal(t, []byte("\aAPI-PRO"), srv.Memos()[0].Data, "recorded exactly as sent")
	a := redeem(t, srv, sig.String())
	assert.Equal(t, http.StatusUnprocessableEntity, a.Status)
	assert.Equal(t, "wrong_memo", a.ErrorCode())
	assert.Contains(t, a.ErrorMessage(), `"\aAPI-PRO"`)
}

func TestConfirmAfter(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithConfirmAfter(3))
	c := node(srv)
	payer := newPayer(srv)
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(10))
	sig, err := send(t, c, build(t, c, []solana.PrivateKey{payer},
		transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, 5_000_000, 6), memo(payer.PublicKey(), "API-PRO")))
	require.NoError(t, err)

	a := redeem(t, srv, sig.String())
	assert.Equal(t, http.StatusConflict, a.Status)
	assert.Equal(t, "tx_not_confirmed", a.ErrorCode())
	var stages []rpc.ConfirmationStatusType
	for range 4 {
		st, err := c.GetSignatureStatuses(t.Context(), false, sig)
		require.NoError(t, err)
		stages = append(stages, st.Value[0].ConfirmationStatus)
		if len(stages) == 2 {
			assert.Equal(t, "tx_not_confirmed", redeem(t, srv, sig.String()).ErrorCode())
		}
	}
	assert.Equal(t, []rpc.ConfirmationStatusType{"processed", "processed", "confirmed", "finalized"}, stages)
	assert.Equal(t, http.StatusCreated, redeem(t, srv, sig.String()).Status)

	instant := start(t, gpupricetest.WithConfirmAfter(0))
	instant.FundUSDC(payer.PublicKey(), usdc.Dollars(5))
	instant.FundSOL(payer.PublicKey(), payerSOL)
	c = node(instant)
	sig, err = send(t, c, build(t, c, []solana.PrivateKey{payer},
		transfer(t, payer, instant.Treasury, gpupricetest.USDCMint, 5_000_000, 6), memo(payer.PublicKey(), "API-PRO")))
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, redeem(t, instant, sig.String()).Status, "confirmed as it lands")
}

func TestStatusesOutsideTheCacheNeedHistorySearch(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(t0)
	srv := start(t, gpupricetest.WithClock(clock))
	payer := newPayer(srv)
	srv.FundUSDC(payer.PublicKey(), big.NewInt(1))
	sig := pay(t, srv, payer, transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, 1, 6))
	clock.Advance(2*time.Minute + time.Second)
	c := node(srv)
	st, err := c.GetSignatureStatuses(t.Context(), false, sig)
	require.NoError(t, err)
	assert.Nil(t, st.Value[0], "more than 300 blocks later the status cache has forgotten it")
	st, err = c.GetSignatureStatuses(t.Context(), true, sig, solana.Signature{1})
	require.NoError(t, err)
	require.Len(t, st.Value, 2)
	assert.NotNil(t, st.Value[0])
	assert.Nil(t, st.Value[1], "an unknown signature is null")
}

func TestSendTransactionEncodingsAndMalformedInput(t *testing.T) {
	t.Parallel()
	srv := start(t)
	c := node(srv)
	payer := newPayer(srv)
	srv.FundUSDC(payer.PublicKey(), big.NewInt(2))
	tx := build(t, c, []solana.PrivateKey{payer}, transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, 1, 6))
	wire, err := tx.MarshalBinary()
	require.NoError(t, err)

	sig, err := c.SendEncodedTransactionWithOpts(t.Context(), solana.Base58(wire).String(), rpc.TransactionOpts{Encoding: solana.EncodingBase58})
	require.NoError(t, err, "base58, the node's default encoding")
	assert.Equal(t, tx.Signatures[0], sig)
	assert.Equal(t, "$0.000001", usdc.Format(srv.USDCBalance(payer.PublicKey())))

	for name, tc := range map[string]struct {
		encoded string
		prefix  string
	}{
		"not base64":    {"%%%", "invalid base64 encoding"},
		"not a tx":      {base64.StdEncoding.EncodeToString([]byte{1, 2, 3}), "failed to deserialize"},
		"too large":     {base64.StdEncoding.EncodeToString(make([]byte, 1300)), "base64 encoded solana_sdk::transaction::versioned::VersionedTransaction too large"},
		"no signatures": {base64.StdEncoding.EncodeToString(append([]byte{0}, wire[65:]...)), "invalid transaction"},
	} {
		_, err := c.SendEncodedTransactionWithOpts(t.Context(), tc.encoded, rpc.TransactionOpts{})
		e := rpcError(t, err)
		assert.Equal(t, -32602, e.Code, name)
		assert.Contains(t, e.Message, tc.prefix, name)
	}
}

func TestRawJSONRPC(t *testing.T) {
	t.Parallel()
	srv := start(t)
	post := func(body string) []byte {
		a := testkit.Do(t, http.DefaultClient, http.MethodPost, srv.RPCURL, body, map[string]string{"Content-Type": "application/json"})
		require.Equal(t, http.StatusOK, a.Status)
		return a.Body
	}
	var batch []map[string]any
	require.NoError(t, json.Unmarshal(post(`[{"jsonrpc":"2.0","id":1,"method":"getBlockHeight"},{"jsonrpc":"2.0","id":"b","method":"getProgramAccounts","params":[]}]`), &batch))
	require.Len(t, batch, 2)
	assert.EqualValues(t, 1, batch[0]["id"])
	assert.NotNil(t, batch[0]["result"])
	assert.Equal(t, "b", batch[1]["id"])
	assert.Equal(t, map[string]any{"code": -32601.0, "message": "Method not found"}, batch[1]["error"])

	var single map[string]any
	require.NoError(t, json.Unmarshal(post(`{"jsonrpc":"2.0","id":9,"method":"getLatestBlockhash","params":[{"commitment":"finalized"}]}`), &single))
	result := single["result"].(map[string]any)
	assert.Contains(t, result["context"], "slot")
	assert.Contains(t, result["context"], "apiVersion")
	assert.Contains(t, result["value"], "blockhash")
	assert.Contains(t, result["value"], "lastValidBlockHeight")

	require.NoError(t, json.Unmarshal(post(`{not json`), &single))
	assert.Equal(t, -32700.0, single["error"].(map[string]any)["code"])
	assert.Nil(t, single["id"])
	require.NoError(t, json.Unmarshal(post(`{"jsonrpc":"2.0","id":1,"method":"getBalance","params":["not-a-key"]}`), &single))
	assert.Equal(t, -32602.0, single["error"].(map[string]any)["code"])

	resp, err := http.Get(srv.RPCURL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Equal(t, 1, srv.RPCCalls()["getProgramAccounts"], "unknown methods are counted too")
}

// solBalance returns the lamports of wallet on srv's node.
func solBalance(t *testing.T, srv *gpupricetest.Server, wallet solana.PublicKey) uint64 {
	t.Helper()
	b, err := node(srv).GetBalance(t.Context(), wallet, "")
	require.NoError(t, err)
	return b.Value
}

// proPayment returns the instructions of a Pro payment by payer to srv's treasury, after
// an idempotent creation of the treasury's USDC account when create is set.
func proPayment(t *testing.T, srv *gpupricetest.Server, payer solana.PrivateKey, create bool) []solana.Instruction {
	t.Helper()
	var ixs []solana.Instruction
	if create {
		ixs = append(ixs, createIdempotent(payer.PublicKey(), srv.Treasury, gpupricetest.USDCMint))
	}
	return append(ixs, transfer(t, payer, srv.Treasury, gpupricetest.USDCMint, 5_000_000, 6), memo(payer.PublicKey(), "API-PRO"))
}

func TestTheNodePricesFeesAndRent(t *testing.T) {
	t.Parallel()
	srv := start(t)
	c := node(srv)
	payer := newPayer(srv)
	tx := build(t, c, []solana.PrivateKey{payer}, proPayment(t, srv, payer, false)...)
	message, err := tx.Message.MarshalBinary()
	require.NoError(t, err)
	fee, err := c.GetFeeForMessage(t.Context(), base64.StdEncoding.EncodeToString(message), "")
	require.NoError(t, err)
	require.NotNil(t, fee.Value)
	assert.Equal(t, uint64(5_000), *fee.Value, "5,000 lamports for its one signature")

	tx.Message.RecentBlockhash = solana.Hash{7}
	message, err = tx.Message.MarshalBinary()
	require.NoError(t, err)
	fee, err = c.GetFeeForMessage(t.Context(), base64.StdEncoding.EncodeToString(message), "")
	require.NoError(t, err)
	assert.Nil(t, fee.Value, "null for a blockhash the node did not issue")

	for size, want := range map[uint64]uint64{0: 890_880, 82: 1_461_600, 165: 2_039_280} {
		got, err := c.GetMinimumBalanceForRentExemption(t.Context(), size, "")
		require.NoError(t, err)
		assert.Equal(t, want, got, "%d bytes", size)
	}
	info, err := c.GetAccountInfo(t.Context(), srv.TreasuryATA())
	require.NoError(t, err)
	assert.Equal(t, uint64(2_039_280), info.Value.Lamports, "a token account holds its rent-exempt minimum")
}

func TestAPaymentPaysItsFeeAndTheRentOfTheAccountItCreates(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithTreasuryATA(false))
	payer := newPayer(srv)
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(10))

	pay(t, srv, payer, proPayment(t, srv, payer, true)...)
	assert.Equal(t, uint64(payerSOL-5_000-2_039_280), solBalance(t, srv, payer.PublicKey()), "the fee and the new account's rent")
	assert.True(t, srv.TokenAccountExists(srv.TreasuryATA()))

	pay(t, srv, payer, proPayment(t, srv, payer, true)...)
	assert.Equal(t, uint64(payerSOL-2*5_000-2_039_280), solBalance(t, srv, payer.PublicKey()), "an existing account costs no rent")
	assert.Equal(t, "$10.00", usdc.Format(srv.USDCBalance(srv.Treasury)))

	// A payer that spends exactly what it holds is left with nothing, which is allowed.
	exact := newWallet()
	srv.FundSOL(exact.PublicKey(), 5_000)
	srv.FundUSDC(exact.PublicKey(), usdc.Dollars(5))
	pay(t, srv, exact, proPayment(t, srv, exact, false)...)
	assert.Zero(t, solBalance(t, srv, exact.PublicKey()))
}

func TestAFeePayerThatCannotPayNeverLands(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		lamports uint64
		err      any
		message  string
	}{
		"no SOL": {0, "AccountNotFound",
			"Transaction simulation failed: Attempt to debit an account but found no record of a prior credit."},
		"short of the fee": {4_999, "InsufficientFundsForFee", "Transaction simulation failed: Insufficient funds for fee"},
		"left below a wallet's rent-exempt minimum": {895_000,
			map[string]any{"InsufficientFundsForRent": map[string]any{"account_index": json.Number("0")}},
			"Transaction simulation failed: Transaction results in an account (0) with insufficient funds for rent"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := start(t)
			c := node(srv)
			payer := newWallet()
			srv.FundSOL(payer.PublicKey(), tc.lamports)
			srv.FundUSDC(payer.PublicKey(), usdc.Dollars(10))
			tx := build(t, c, []solana.PrivateKey{payer}, proPayment(t, srv, payer, false)...)

			_, err := send(t, c, tx)
			e := rpcError(t, err)
			assert.Equal(t, -32002, e.Code)
			assert.Equal(t, tc.message, e.Message)
			assert.Equal(t, tc.err, simulationErr(t, e))
			assert.Equal(t, []any{}, e.Data.(map[string]any)["logs"], "nothing ran")

			sig, err := c.SendTransactionWithOpts(t.Context(), tx, rpc.TransactionOpts{SkipPreflight: true})
			require.NoError(t, err)
			st, err := c.GetSignatureStatuses(t.Context(), true, sig)
			require.NoError(t, err)
			assert.Nil(t, st.Value[0], "without preflight it is dropped: no fee was paid, nothing landed")
			assert.Equal(t, gpupricetest.OutcomeDropped, srv.Transactions()[1].Outcome)
			assert.Equal(t, tc.lamports, solBalance(t, srv, payer.PublicKey()))
			assert.Equal(t, "$10.00", usdc.Format(srv.USDCBalance(payer.PublicKey())))
		})
	}
}

func TestAPayerShortOfTheRentFailsInTheSystemProgram(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithTreasuryATA(false))
	c := node(srv)
	payer := newWallet()
	srv.FundSOL(payer.PublicKey(), 1_000_000) // the fee, not the rent
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(10))
	tx := build(t, c, []solana.PrivateKey{payer}, proPayment(t, srv, payer, true)...)

	_, err := send(t, c, tx)
	e := rpcError(t, err)
	assert.Equal(t, "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1", e.Message,
		"the same text as short USDC")
	assert.Equal(t, map[string]any{"InstructionError": []any{json.Number("0"), map[string]any{"Custom": json.Number("1")}}}, simulationErr(t, e))
	assert.Equal(t, []any{
		"Program " + solana.SPLAssociatedTokenAccountProgramID.String() + " invoke [1]",
		"Program log: Create",
		"Program 11111111111111111111111111111111 invoke [2]",
		"Transfer: insufficient lamports 995000, need 2039280",
		"Program 11111111111111111111111111111111 failed: custom program error: 0x1",
		"Program " + solana.SPLAssociatedTokenAccountProgramID.String() + " failed: custom program error: 0x1",
	}, e.Data.(map[string]any)["logs"], "the logs name the System program")
	assert.False(t, srv.TokenAccountExists(srv.TreasuryATA()))
	assert.Equal(t, uint64(1_000_000), solBalance(t, srv, payer.PublicKey()), "refused in preflight: no fee")

	sig, err := c.SendTransactionWithOpts(t.Context(), tx, rpc.TransactionOpts{SkipPreflight: true})
	require.NoError(t, err)
	st, err := c.GetSignatureStatuses(t.Context(), true, sig)
	require.NoError(t, err)
	require.NotNil(t, st.Value[0], "without preflight it lands, failed")
	assert.NotNil(t, st.Value[0].Err)
	assert.Equal(t, uint64(995_000), solBalance(t, srv, payer.PublicKey()), "a transaction that lands and fails pays its fee")
	assert.False(t, srv.TokenAccountExists(srv.TreasuryATA()))
	assert.Equal(t, "$10.00", usdc.Format(srv.USDCBalance(payer.PublicKey())))
	assert.Equal(t, "tx_failed", redeem(t, srv, sig.String()).ErrorCode())
}

func TestAPaymentThatWouldLeaveThePayerBelowItsRentFails(t *testing.T) {
	t.Parallel()
	srv := start(t, gpupricetest.WithTreasuryATA(false))
	c := node(srv)
	payer := newWallet()
	srv.FundSOL(payer.PublicKey(), 5_000+2_039_280+100) // the fee and the rent, and 100 lamports left
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(10))
	tx := build(t, c, []solana.PrivateKey{payer}, proPayment(t, srv, payer, true)...)

	_, err := send(t, c, tx)
	e := rpcError(t, err)
	assert.Equal(t, "Transaction simulation failed: Transaction results in an account (0) with insufficient funds for rent", e.Message)
	assert.Contains(t, e.Data.(map[string]any)["logs"], "Program MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr success", "every instruction ran")

	sig, err := c.SendTransactionWithOpts(t.Context(), tx, rpc.TransactionOpts{SkipPreflight: true})
	require.NoError(t, err)
	st, err := c.GetSignatureStatuses(t.Context(), true, sig)
	require.NoError(t, err)
	require.NotNil(t, st.Value[0])
	assert.NotNil(t, st.Value[0].Err)
	assert.Equal(t, uint64(2_039_380), solBalance(t, srv, payer.PublicKey()), "it landed, failed, and paid its fee")
	assert.False(t, srv.TokenAccountExists(srv.TreasuryATA()))
	assert.Empty(t, srv.Transfers())
}

func TestAFailedTransferStillPaysItsFee(t *testing.T) {
	t.Parallel()
	srv := start(t)
	c := node(srv)
	payer := newPayer(srv)
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(1))
	sig, err := c.SendTransactionWithOpts(t.Context(), build(t, c, []solana.PrivateKey{payer}, proPayment(t, srv, payer, false)...),
		rpc.TransactionOpts{SkipPreflight: true})
	require.NoError(t, err)
	st, err := c.GetSignatureStatuses(t.Context(), true, sig)
	require.NoError(t, err)
	require.NotNil(t, st.Value[0])
	assert.NotNil(t, st.Value[0].Err, "short USDC")
	assert.Equal(t, uint64(payerSOL-5_000), solBalance(t, srv, payer.PublicKey()))
	assert.Equal(t, "$1.00", usdc.Format(srv.USDCBalance(payer.PublicKey())))
}
