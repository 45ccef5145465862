package interop_test

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/svm"
)

// The runtime's charges the tests expect, as litesvm makes them.
const (
	feeLamports  = 5_000     // one signature
	rentLamports = 2_039_280 // a token account's rent-exempt minimum
	budgetLimit  = 50_000_000
)

// solanaPayer returns a fresh wallet holding usdc and lamports on node, as a signer whose
// private key the secret scan knows.
func solanaPayer(t testing.TB, node *solanaNode, usdc, lamports uint64) (*svm.PrivateKeySigner, solana.PublicKey) {
	t.Helper()
	key := solana.NewWallet().PrivateKey
	scan.Add(key.String())
	node.setUSDC(t, key.PublicKey(), usdc)
	if lamports > 0 {
		node.setSOL(t, key.PublicKey(), lamports)
	}
	signer, err := svm.NewPrivateKeySigner(key)
	require.NoError(t, err)
	return signer, key.PublicKey()
}

// solanaClient returns a gpuprice client whose key redemption is svc and whose Solana node
// is node, through tap.
func solanaClient(t *testing.T, node *solanaNode, svc *keyService, tap *nodeTap) *gpuprice.Client {
	t.Helper()
	c, err := gpuprice.New(gpuprice.WithBaseURL(svc.URL), gpuprice.WithRPCClient(node.client(tap)),
		gpuprice.WithRetry(testkit.NoRetry))
	require.NoError(t, err)
	return c
}

// newBudget returns a budget of budgetLimit atomic USDC units, in the store
// budgettest.EnvStore names.
func newBudget(t *testing.T) *budget.Budget {
	t.Helper()
	return budgettest.NewBudget(t, budgettest.Selected(t), big.NewInt(budgetLimit), sdk.SystemClock())
}

// assertHeld checks what a budget has spent and still holds.
func assertHeld(t *testing.T, b *budget.Budget, spent, reserved uint64) {
	t.Helper()
	assert.Equal(t, new(big.Int).SetUint64(spent).String(), budgettest.Spent(t, b).String(), "spent")
	assert.Equal(t, new(big.Int).SetUint64(reserved).String(), budgettest.Reserved(t, b).String(), "reserved")
}

func TestSolanaKeysBoughtOnTheRuntime(t *testing.T) {
	t.Parallel()
	node := startSolanaNode(t)
	for _, tc := range []struct {
		plan    gpuprice.Plan
		price   uint64
		memo    string
		memoLen int
		create  bool // the treasury has no USDC account yet: the purchase creates it
	}{
		{gpuprice.PlanPro, 5_000_000, "API-PRO", 7, false},
		{gpuprice.PlanUnlimited, 19_000_000, "API-ULTRA", 9, true},
	} {
		t.Run(string(tc.plan), func(t *testing.T) {
			treasury := solana.NewWallet().PublicKey()
			if !tc.create {
				node.setUSDC(t, treasury, 0)
			}
			payer, wallet := solanaPayer(t, node, 20_000_000, 10_000_000)
			svc := startKeyService(t, node, treasury)
			tap := &nodeTap{}
			c := solanaClient(t, node, svc, tap)
			budget := newBudget(t)

			bought, err := c.BuyKey(t.Context(), &gpuprice.BuyKeyParams{
				Plan: tc.plan, Payer: payer, Treasury: treasury, CreateTreasuryAccount: tc.create, Budget: budget})
			require.NoError(t, err)
			scan.Add(bought.Key.Reveal(), bought.TxSignature.Reveal())
			sig := solana.MustSignatureFromBase58(bought.TxSignature.Reveal())
			requireKeyFor(t, svc, sig, bought.Key.Reveal())
			assert.Equal(t, tc.plan, bought.Plan)
			assertHeld(t, budget, tc.price, 0)
			assert.Empty(t, budgettest.Outstanding(t, budget))

			rent := uint64(0)
			if tc.create {
				rent = rentLamports
			}
			assert.Equal(t, 20_000_000-tc.price, node.usdc(t, wallet))
			assert.Equal(t, tc.price, node.usdc(t, treasury))
			assert.Equal(t, uint64(10_000_000-feeLamports-rent), node.sol(t, wallet), "the fee and any rent, in SOL")

			res := node.transaction(t, sig)
			assert.Equal(t, uint64(feeLamports), res.Meta.Fee)
			logs := strings.Join(res.Meta.LogMessages, "\n")
			memoLog := fmt.Sprintf("Program log: Memo (len %d)\nProgram log: %s\n", tc.memoLen, tc.memo)
			assert.Contains(t, logs, memoLog, "the Memo program logged exactly the memo")
			assert.Equal(t, 1, strings.Count(logs, "Program log: Memo ("), "one memo")
			assert.Equal(t, 1, tap.calls("sendTransaction"))
			assert.Equal(t, 1, tap.calls("getFeeForMessage"), "the fee is the runtime's")
		})
	}
}

func TestSolanaPurchasesTheRuntimeWouldRefuseAreNotSent(t *testing.T) {
	t.Parallel()
	node := startSolanaNode(t)
	for _, tc := range []struct {
		name     string
		lamports uint64
		create   bool
		want     gpuprice.InsufficientSOLError
		runtime  string // what the runtime says of the same transaction
		logged   string // a line of its logs, when it ran any
	}{
		{name: "no SOL", want: gpuprice.InsufficientSOLError{Need: feeLamports, Fee: feeLamports},
			runtime: "Attempt to debit an account but found no record of a prior credit."},
		{name: "the fee but not the rent", lamports: 1_000_000, create: true,
			want:    gpuprice.InsufficientSOLError{Have: 1_000_000, Need: feeLamports + rentLamports, Fee: feeLamports, Rent: rentLamports},
			runtime: "Error processing Instruction 0: custom program error: 0x1",
			logged:  "Program 11111111111111111111111111111111 failed: custom program error: 0x1"},
		{name: "a wallet left below its rent-exempt minimum", lamports: 895_000,
			want:    gpuprice.InsufficientSOLError{Have: 895_000, Need: feeLamports + 890_880, Fee: feeLamports, Reserve: 890_880},
			runtime: "Transaction results in an account (0) with insufficient funds for rent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			treasury := solana.NewWallet().PublicKey()
			if !tc.create {
				node.setUSDC(t, treasury, 0)
			}
			payer, wallet := solanaPayer(t, node, 10_000_000, tc.lamports)
			tap := &nodeTap{}
			c := solanaClient(t, node, startKeyService(t, node, treasury), tap)
			budget := newBudget(t)
			p := &gpuprice.BuyKeyParams{Plan: gpuprice.PlanPro, Payer: payer, Treasury: treasury, CreateTreasuryAccount: tc.create, Budget: budget}

			_, err := c.BuyKey(t.Context(), p)
			require.ErrorIs(t, err, gpuprice.ErrInsufficientSOL)
			var short *gpuprice.InsufficientSOLError
			require.True(t, errors.As(err, &short))
			assert.Equal(t, tc.want, *short)
			assert.Zero(t, tap.calls("sendTransaction"), "nothing was sent")
			assertHeld(t, budget, 0, 0)
			assert.Empty(t, budgettest.Outstanding(t, budget))
			assert.Equal(t, uint64(10_000_000), node.usdc(t, wallet))
			assert.Equal(t, tc.lamports, node.sol(t, wallet))

			// The runtime refuses the same transaction.
			bh, err := node.RPC.GetLatestBlockhash(t.Context(), rpc.CommitmentConfirmed)
			require.NoError(t, err)
			p.Budget = nil
			tx, err := gpuprice.BuildKeyPayment(p, bh.Value.Blockhash)
			require.NoError(t, err)
			scan.Add(tx.Signatures[0].String())
			_, err = node.RPC.SendTransaction(t.Context(), tx)
			var refused *jsonrpc.RPCError
			require.True(t, errors.As(err, &refused), "the runtime refuses it: %v", err)
			assert.Equal(t, -32002, refused.Code)
			assert.Equal(t, "Transaction simulation failed: "+tc.runtime, refused.Message)
			if tc.logged != "" {
				assert.Contains(t, refused.Data.(map[string]any)["logs"], tc.logged)
			}
		})
	}
}

func TestSolanaRuntimeRefusalsNameTheInstructionAndKeepTheLogs(t *testing.T) {
	t.Parallel()
	node := startSolanaNode(t)
	for _, tc := range []struct {
		name     string
		create   bool
		spend    func(t *testing.T, wallet solana.PublicKey) // what the wallet spends elsewhere before the payment arrives
		program  solana.PublicKey
		failedIn solana.PublicKey
		logged   string
		text     string
	}{
		{name: "short USDC", spend: func(t *testing.T, wallet solana.PublicKey) { node.setUSDC(t, wallet, 1_000_000) },
			program: solana.TokenProgramID, failedIn: solana.TokenProgramID,
			logged: "Program log: Error: insufficient funds",
			text:   "(instruction 0 (Token program) failed: custom program error 0x1, insufficient funds)"},
		{name: "short SOL for the rent", create: true, spend: func(t *testing.T, wallet solana.PublicKey) { node.setSOL(t, wallet, 1_000_000) },
			program: solana.SPLAssociatedTokenAccountProgramID, failedIn: solana.SystemProgramID,
			logged: "Transfer: insufficient lamports 995000, need 2039280",
			text:   "(instruction 0 (Associated Token Account program) failed in the System program: custom program error 0x1, not enough SOL)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			treasury := solana.NewWallet().PublicKey()
			if !tc.create {
				node.setUSDC(t, treasury, 0)
			}
			payer, wallet := solanaPayer(t, node, 10_000_000, 10_000_000)
			tap := &nodeTap{beforeSend: func() { tc.spend(t, wallet) }}
			c := solanaClient(t, node, startKeyService(t, node, treasury), tap)
			budget := newBudget(t)

			_, err := c.BuyKey(t.Context(), &gpuprice.BuyKeyParams{
				Plan: gpuprice.PlanPro, Payer: payer, Treasury: treasury, CreateTreasuryAccount: tc.create, Budget: budget})
			require.ErrorIs(t, err, gpuprice.ErrPaymentRefused)
			var pe *gpuprice.PaymentError
			require.True(t, errors.As(err, &pe))
			assert.Equal(t, gpuprice.PaymentRejected, pe.Outcome)
			var re *svm.RPCError
			require.True(t, errors.As(err, &re))
			assert.Equal(t, "sendTransaction", re.Method)
			assert.Equal(t, -32002, re.Code)
			assert.Equal(t, "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1", re.Message,
				"the node's text alone does not tell the two apart")
			assert.JSONEq(t, `{"InstructionError":[0,{"Custom":1}]}`, string(re.TransactionError))
			require.NotNil(t, re.Instruction)
			assert.Equal(t, 0, re.Instruction.Index)
			assert.Equal(t, tc.program, re.Instruction.Program)
			assert.Equal(t, tc.failedIn, re.Instruction.FailedIn)
			require.NotNil(t, re.Instruction.Custom)
			assert.Equal(t, uint32(1), *re.Instruction.Custom)
			assert.Contains(t, re.Logs, tc.logged)
			assert.Contains(t, re.Logs, "Program "+tc.program.String()+" failed: custom program error: 0x1")
			assert.Contains(t, err.Error(), tc.text)
			assert.NotContains(t, err.Error(), pe.Signature.Reveal())
			assertHeld(t, budget, 0, 5_000_000) // signed: counted until its blockhash expires
			require.Len(t, budgettest.Outstanding(t, budget), 1)
			assert.Equal(t, ledger.Refused, budgettest.Outstanding(t, budget)[0].State)
			assert.Zero(t, node.usdc(t, treasury), "nothing arrived")
		})
	}
}

func TestSolanaAnExpiredBlockhashIsRefusedAsAWhole(t *testing.T) {
	t.Parallel()
	node := startSolanaNode(t)
	treasury := solana.NewWallet().PublicKey()
	node.setUSDC(t, treasury, 0)
	payer, wallet := solanaPayer(t, node, 10_000_000, 10_000_000)
	// 151 slots pass between the blockhash and the payment: the blockhash has expired.
	tap := &nodeTap{beforeSend: func() { node.call(t, "test_advanceSlots", 151) }}
	c := solanaClient(t, node, startKeyService(t, node, treasury), tap)
	budget := newBudget(t)

	_, err := c.BuyKey(t.Context(), &gpuprice.BuyKeyParams{Plan: gpuprice.PlanPro, Payer: payer, Treasury: treasury, Budget: budget})
	require.ErrorIs(t, err, gpuprice.ErrPaymentRefused)
	var re *svm.RPCError
	require.True(t, errors.As(err, &re))
	assert.Equal(t, -32002, re.Code)
	assert.Equal(t, "Transaction simulation failed: Blockhash not found", re.Message)
	assert.JSONEq(t, `"BlockhashNotFound"`, string(re.TransactionError))
	assert.Nil(t, re.Instruction, "no instruction ran")
	assert.Empty(t, re.Logs)
	assertHeld(t, budget, 0, 5_000_000)
	assert.Equal(t, uint64(10_000_000), node.usdc(t, wallet))
	assert.Equal(t, uint64(10_000_000), node.sol(t, wallet), "a transaction that never lands costs nothing")
}
