package solanafake_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/solanafake"
	"github.com/agentapis/sdk/internal/testkit"
)

// post sends body to f's node and returns the answer's body.
func (f *fixture) post(t *testing.T, body string) []byte {
	t.Helper()
	a := testkit.Do(t, http.DefaultClient, http.MethodPost, f.url, body, map[string]string{"Content-Type": "application/json"})
	require.Equal(t, http.StatusOK, a.Status)
	return a.Body
}

func TestSimulateTransactionAcceptsTheFeePayersZeroSignatureWithoutSigVerify(t *testing.T) {
	t.Parallel()
	f := start(t)
	facilitator, payer := f.wallet(1_000_000_000), f.wallet(0)
	seller := solana.NewWallet().PublicKey()
	f.cluster.FundToken(usdc, payer.PublicKey(), 10_000)
	f.cluster.FundToken(usdc, seller, 0)
	tx := x402Payment(t, f, facilitator.PublicKey(), payer, seller, usdc, 10_000)

	sim, err := f.node.SimulateTransactionWithOpts(t.Context(), tx, &rpc.SimulateTransactionOpts{Commitment: rpc.CommitmentConfirmed})
	require.NoError(t, err)
	assert.Nil(t, sim.Value.Err)
	assert.Contains(t, sim.Value.Logs, "Program log: Instruction: TransferChecked")
	require.NotNil(t, sim.Value.UnitsConsumed)
	assert.Equal(t, uint64(12_500), *sim.Value.UnitsConsumed)
	assert.Nil(t, sim.Value.Accounts)
	assert.NotZero(t, sim.Context.Slot)

	_, err = f.node.SimulateTransactionWithOpts(t.Context(), tx, &rpc.SimulateTransactionOpts{SigVerify: true})
	e := rpcError(t, err)
	assert.Equal(t, solanafake.CodeSignatureVerification, e.Code, "with sigVerify the zero signature fails")

	_, err = f.node.SendTransactionWithOpts(t.Context(), tx, rpc.TransactionOpts{SkipPreflight: true})
	require.NoError(t, err, "sent without preflight, its signature is answered")
	assert.Equal(t, solanafake.OutcomeDropped, f.cluster.Received()[0].Outcome, "but it never lands")
	_, err = f.node.SendTransactionWithOpts(t.Context(), tx, rpc.TransactionOpts{})
	assert.Equal(t, solanafake.CodeSignatureVerification, rpcError(t, err).Code)

	sign(t, tx, facilitator)
	sim, err = f.node.SimulateTransactionWithOpts(t.Context(), tx, &rpc.SimulateTransactionOpts{SigVerify: true})
	require.NoError(t, err)
	assert.Nil(t, sim.Value.Err)
	sig, err := f.node.SendTransactionWithOpts(t.Context(), tx, rpc.TransactionOpts{SkipPreflight: true})
	require.NoError(t, err)
	assert.Equal(t, tx.Signatures[0], sig)
	assert.Equal(t, uint64(10_000), f.cluster.TokenBalance(usdc, seller))
	assert.Equal(t, map[string]int{"simulateTransaction": 3, "sendTransaction": 3}, f.cluster.Calls())
}

func TestSimulateTransactionAnswersAFailureInItsValue(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	f.cluster.FundToken(usdc, payer.PublicKey(), 1)
	tx := f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, pay(payer.PublicKey(), payer.PublicKey(), usdc, 2))
	wire, err := tx.MarshalBinary()
	require.NoError(t, err)

	var answer struct {
		Result struct {
			Context map[string]any `json:"context"`
			Value   map[string]any `json:"value"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(f.post(t, `{"jsonrpc":"2.0","id":1,"method":"simulateTransaction","params":["`+encode(wire)+`",{"encoding":"base64"}]}`), &answer))
	v := answer.Result.Value
	assert.Equal(t, map[string]any{"InstructionError": []any{0.0, map[string]any{"Custom": 1.0}}}, v["err"])
	assert.Contains(t, v["logs"], "Program log: Error: insufficient funds")
	for _, key := range []string{"accounts", "returnData", "innerInstructions", "replacementBlockhash"} {
		assert.Contains(t, v, key)
		assert.Nil(t, v[key], key)
	}
	assert.InDelta(t, 6_200, v["unitsConsumed"], 0)
	assert.Contains(t, answer.Result.Context, "apiVersion")

	tx.Message.RecentBlockhash = solana.Hash{9}
	sim, err := f.node.SimulateTransaction(t.Context(), tx)
	require.NoError(t, err)
	assert.Equal(t, "BlockhashNotFound", sim.Value.Err, "a node answers a stale blockhash in the value")
	assert.Empty(t, sim.Value.Logs)
	assert.Equal(t, uint64(1), f.cluster.TokenBalance(usdc, payer.PublicKey()))
}

func TestSimulateTransactionReplacesTheBlockhash(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	tx, err := solana.NewTransaction([]solana.Instruction{memo("x")}, solana.Hash{9}, solana.TransactionPayer(payer.PublicKey()))
	require.NoError(t, err)
	wire, err := tx.MarshalBinary()
	require.NoError(t, err)

	var answer struct {
		Result struct {
			Value struct {
				Err         any `json:"err"`
				Replacement struct {
					Blockhash            solana.Hash `json:"blockhash"`
					LastValidBlockHeight uint64      `json:"lastValidBlockHeight"`
				} `json:"replacementBlockhash"`
			} `json:"value"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(f.post(t, `{"jsonrpc":"2.0","id":1,"method":"simulateTransaction","params":["`+encode(wire)+
		`",{"encoding":"base64","replaceRecentBlockhash":true}]}`), &answer))
	assert.Nil(t, answer.Result.Value.Err, "unsigned and on an unknown blockhash, it runs on the newest one")
	assert.Equal(t, f.cluster.BlockHeight()+solanafake.BlockhashWindow, answer.Result.Value.Replacement.LastValidBlockHeight)
	assert.False(t, answer.Result.Value.Replacement.Blockhash.IsZero())

	_, err = f.node.SimulateTransactionWithOpts(t.Context(), tx, &rpc.SimulateTransactionOpts{SigVerify: true, ReplaceRecentBlockhash: true})
	assert.Equal(t, "sigVerify may not be used with replaceRecentBlockhash", rpcError(t, err).Message)
}

func TestSendTransactionEncodingsAndMalformedInput(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	tx := f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, memo("base58"))
	wire, err := tx.MarshalBinary()
	require.NoError(t, err)
	sig, err := f.node.SendEncodedTransactionWithOpts(t.Context(), solana.Base58(wire).String(), rpc.TransactionOpts{Encoding: solana.EncodingBase58})
	require.NoError(t, err, "base58, the node's default encoding")
	assert.Equal(t, tx.Signatures[0], sig)

	for name, tc := range map[string]struct {
		encoded string
		prefix  string
	}{
		"not base64":    {"%%%", "invalid base64 encoding"},
		"not a tx":      {encode([]byte{1, 2, 3}), "failed to deserialize"},
		"too large":     {encode(make([]byte, 1300)), "base64 encoded solana_sdk::transaction::versioned::VersionedTransaction too large"},
		"no signatures": {encode(append([]byte{0}, wire[65:]...)), "invalid transaction"},
	} {
		_, err := f.node.SendEncodedTransactionWithOpts(t.Context(), tc.encoded, rpc.TransactionOpts{})
		e := rpcError(t, err)
		assert.Equal(t, solanafake.CodeInvalidParams, e.Code, name)
		assert.Contains(t, e.Message, tc.prefix, name)
	}
	assert.Len(t, f.cluster.Received(), 5)
}

func TestAPreflightFailureCarriesTheNodesData(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	_, err := f.node.SendTransaction(t.Context(), f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, pay(payer.PublicKey(), payer.PublicKey(), dollar, 1)))
	e := rpcError(t, err)
	assert.Equal(t, solanafake.CodePreflightFailure, e.Code)
	assert.Equal(t, "Transaction simulation failed: Error processing Instruction 0: invalid account data for instruction", e.Message)
	data, ok := e.Data.(map[string]any)
	require.True(t, ok)
	assert.Equal(t, map[string]any{"InstructionError": []any{json.Number("0"), "InvalidAccountData"}}, data["err"])
	assert.Len(t, data["logs"], 3)
	assert.Equal(t, json.Number("6200"), data["unitsConsumed"])
	for _, key := range []string{"accounts", "innerInstructions", "replacementBlockhash", "returnData"} {
		assert.Contains(t, data, key)
	}
}
