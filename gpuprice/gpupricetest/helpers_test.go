package gpupricetest_test

import (
	"errors"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
)

// scan checks that no credential a client of this suite sends ever reaches a log line or an
// error string.
var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }

// t0 is the fixed time the tests' clocks start at.
var t0 = time.Date(2026, 3, 14, 15, 30, 0, 0, time.UTC)

// start starts a fake at t0 for one test; a WithClock among opts replaces its clock.
func start(t *testing.T, opts ...gpupricetest.Option) *gpupricetest.Server {
	t.Helper()
	return testkit.Start(t, gpupricetest.NewServer(append([]gpupricetest.Option{gpupricetest.WithClock(sdktest.NewClock(t0))}, opts...)...))
}

// do sends a request to the price API; key, when not empty, goes in X-API-Key. Every
// answer with a body has a JSON object for it.
func do(t *testing.T, srv *gpupricetest.Server, method, path, body, key string) testkit.Raw {
	t.Helper()
	var header map[string]string
	if key != "" {
		header = map[string]string{"X-API-Key": key}
	}
	a := testkit.Do(t, http.DefaultClient, method, srv.URL+path, body, header)
	if len(a.Body) > 0 {
		require.NotNil(t, a.JSON, "not a JSON object: %s", a.Body)
	}
	return a
}

// get sends a GET without a key.
func get(t *testing.T, srv *gpupricetest.Server, path string) testkit.Raw {
	t.Helper()
	return do(t, srv, http.MethodGet, path, "", "")
}

// redeem posts a transaction signature to the redemption operation.
func redeem(t *testing.T, srv *gpupricetest.Server, sig string) testkit.Raw {
	t.Helper()
	return do(t, srv, http.MethodPost, gpupricetest.DefaultRedeemPath, `{"tx_signature":"`+sig+`"}`, "")
}

// newWallet returns a fresh key pair.
func newWallet() solana.PrivateKey { return solana.NewWallet().PrivateKey }

// payerSOL is what a test's fee payer holds: 0.01 SOL, the fees of 2,000 transactions.
const payerSOL = 10_000_000

// newPayer returns a fresh key pair whose wallet holds payerSOL on srv, to pay the fees of
// what it sends.
func newPayer(srv *gpupricetest.Server) solana.PrivateKey {
	key := newWallet()
	srv.FundSOL(key.PublicKey(), payerSOL)
	return key
}

// ata returns the associated token account of wallet for mint.
func ata(t *testing.T, wallet, mint solana.PublicKey) solana.PublicKey {
	t.Helper()
	a, _, err := solana.FindAssociatedTokenAddress(wallet, mint)
	require.NoError(t, err)
	return a
}

// transfer is a TransferChecked of amount of mint from owner's associated account to
// wallet to's, with the given decimals.
func transfer(t *testing.T, owner solana.PrivateKey, to, mint solana.PublicKey, amount uint64, decimals uint8) solana.Instruction {
	t.Helper()
	return token.NewTransferCheckedInstruction(amount, decimals, ata(t, owner.PublicKey(), mint), mint, ata(t, to, mint), owner.PublicKey(), nil).Build()
}

// memo is a Memo instruction carrying text exactly, signed by signer.
func memo(signer solana.PublicKey, text string) solana.Instruction {
	return solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{solana.Meta(signer).SIGNER()}, []byte(text))
}

// createIdempotent is the associated token account program's CreateIdempotent of wallet's
// account for mint, paid by payer.
func createIdempotent(payer, wallet, mint solana.PublicKey) solana.Instruction {
	a, _, _ := solana.FindAssociatedTokenAddress(wallet, mint)
	return solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID, solana.AccountMetaSlice{
		solana.Meta(payer).WRITE().SIGNER(),
		solana.Meta(a).WRITE(),
		solana.Meta(wallet),
		solana.Meta(mint),
		solana.Meta(solana.SystemProgramID),
		solana.Meta(solana.TokenProgramID),
	}, []byte{1})
}

// node returns a solana-go client of the fake node.
func node(srv *gpupricetest.Server) *rpc.Client { return rpc.New(srv.RPCURL) }

// build returns a transaction of ixs on a fresh blockhash, paid and signed by signers[0].
func build(t *testing.T, c *rpc.Client, signers []solana.PrivateKey, ixs ...solana.Instruction) *solana.Transaction {
	t.Helper()
	bh, err := c.GetLatestBlockhash(t.Context(), rpc.CommitmentFinalized)
	require.NoError(t, err)
	tx, err := solana.NewTransaction(ixs, bh.Value.Blockhash, solana.TransactionPayer(signers[0].PublicKey()))
	require.NoError(t, err)
	_, err = tx.Sign(func(k solana.PublicKey) *solana.PrivateKey {
		for i := range signers {
			if signers[i].PublicKey() == k {
				return &signers[i]
			}
		}
		return nil
	})
	require.NoError(t, err)
	return tx
}

// send sends tx with preflight.
func send(t *testing.T, c *rpc.Client, tx *solana.Transaction) (solana.Signature, error) {
	t.Helper()
	return c.SendTransactionWithOpts(t.Context(), tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentFinalized})
}

// pay builds, sends and confirms a transaction of ixs signed by payer, and returns its
// signature.
func pay(t *testing.T, srv *gpupricetest.Server, payer solana.PrivateKey, ixs ...solana.Instruction) solana.Signature {
	t.Helper()
	c := node(srv)
	sig, err := send(t, c, build(t, c, []solana.PrivateKey{payer}, ixs...))
	require.NoError(t, err)
	st, err := c.GetSignatureStatuses(t.Context(), true, sig)
	require.NoError(t, err)
	require.NotNil(t, st.Value[0])
	require.Equal(t, rpc.ConfirmationStatusConfirmed, st.Value[0].ConfirmationStatus)
	return sig
}

// rpcError returns err as a node's JSON-RPC error.
func rpcError(t *testing.T, err error) *jsonrpc.RPCError {
	t.Helper()
	var e *jsonrpc.RPCError
	require.True(t, errors.As(err, &e), "a JSON-RPC error: %v", err)
	return e
}

// simulationErr returns the err member of a preflight failure's data.
func simulationErr(t *testing.T, e *jsonrpc.RPCError) any {
	t.Helper()
	data, ok := e.Data.(map[string]any)
	require.True(t, ok, "data is an object: %#v", e.Data)
	return data["err"]
}
