package gpuprice_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/usdc"
)

// budgetOf returns a budget of limit atomic USDC units (no total when limit is negative),
// kept in the store budgettest.EnvStore names.
func budgetOf(t *testing.T, limit int64, opts ...budget.Option) *budget.Budget {
	t.Helper()
	max := budget.Unlimited
	if limit >= 0 {
		max = big.NewInt(limit)
	}
	return budgettest.NewBudget(t, budgettest.Selected(t), max, nil, opts...)
}

// assertBudget checks what a budget has spent and still holds.
func assertBudget(t *testing.T, b *budget.Budget, spent, reserved int64) {
	t.Helper()
	assert.Equal(t, big.NewInt(spent).String(), budgettest.Spent(t, b).String(), "spent")
	assert.Equal(t, big.NewInt(reserved).String(), budgettest.Reserved(t, b).String(), "reserved")
}

// purchase returns a Pro purchase of payer to srv's treasury, drawing on budget.
func purchase(srv *gpupricetest.Server, payer svm.Signer, budget *budget.Budget) *gpuprice.BuyKeyParams {
	return &gpuprice.BuyKeyParams{Plan: gpuprice.PlanPro, Payer: payer, Treasury: srv.Treasury, Budget: budget}
}

func TestBuyKeySucceedsOnceAndCannotBeRedeemedTwice(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	payer, key := newPayer(t, srv, usdc.Dollars(8))
	budget := budgetOf(t, 10_000_000)

	bought, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
	require.NoError(t, err)
	scan.Add(bought.Key.Reveal(), bought.TxSignature.Reveal())

	assert.Equal(t, gpuprice.PlanPro, bought.Plan)
	require.NotNil(t, bought.ExpiresAt)
	assert.Equal(t, t0.AddDate(0, 1, 0), *bought.ExpiresAt)
	assert.True(t, strings.HasPrefix(bought.Key.Reveal(), "gpk_"))
	plan, _, ok := srv.KeyPlan(bought.Key.Reveal())
	require.True(t, ok, "the fake issued the key")
	assert.Equal(t, gpupricetest.PlanPro, plan)
	assert.Equal(t, "$3.00", usdc.Format(srv.USDCBalance(key.PublicKey())))
	assert.Equal(t, "$5.00", usdc.Format(srv.USDCBalance(srv.Treasury)))
	assert.Equal(t, []string{"API-PRO"}, memoTexts(srv))
	assertBudget(t, budget, 5_000_000, 0)
	assert.Empty(t, budgettest.Outstanding(t, budget))
	assert.Equal(t, 201, bought.Response.StatusCode)

	// The key is sent from now on: History works without another option.
	h, err := c.History(t.Context(), &gpuprice.HistoryParams{Limit: 1})
	require.NoError(t, err)
	assert.Len(t, h.Snapshots, 1)

	// The same signature cannot be redeemed twice.
	_, err = c.RedeemKey(t.Context(), bought.TxSignature.Reveal())
	require.ErrorIs(t, err, gpuprice.ErrAlreadyRedeemed)
	assert.Equal(t, http.StatusConflict, testkit.As[*sdk.APIError](t, err).StatusCode)
	assert.NotContains(t, err.Error(), bought.TxSignature.Reveal())

	// Printing the key shows only its mask.
	assert.NotContains(t, sprintf("%v %+v %#v", bought, *bought, bought.Key), bought.Key.Reveal())
}

// memoTexts returns the memos that landed on srv.
func memoTexts(srv *gpupricetest.Server) []string {
	var out []string
	for _, m := range srv.Memos() {
		out = append(out, string(m.Data))
	}
	return out
}

func TestBuyKeyWithShortBalanceSendsNothing(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	payer, key := newPayer(t, srv, big.NewInt(4_999_999))
	budget := budgetOf(t, 10_000_000)

	_, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
	require.ErrorIs(t, err, gpuprice.ErrInsufficientFunds)
	short := testkit.As[*gpuprice.InsufficientFundsError](t, err)
	assert.Equal(t, "$4.999999", usdc.Format(short.Have))
	assert.Equal(t, "$5.00", usdc.Format(short.Need))
	assert.Zero(t, srv.RPCCalls()["sendTransaction"], "nothing was sent")
	assert.Empty(t, srv.Transactions())
	assert.Equal(t, "$4.999999", usdc.Format(srv.USDCBalance(key.PublicKey())))
	assertBudget(t, budget, 0, 0)
	assert.Empty(t, budgettest.Outstanding(t, budget))
}

func TestBuyKeyWithoutAUSDCAccountSendsNothing(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	payer, _ := newPayer(t, srv, new(big.Int))
	budget := budgetOf(t, 10_000_000)

	_, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
	short := testkit.As[*gpuprice.InsufficientFundsError](t, err)
	assert.Equal(t, "$0.00", usdc.Format(short.Have), "no account holds nothing")
	assert.Zero(t, srv.RPCCalls()["sendTransaction"])
	assertBudget(t, budget, 0, 0)
}

func TestBuyKeyOverBudgetIsRefusedBeforeAnything(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	payer, _ := newPayer(t, srv, usdc.Dollars(50))
	spend := budgetOf(t, 10_000_000)
	held, err := spend.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(6_000_000)}) // an x402 payment under way on the same budget
	require.NoError(t, err)

	_, err = c.BuyKey(t.Context(), purchase(srv, payer, spend))
	require.ErrorIs(t, err, x402.ErrBudgetExceeded)
	testkit.As[*budget.LimitError](t, err)
	assert.Empty(t, srv.RPCCalls(), "not even the balance was read")
	assertBudget(t, spend, 0, 6_000_000)

	require.NoError(t, held.Release(t.Context()))
	_, err = c.BuyKey(t.Context(), purchase(srv, payer, spend))
	require.NoError(t, err, "the same budget allows it once the other payment is gone")
	assertBudget(t, spend, 5_000_000, 0)
}

func TestBuyKeyReleasesTheBudgetWhenBuildingFails(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	_, key := newPayer(t, srv, usdc.Dollars(8))
	budget := budgetOf(t, 10_000_000)

	_, err := c.BuyKey(t.Context(), purchase(srv, failingSigner{key.PublicKey()}, budget))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "signing the transaction")
	assert.Zero(t, srv.RPCCalls()["sendTransaction"])
	assertBudget(t, budget, 0, 0)
	assert.Empty(t, budgettest.Outstanding(t, budget))
}

// failingSigner is a wallet whose signing device refuses.
type failingSigner struct{ pub solana.PublicKey }

func (s failingSigner) PublicKey() solana.PublicKey { return s.pub }
func (failingSigner) SignMessage([]byte) (solana.Signature, error) {
	return solana.Signature{}, errDropped
}

func TestBuyKeyWhenTheSendIsDroppedIsInDoubt(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	node := &faultyNode{method: "sendTransaction", forward: true}
	c := newClient(t, srv, gpuprice.WithRPCClient(nodeThrough(srv, node)))
	payer, key := newPayer(t, srv, usdc.Dollars(8))
	budget := budgetOf(t, 10_000_000)

	_, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
	require.ErrorIs(t, err, gpuprice.ErrPaymentInDoubt)
	pe := testkit.As[*gpuprice.PaymentError](t, err)
	assert.Equal(t, gpuprice.PaymentInDoubt, pe.Outcome)
	require.Len(t, srv.Transactions(), 1)
	assert.Equal(t, srv.Transactions()[0].Signature.String(), pe.Signature.Reveal(), "the error carries the signature")
	assert.NotContains(t, err.Error(), pe.Signature.Reveal())
	assert.Equal(t, "$3.00", usdc.Format(srv.USDCBalance(key.PublicKey())), "the payment did land")

	// The amount stays counted, signed and in doubt, until the caller resolves it.
	assertBudget(t, budget, 0, 5_000_000)
	out := budgettest.Outstanding(t, budget)
	require.Len(t, out, 1)
	assert.Equal(t, ledger.InDoubt, out[0].State)
	assert.Equal(t, pe.Signature.Reveal(), out[0].ID)
	assert.Equal(t, "solana", out[0].Rail)
	assert.Equal(t, srv.Treasury.String(), out[0].PayTo)
	assert.Equal(t, "gpuprice key pro", out[0].Resource)
	assert.True(t, out[0].Expires.After(time.Now()))
	assert.Equal(t, key.PublicKey().String(), out[0].Payer, "the hold names who paid")
	assert.Equal(t, gpuprice.USDCMint.String(), out[0].Asset)
	ref := strings.Fields(out[0].Ref)
	require.Len(t, ref, 4, "Ref is the blockhash, the last valid block height, the payer's USDC account and the memo: %q", out[0].Ref)
	_, err = solana.HashFromBase58(ref[0])
	assert.NoError(t, err, "a blockhash")
	_, err = strconv.ParseUint(ref[1], 10, 64)
	assert.NoError(t, err)
	source, _, err := solana.FindAssociatedTokenAddress(key.PublicKey(), gpuprice.USDCMint)
	require.NoError(t, err)
	assert.Equal(t, source.String(), ref[2], "the payer's USDC account")
	assert.Equal(t, hex.EncodeToString([]byte("API-PRO")), ref[3], "the memo, in hex")

	// The caller looks the payment up on chain, then redeems it with the signature.
	sig := solana.MustSignatureFromBase58(pe.Signature.Reveal())
	status, err := rpc.New(srv.RPCURL).GetSignatureStatuses(t.Context(), false, sig)
	require.NoError(t, err)
	require.NotNil(t, status.Value[0])
	assert.Equal(t, rpc.ConfirmationStatusConfirmed, status.Value[0].ConfirmationStatus)
	k, err := c.RedeemKey(t.Context(), pe.Signature.Reveal())
	require.NoError(t, err)
	scan.Add(k.Key.Reveal())
	require.NoError(t, budget.Resolve(t.Context(), pe.Signature.Reveal(), true))
	assertBudget(t, budget, 5_000_000, 0)
}

func TestBuyKeyWhenTheNodeIsUnreachableBeforeSendingReleases(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	node := &faultyNode{method: "getLatestBlockhash"}
	c := newClient(t, srv, gpuprice.WithRPCClient(nodeThrough(srv, node)))
	payer, _ := newPayer(t, srv, usdc.Dollars(8))
	budget := budgetOf(t, 10_000_000)

	_, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
	re := testkit.As[*svm.RPCError](t, err)
	assert.Equal(t, "getLatestBlockhash", re.Method)
	assert.NotContains(t, err.Error(), srv.RPCURL, "the node's URL is not quoted")
	assert.NotContains(t, sprintf("%#v", err), srv.RPCURL)
	assertBudget(t, budget, 0, 0)
	assert.Zero(t, srv.RPCCalls()["sendTransaction"])
}

func TestBuyKeyConfirmationTimeoutIsInDoubt(t *testing.T) {
	t.Parallel()
	srv := startFake(t, gpupricetest.WithConfirmAfter(1_000_000))
	clock := sdktest.NewClock(t0)
	c := newClient(t, srv, gpuprice.WithWait(sdk.WaitPolicy{Timeout: time.Second}), gpuprice.WithClock(clock))
	payer, _ := newPayer(t, srv, usdc.Dollars(8))
	budget := budgetOf(t, 10_000_000)

	_, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
	require.ErrorIs(t, err, gpuprice.ErrPaymentInDoubt)
	pe := testkit.As[*gpuprice.PaymentError](t, err)
	assert.Equal(t, gpuprice.PaymentInDoubt, pe.Outcome)
	we := testkit.As[*sdk.WaitError](t, err)
	assert.ErrorIs(t, err, sdk.ErrWaitTimeout, "the wait gave up on its timeout")
	assert.Equal(t, "gpuprice", we.Service)
	assert.Equal(t, "BuyKey", we.Operation)
	assert.GreaterOrEqual(t, srv.RPCCalls()["getSignatureStatuses"], 2, "it polled")
	assert.NotEmpty(t, clock.Waits(), "it waited between polls, on the test's clock")
	assert.LessOrEqual(t, clock.Now().Sub(t0), time.Second, "within the confirmation timeout")
	assertBudget(t, budget, 0, 5_000_000)
	require.Len(t, budgettest.Outstanding(t, budget), 1)
	assert.Equal(t, ledger.InDoubt, budgettest.Outstanding(t, budget)[0].State)
	assert.Zero(t, srv.RequestCount(http.MethodPost, gpupricetest.DefaultRedeemPath), "not redeemed before it is confirmed")
}

func TestBuyKeyRejectedByTheNodeStaysCountedUntilItExpires(t *testing.T) {
	t.Parallel()
	// Without the treasury's USDC account the transfer fails in the node's simulation.
	srv := startFake(t, gpupricetest.WithTreasuryATA(false))
	c := newClient(t, srv)
	payer, key := newPayer(t, srv, usdc.Dollars(8))
	budget := budgetOf(t, 10_000_000)

	_, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
	require.ErrorIs(t, err, gpuprice.ErrPaymentRefused)
	pe := testkit.As[*gpuprice.PaymentError](t, err)
	assert.Equal(t, gpuprice.PaymentRejected, pe.Outcome)
	re := testkit.As[*svm.RPCError](t, err)
	assert.Equal(t, -32002, re.Code)
	assert.Equal(t, "$8.00", usdc.Format(srv.USDCBalance(key.PublicKey())), "nothing moved")
	assertBudget(t, budget, 0, 5_000_000)
	require.Len(t, budgettest.Outstanding(t, budget), 1)
	assert.Equal(t, ledger.Refused, budgettest.Outstanding(t, budget)[0].State, "counted until its blockhash expires")

	// The same purchase creating the account goes through.
	p := purchase(srv, payer, budget)
	p.CreateTreasuryAccount = true
	bought, err := c.BuyKey(t.Context(), p)
	require.NoError(t, err)
	scan.Add(bought.Key.Reveal())
	assert.True(t, srv.TokenAccountExists(srv.TreasuryATA()))
	assertBudget(t, budget, 5_000_000, 5_000_000)
}

func TestBuyKeyWithoutANode(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL))
	require.NoError(t, err)
	payer, _ := newPayer(t, srv, usdc.Dollars(8))
	_, err = c.BuyKey(t.Context(), purchase(srv, payer, nil))
	assert.Equal(t, "RPC URL", testkit.As[*sdk.ValidationError](t, err).Field)
}

func TestBuyKeyWithoutABudgetStillAccounts(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	payer, _ := newPayer(t, srv, usdc.Dollars(19))
	p := purchase(srv, payer, nil)
	p.Plan = gpuprice.PlanUnlimited

	bought, err := c.BuyKey(t.Context(), p)
	require.NoError(t, err)
	scan.Add(bought.Key.Reveal())
	assert.Equal(t, gpuprice.PlanUnlimited, bought.Plan)
	assert.Equal(t, []string{"API-ULTRA"}, memoTexts(srv))
	assert.Equal(t, "$19.00", usdc.Format(srv.USDCBalance(srv.Treasury)))
}

// A payment the service keeps calling unconfirmed is redeemed again within the WithWait
// policy, then left to the caller with an *sdk.WaitError that matches the last refusal.
func TestBuyKeyRedemptionWaitGivesUpWithAWaitError(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	clock := sdktest.NewClock(t0)
	c := newClient(t, srv, gpuprice.WithWait(sdk.WaitPolicy{MaxAttempts: 2}), gpuprice.WithClock(clock))
	payer, _ := newPayer(t, srv, usdc.Dollars(8))
	notYet := sdktest.Fault{Method: http.MethodPost, Path: gpupricetest.DefaultRedeemPath, Status: http.StatusConflict,
		Code: "tx_not_confirmed", Message: "not confirmed yet"}
	srv.InjectFaults(notYet, notYet)

	_, err := c.BuyKey(t.Context(), purchase(srv, payer, budgetOf(t, 10_000_000)))
	require.ErrorIs(t, err, gpuprice.ErrNotRedeemed)
	require.ErrorIs(t, err, sdk.ErrWaitAttempts)
	require.ErrorIs(t, err, gpuprice.ErrTxNotConfirmed, "the last refusal")
	we := testkit.As[*sdk.WaitError](t, err)
	assert.Equal(t, 2, we.Attempts)
	assert.Equal(t, 2, srv.RequestCount(http.MethodPost, gpupricetest.DefaultRedeemPath))
	require.Len(t, clock.Waits(), 1)
	assert.GreaterOrEqual(t, clock.Waits()[0], 500*time.Millisecond, "the default delay, 1 s, drawn in its upper half")
}

func TestBuyKeyRedemptionFailureCarriesTheSignature(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	payer, _ := newPayer(t, srv, usdc.Dollars(8))
	budget := budgetOf(t, 10_000_000)
	srv.InjectFaults(sdktest.Fault{Method: http.MethodPost, Path: gpupricetest.DefaultRedeemPath, Status: http.StatusInternalServerError, Code: "internal", Message: "database down"})

	_, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
	require.ErrorIs(t, err, gpuprice.ErrNotRedeemed)
	pe := testkit.As[*gpuprice.PaymentError](t, err)
	assert.Equal(t, http.StatusInternalServerError, testkit.As[*sdk.APIError](t, err).StatusCode)
	assertBudget(t, budget, 5_000_000, 0) // confirmed: the money is spent

	k, err := c.RedeemKey(t.Context(), pe.Signature.Reveal())
	require.NoError(t, err, "redeeming again with the signature gets the key")
	scan.Add(k.Key.Reveal())
	assert.Equal(t, gpuprice.PlanPro, k.Plan)
}

// payWrongly sends a USDC transfer of amount to the wallet to with the memo, outside the
// SDK, and returns its signature once confirmed.
func payWrongly(t *testing.T, srv *gpupricetest.Server, payer solana.PrivateKey, to solana.PublicKey, amount uint64, memo string) string {
	t.Helper()
	node := rpc.New(srv.RPCURL)
	from, _, err := solana.FindAssociatedTokenAddress(payer.PublicKey(), gpuprice.USDCMint)
	require.NoError(t, err)
	dst, _, err := solana.FindAssociatedTokenAddress(to, gpuprice.USDCMint)
	require.NoError(t, err)
	bh, err := node.GetLatestBlockhash(t.Context(), rpc.CommitmentConfirmed)
	require.NoError(t, err)
	ixs := []solana.Instruction{
		token.NewTransferCheckedInstruction(amount, 6, from, gpuprice.USDCMint, dst, payer.PublicKey(), nil).Build(),
		solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{solana.Meta(payer.PublicKey()).SIGNER()}, []byte(memo)),
	}
	tx, err := solana.NewTransaction(ixs, bh.Value.Blockhash, solana.TransactionPayer(payer.PublicKey()))
	require.NoError(t, err)
	_, err = tx.Sign(func(solana.PublicKey) *solana.PrivateKey { return &payer })
	require.NoError(t, err)
	sig, err := node.SendTransaction(t.Context(), tx)
	require.NoError(t, err)
	_, err = node.GetSignatureStatuses(t.Context(), false, sig)
	require.NoError(t, err)
	scan.Add(sig.String())
	return sig.String()
}

func TestRedeemRefusesWrongPayments(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	_, payer := newPayer(t, srv, usdc.Dollars(100))
	other := solana.NewWallet().PublicKey()
	srv.FundUSDC(other, new(big.Int)) // its USDC account exists

	for _, tc := range []struct {
		name   string
		to     solana.PublicKey
		amount uint64
		memo   string
		want   error
	}{
		{"wrong memo", srv.Treasury, 5_000_000, "\aAPI-PRO", gpuprice.ErrWrongMemo},
		{"wrong amount", srv.Treasury, 4_000_000, "API-PRO", gpuprice.ErrInsufficientAmount},
		{"unlimited paid at the pro price", srv.Treasury, 5_000_000, "API-ULTRA", gpuprice.ErrInsufficientAmount},
		{"wrong treasury", other, 5_000_000, "API-PRO", gpuprice.ErrWrongDestination},
	} {
		sig := payWrongly(t, srv, payer, tc.to, tc.amount, tc.memo)
		_, err := c.RedeemKey(t.Context(), sig)
		require.ErrorIs(t, err, tc.want, tc.name)
		ae := testkit.As[*sdk.APIError](t, err)
		assert.Equal(t, http.StatusUnprocessableEntity, ae.StatusCode, tc.name)
		assert.NotContains(t, err.Error(), sig, tc.name)
	}
	_, err := c.History(t.Context(), nil)
	require.ErrorIs(t, err, gpuprice.ErrKeyRequired, "no key was installed")
}

func TestRedeemKeyValidatesTheSignature(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)
	valid := solana.Signature{7, 7, 7}.String()
	for _, sig := range []string{"", "0OIl", strings.Repeat("1", 20), "1" + valid, solana.PublicKey{1}.String(), valid + " "} {
		_, err := c.RedeemKey(t.Context(), sig)
		assert.Equal(t, "tx_signature", testkit.As[*sdk.ValidationError](t, err).Field, sig)
	}
	assert.Empty(t, srv.Requests())
}

func TestRedeemKeyPathIsConfigurable(t *testing.T) {
	t.Parallel()
	srv := startFake(t, gpupricetest.WithRedeemPath("/v1/billing/redeem"))
	c := newClient(t, srv, gpuprice.WithRedeemPath("/v1/billing/redeem"))
	_, key := newPayer(t, srv, usdc.Dollars(5))
	sig := payWrongly(t, srv, key, srv.Treasury, 5_000_000, "API-PRO")

	k, err := c.RedeemKey(t.Context(), sig)
	require.NoError(t, err)
	scan.Add(k.Key.Reveal())
	assert.Equal(t, 1, srv.RequestCount(http.MethodPost, "/v1/billing/redeem"))
	assert.False(t, sentKey(srv.Requests()[0]))
}

func TestRPCErrorsNeverQuoteTheNodeURL(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	const access = "rpc-access-key-5f3e9a"
	scan.Add(access)
	c, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL), gpuprice.WithRPCURL("http://127.0.0.1:1/v2/"+access+"?api-key="+access))
	require.NoError(t, err)
	payer, _ := newPayer(t, srv, usdc.Dollars(8))
	budget := budgetOf(t, 10_000_000)

	_, err = c.BuyKey(t.Context(), purchase(srv, payer, budget))
	re := testkit.As[*svm.RPCError](t, err)
	assert.Equal(t, "getTokenAccountBalance", re.Method)
	for _, text := range []string{err.Error(), sprintf("%+v", err), sprintf("%#v", err), re.Err.Error()} {
		assert.NotContains(t, text, access)
	}
	assertBudget(t, budget, 0, 0)
}

// echoingNode answers sendTransaction, after forwarding it, with a node error whose message,
// logs and transaction error echo the transaction's signature.
type echoingNode struct{}

func (echoingNode) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	if rpcMethod(body) != "sendTransaction" {
		return http.DefaultTransport.RoundTrip(req)
	}
	var call struct {
		ID     json.RawMessage `json:"id"`
		Params []json.RawMessage
	}
	if err := json.Unmarshal(body, &call); err != nil || len(call.Params) == 0 {
		return nil, errors.New("bad call")
	}
	var encoded string
	_ = json.Unmarshal(call.Params[0], &encoded)
	tx, err := solana.TransactionFromBase64(encoded)
	if err != nil {
		return nil, err
	}
	sig := tx.Signatures[0].String()
	answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32002,"message":"Transaction %s simulation failed",`+
		`"data":{"err":{"Note":%q},"logs":["Program log: %s"]}}}`, call.ID, sig, sig, sig)
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(answer)), Request: req}, nil
}

func TestANodeErrorEchoingTheSignatureDoesNotLeakIt(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv, gpuprice.WithRPCClient(nodeThrough(srv, echoingNode{})))
	payer, _ := newPayer(t, srv, usdc.Dollars(8))
	_, err := c.BuyKey(t.Context(), purchase(srv, payer, budgetOf(t, 10_000_000)))
	pe := testkit.As[*gpuprice.PaymentError](t, err)
	sig := pe.Signature.Reveal()
	require.NotEmpty(t, sig)
	var rerr *svm.RPCError
	require.ErrorAs(t, err, &rerr)
	for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", rerr), rerr.Message, strings.Join(rerr.Logs, "\n"), string(rerr.TransactionError)} {
		assert.NotContains(t, text, sig)
	}
	assert.Contains(t, rerr.Message, "[REDACTED]", "the echo is visibly scrubbed")
}
