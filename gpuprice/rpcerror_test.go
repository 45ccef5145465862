package gpuprice_test

import (
	"bytes"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"sync"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/usdc"
)

// beforeSend is a transport to the fake node that runs hook once, just before it forwards
// the first sendTransaction: the wallet spends elsewhere between BuyKey's checks and its
// payment.
type beforeSend struct {
	hook func()
	once sync.Once
}

// RoundTrip runs the hook before the first sendTransaction and forwards req.
func (b *beforeSend) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	if rpcMethod(body) == "sendTransaction" {
		b.once.Do(b.hook)
	}
	return http.DefaultTransport.RoundTrip(req)
}

// sendElsewhere sends, confirmed, a transaction of ixs paid and signed by key on srv.
func sendElsewhere(t *testing.T, srv *gpupricetest.Server, key solana.PrivateKey, ixs ...solana.Instruction) {
	t.Helper()
	node := rpc.New(srv.RPCURL)
	bh, err := node.GetLatestBlockhash(t.Context(), rpc.CommitmentConfirmed)
	require.NoError(t, err)
	tx, err := solana.NewTransaction(ixs, bh.Value.Blockhash, solana.TransactionPayer(key.PublicKey()))
	require.NoError(t, err)
	_, err = tx.Sign(func(solana.PublicKey) *solana.PrivateKey { return &key })
	require.NoError(t, err)
	sig, err := node.SendTransaction(t.Context(), tx)
	require.NoError(t, err)
	scan.Add(sig.String())
}

// createAccountOf is the associated token account program's CreateIdempotent of wallet's
// USDC account, paid by payer.
func createAccountOf(payer, wallet solana.PublicKey) solana.Instruction {
	ata, _, _ := solana.FindAssociatedTokenAddress(wallet, gpuprice.USDCMint)
	return solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID, solana.AccountMetaSlice{
		solana.Meta(payer).WRITE().SIGNER(), solana.Meta(ata).WRITE(), solana.Meta(wallet), solana.Meta(gpuprice.USDCMint),
		solana.Meta(solana.SystemProgramID), solana.Meta(solana.TokenProgramID),
	}, []byte{1})
}

// refusal returns the node's *RPCError of a purchase the node refused, checking that the
// payment stays counted and that the error quotes no signature.
func refusal(t *testing.T, err error) *svm.RPCError {
	t.Helper()
	require.ErrorIs(t, err, gpuprice.ErrPaymentRefused)
	pe := testkit.As[*gpuprice.PaymentError](t, err)
	assert.Equal(t, gpuprice.PaymentRejected, pe.Outcome)
	assert.NotContains(t, sprintf("%v %+v %#v", err, err, err), pe.Signature.Reveal())
	re := testkit.As[*svm.RPCError](t, err)
	assert.Equal(t, "sendTransaction", re.Method)
	assert.Equal(t, -32002, re.Code)
	return re
}

func TestARefusalForShortUSDCNamesTheTokenProgram(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	payer, key := newPayer(t, srv, usdc.Dollars(8))
	elsewhere := solana.NewWallet().PublicKey()
	srv.FundUSDC(elsewhere, new(big.Int))
	spend := &beforeSend{hook: func() {
		from, _, _ := solana.FindAssociatedTokenAddress(key.PublicKey(), gpuprice.USDCMint)
		to, _, _ := solana.FindAssociatedTokenAddress(elsewhere, gpuprice.USDCMint)
		sendElsewhere(t, srv, key, token.NewTransferCheckedInstruction(4_000_000, 6, from, gpuprice.USDCMint, to, key.PublicKey(), nil).Build())
	}}
	c := newClient(t, srv, gpuprice.WithRPCClient(nodeThrough(srv, spend)))
	budget := budgetOf(t, 10_000_000)

	_, err := c.BuyKey(t.Context(), purchase(srv, payer, budget))
	re := refusal(t, err)
	assert.JSONEq(t, `{"InstructionError":[0,{"Custom":1}]}`, string(re.TransactionError))
	one := uint32(1)
	assert.Equal(t, &svm.InstructionFailure{Index: 0, Program: solana.TokenProgramID, FailedIn: solana.TokenProgramID,
		Reason: json.RawMessage(`{"Custom":1}`), Custom: &one}, re.Instruction)
	assert.Equal(t, []string{
		"Program " + solana.TokenProgramID.String() + " invoke [1]",
		"Program log: Instruction: TransferChecked",
		"Program log: Error: insufficient funds",
		"Program " + solana.TokenProgramID.String() + " failed: custom program error: 0x1",
	}, re.Logs)
	assert.Equal(t, "gpuprice: Solana RPC sendTransaction: Transaction simulation failed: Error processing Instruction 0: "+
		"custom program error: 0x1 (instruction 0 (Token program) failed: custom program error 0x1, insufficient funds)", re.Error())
	assert.Equal(t, "$4.00", usdc.Format(srv.USDCBalance(key.PublicKey())), "only the other payment moved")
	assertBudget(t, budget, 0, 5_000_000)
}

func TestARefusalForShortSOLNamesTheSystemProgram(t *testing.T) {
	t.Parallel()
	srv := startFake(t, gpupricetest.WithTreasuryATA(false))
	payer, key := newPayer(t, srv, usdc.Dollars(8))
	spend := &beforeSend{hook: func() { // four accounts' rent leaves the wallet 1,837,880 lamports
		var ixs []solana.Instruction
		for range 4 {
			ixs = append(ixs, createAccountOf(key.PublicKey(), solana.NewWallet().PublicKey()))
		}
		sendElsewhere(t, srv, key, ixs...)
	}}
	c := newClient(t, srv, gpuprice.WithRPCClient(nodeThrough(srv, spend)))
	budget := budgetOf(t, 10_000_000)
	p := purchase(srv, payer, budget)
	p.CreateTreasuryAccount = true

	_, err := c.BuyKey(t.Context(), p)
	re := refusal(t, err)
	assert.Equal(t, "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1", re.Message,
		"the node's text is the same as for short USDC")
	require.NotNil(t, re.Instruction)
	assert.Equal(t, 0, re.Instruction.Index)
	assert.Equal(t, solana.SPLAssociatedTokenAccountProgramID, re.Instruction.Program)
	assert.Equal(t, solana.SystemProgramID, re.Instruction.FailedIn)
	require.NotNil(t, re.Instruction.Custom)
	assert.Equal(t, uint32(1), *re.Instruction.Custom)
	assert.Contains(t, re.Logs, "Transfer: insufficient lamports 1832880, need 2039280")
	assert.Contains(t, re.Error(), "(instruction 0 (Associated Token Account program) failed in the System program: "+
		"custom program error 0x1, not enough SOL)")
	assert.False(t, srv.TokenAccountExists(srv.TreasuryATA()))
	assertBudget(t, budget, 0, 5_000_000)
}

func TestARefusalNamesAnInstructionErrorWithoutACode(t *testing.T) {
	t.Parallel()
	srv := startFake(t, gpupricetest.WithTreasuryATA(false)) // the transfer's destination is missing
	c := newClient(t, srv)
	payer, _ := newPayer(t, srv, usdc.Dollars(8))

	_, err := c.BuyKey(t.Context(), purchase(srv, payer, budgetOf(t, 10_000_000)))
	re := refusal(t, err)
	require.NotNil(t, re.Instruction)
	assert.Equal(t, svm.InstructionFailure{Index: 0, Program: solana.TokenProgramID, FailedIn: solana.TokenProgramID,
		Reason: json.RawMessage(`"InvalidAccountData"`)}, *re.Instruction)
	assert.Contains(t, re.Error(), "(instruction 0 (Token program) failed: InvalidAccountData)")
}

func TestARefusalOfTheWholeTransactionHasNoInstruction(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	const access = "node-access-key-8b1c2d"
	scan.Add(access)
	nodeURL := srv.RPCURL + "/rpc/" + access
	answer := `{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Transaction simulation failed: Blockhash not found",` +
		`"data":{"accounts":null,"err":"BlockhashNotFound","logs":["forwarded by ` + nodeURL + `"],"unitsConsumed":0}}}`
	c := newClient(t, srv, gpuprice.WithRPCClient(rpc.NewWithCustomRPCClient(jsonrpc.NewClientWithOpts(nodeURL,
		&jsonrpc.RPCClientOpts{HTTPClient: &http.Client{Transport: cannedNode{"sendTransaction", answer}}}))))
	payer, _ := newPayer(t, srv, usdc.Dollars(8))

	_, err := c.BuyKey(t.Context(), purchase(srv, payer, budgetOf(t, 10_000_000)))
	re := refusal(t, err)
	assert.Equal(t, json.RawMessage(`"BlockhashNotFound"`), re.TransactionError)
	assert.Nil(t, re.Instruction)
	assert.Equal(t, []string{"forwarded by [rpc url]"}, re.Logs, "no URL is kept, not even in the logs")
	assert.Equal(t, "gpuprice: Solana RPC sendTransaction: Transaction simulation failed: Blockhash not found", re.Error())
}
