package solanafake_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/solanafake"
)

func TestRawJSONRPC(t *testing.T) {
	t.Parallel()
	f := start(t)
	var batch []map[string]any
	require.NoError(t, json.Unmarshal(f.post(t, `[{"jsonrpc":"2.0","id":1,"method":"getBlockHeight"},{"jsonrpc":"2.0","id":"b","method":"getProgramAccounts","params":[]}]`), &batch))
	require.Len(t, batch, 2)
	assert.EqualValues(t, 1, batch[0]["id"])
	assert.NotNil(t, batch[0]["result"])
	assert.Equal(t, "b", batch[1]["id"])
	assert.Equal(t, map[string]any{"code": -32601.0, "message": "Method not found"}, batch[1]["error"])

	var single map[string]any
	require.NoError(t, json.Unmarshal(f.post(t, `{"jsonrpc":"2.0","id":9,"method":"getLatestBlockhash","params":[{"commitment":"finalized"}]}`), &single))
	result := single["result"].(map[string]any)
	assert.Equal(t, map[string]any{"apiVersion": "2.2.7", "slot": result["context"].(map[string]any)["slot"]}, result["context"])
	assert.Contains(t, result["value"], "blockhash")
	assert.Contains(t, result["value"], "lastValidBlockHeight")

	for body, code := range map[string]float64{
		`{not json`:                             -32700,
		`[]`:                                    -32600,
		`{"jsonrpc":"1.0","id":1,"method":"x"}`: -32600,
		`{"jsonrpc":"2.0","id":1,"method":"getBalance","params":{"a":1}}`:           -32602,
		`{"jsonrpc":"2.0","id":1,"method":"getBalance","params":["not-a-key"]}`:     -32602,
		`{"jsonrpc":"2.0","id":1,"method":"getSignatureStatuses","params":[["x"]]}`: -32602,
		`{"jsonrpc":"2.0","id":1,"method":"getTransaction","params":["x"]}`:         -32602,
		`{"jsonrpc":"2.0","id":1,"method":"sendTransaction","params":[]}`:           -32602,
	} {
		single = nil
		require.NoError(t, json.Unmarshal(f.post(t, body), &single), body)
		assert.Equal(t, code, single["error"].(map[string]any)["code"], body)
	}
	assert.Empty(t, f.cluster.Received(), "a sendTransaction without a transaction is not one")

	resp, err := http.Get(f.url + "/any/path")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Equal(t, "POST", resp.Header.Get("Allow"))
	calls := f.cluster.Calls()
	assert.Equal(t, 1, calls["getProgramAccounts"], "unknown methods are counted too")
	assert.Equal(t, 1, calls["getBalance"], "params that are not an array are refused before the method is counted")
}

func TestGetTransactionOmitsTheVersionUnlessAsked(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	sig := f.submit(t, f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, memo("legacy")))
	var answer struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	require.NoError(t, json.Unmarshal(f.post(t, `{"jsonrpc":"2.0","id":1,"method":"getTransaction","params":["`+sig.String()+`",{"commitment":"confirmed"}]}`), &answer))
	assert.NotContains(t, answer.Result, "version")
	require.NoError(t, json.Unmarshal(f.post(t, `{"jsonrpc":"2.0","id":1,"method":"getTransaction","params":["`+sig.String()+
		`",{"commitment":"confirmed","maxSupportedTransactionVersion":0}]}`), &answer))
	assert.JSONEq(t, `"legacy"`, string(answer.Result["version"]))
	var tx struct {
		Message struct {
			Instructions []map[string]any `json:"instructions"`
		} `json:"message"`
	}
	require.NoError(t, json.Unmarshal(answer.Result["transaction"], &tx))
	assert.Equal(t, map[string]any{"programIdIndex": 1.0, "accounts": []any{}, "data": solana.Base58("legacy").String(), "stackHeight": nil},
		tx.Message.Instructions[0])
}

func TestInjectedFaultsAnswerInsteadOfTheMethod(t *testing.T) {
	t.Parallel()
	f := start(t)
	payer := f.wallet(10_000_000)
	f.cluster.InjectFaults(
		solanafake.Fault{Method: "getLatestBlockhash", Error: solanafake.Error{Code: -32005, Message: "Node is behind by 42 slots"}, Times: 2},
		solanafake.Fault{Method: "sendTransaction", Error: solanafake.Error{Code: solanafake.CodePreflightFailure,
			Message: "Transaction simulation failed: Blockhash not found",
			Err:     &solanafake.TransactionError{Value: json.RawMessage(`"BlockhashNotFound"`), Text: "Blockhash not found"}, Logs: []string{"injected"}}},
		solanafake.Fault{Error: solanafake.Error{Code: -32603, Message: "Internal error"}},
	)
	for range 2 {
		_, err := f.node.GetLatestBlockhash(t.Context(), rpc.CommitmentConfirmed)
		e := rpcError(t, err)
		assert.Equal(t, -32005, e.Code)
		assert.Equal(t, "Node is behind by 42 slots", e.Message)
		assert.Nil(t, e.Data)
	}
	_, err := f.node.GetBalance(t.Context(), payer.PublicKey(), "")
	assert.Equal(t, -32603, rpcError(t, err).Code, "a fault for any method")
	_, err = f.node.GetLatestBlockhash(t.Context(), rpc.CommitmentConfirmed)
	require.NoError(t, err, "used up")

	tx := f.build(t, payer.PublicKey(), []solana.PrivateKey{payer}, memo("x"))
	_, err = f.node.SendTransaction(t.Context(), tx)
	e := rpcError(t, err)
	assert.Equal(t, solanafake.CodePreflightFailure, e.Code)
	data := e.Data.(map[string]any)
	assert.Equal(t, "BlockhashNotFound", data["err"])
	assert.Equal(t, []any{"injected"}, data["logs"])
	assert.Empty(t, f.cluster.Received(), "the node never saw the transaction")
	_, err = f.node.SendTransaction(t.Context(), tx)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"getLatestBlockhash": 3, "getBalance": 1, "sendTransaction": 2}, f.cluster.Calls())
}

func TestGenesisHashIsMainnets(t *testing.T) {
	t.Parallel()
	c := solanafake.New(solanafake.Config{})
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	hash, err := rpc.New(srv.URL).GetGenesisHash(t.Context())
	require.NoError(t, err)
	assert.Equal(t, solanafake.MainnetGenesisHash, hash.String())
}
