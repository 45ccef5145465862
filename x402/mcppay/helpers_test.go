package mcppay_test

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/internal/signertest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/mcppay"
	"github.com/agentapis/sdk/x402/reconcile"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/x402test"
)

// scan checks that no private key, signature or payment the suite uses ever reaches an
// error string: the client's errors (see scanningCaller and call) and the payer core's.
var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }

// shop is the payee of x402test's MCP server unless a test names another.
const shop = x402test.DefaultPayTo

// transports are the ways a test reaches an MCPServer.
var transports = []string{"memory", "http"}

// connect returns a session with srv over transport, closed when the test ends.
func connect(t testing.TB, srv *x402test.MCPServer, transport string) *mcp.ClientSession {
	t.Helper()
	connect := srv.Connect
	if transport == "http" {
		connect = srv.ConnectHTTP
	}
	cs, err := connect(context.Background(), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// newSigner returns an EVM signer of a new random key that counts its signatures and hands
// each, and the key, to the secret scan.
func newSigner(t testing.TB) *signertest.EVM {
	return signertest.CountEVM(signertest.NewEVM(t, scan), scan)
}

// newPayer returns a payer paying on EVM with a counting signer funded with funds at f. A
// policy with a MaxTotal makes it draw on a budget in the store budgettest.EnvStore names.
func newPayer(t testing.TB, f *x402test.Facilitator, funds int64, policy x402.Policy, opts ...x402.PayerOption) (*x402.Payer, *signertest.EVM) {
	t.Helper()
	signer := newSigner(t)
	f.Fund(signer.Address(), big.NewInt(funds))
	scheme, err := evm.NewExact(signer)
	require.NoError(t, err)
	var first []x402.PayerOption
	if policy.MaxTotal != nil {
		policy, first = budgettest.ForPayer(t, policy, nil)
	}
	p, err := x402.NewPayer(policy, []x402.Scheme{scheme}, append(first, opts...)...)
	require.NoError(t, err)
	return p, signer
}

// newSolanaScheme returns the Solana scheme of a new wallet funded with funds on the ledger
// of srv's facilitator, reading it through srv's node.
func newSolanaScheme(t testing.TB, srv *x402test.MCPServer, funds int64) (x402.Scheme, *signertest.Solana) {
	t.Helper()
	wallet := signertest.NewSolana(t, scan)
	srv.Facilitator().Fund(wallet.Address(), big.NewInt(funds))
	node, err := svm.DialNode(srv.SolanaURL())
	require.NoError(t, err)
	scheme, err := svm.NewExact(wallet, node)
	require.NoError(t, err)
	return scheme, wallet
}

// newSolanaAddress returns the address of a new Solana wallet.
func newSolanaAddress() string { return solana.NewWallet().PublicKey().String() }

// scanningCaller hands the secret scan every payment a call carries and every error the
// session returns.
type scanningCaller struct{ mcppay.Caller }

func (s scanningCaller) CallTool(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	if v, ok := params.Meta[mcppay.MetaPayment]; ok {
		b, _ := json.Marshal(v)
		scan.Add(string(b))
		if raw, ok := v.(json.RawMessage); ok {
			scan.Add(string(raw))
		}
	}
	res, err := s.Caller.CallTool(ctx, params)
	scan.Record(err)
	return res, err
}

// newClient returns a client paying with payer over session, whose payments and errors the
// secret scan sees.
func newClient(t testing.TB, session mcppay.Caller, payer *x402.Payer) *mcppay.Client {
	t.Helper()
	c, err := mcppay.New(scanningCaller{session}, payer)
	require.NoError(t, err)
	return c
}

// call calls tool with args through c, handing its error to the secret scan.
func call(c *mcppay.Client, tool string, args map[string]any) (*mcppay.Result, error) {
	return callCtx(context.Background(), c, tool, args)
}

// callCtx is call with ctx.
func callCtx(ctx context.Context, c *mcppay.Client, tool string, args map[string]any) (*mcppay.Result, error) {
	res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	scan.Record(err)
	return res, err
}

// settled returns the total the facilitator settled.
func settled(f *x402test.Facilitator) *big.Int {
	sum := new(big.Int)
	for _, s := range f.Settlements() {
		sum.Add(sum, s.Value)
	}
	return sum
}

// reconcileWith resolves what payer's budget holds against the facilitator's settlements.
func reconcileWith(t testing.TB, payer *x402.Payer, f *x402test.Facilitator) *reconcile.Report {
	t.Helper()
	r, err := reconcile.New(payer.Budget(), reconcile.WithLookup(f), reconcile.WithRate(1e6), reconcile.WithBatch(100))
	require.NoError(t, err)
	rep, err := r.Reconcile(context.Background())
	require.NoError(t, err)
	return rep
}

// text returns the first text content of a result.
func text(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	require.NotEmpty(t, res.Content)
	tc, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "text content")
	return tc.Text
}
