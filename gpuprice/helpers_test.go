package gpuprice_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/svm"
)

// scan checks that no API key, private key or transaction signature the suite uses ever
// reaches a log line or an error string.
var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }

// t0 is the fixed time of the fakes' clocks.
var t0 = time.Date(2026, 3, 14, 15, 30, 0, 0, time.UTC)

// startFake starts a fake whose clock stands at t0, for one test.
func startFake(t *testing.T, opts ...gpupricetest.Option) *gpupricetest.Server {
	t.Helper()
	return testkit.Start(t, gpupricetest.NewServer(append([]gpupricetest.Option{gpupricetest.WithClock(sdktest.NewClock(t0))}, opts...)...))
}

// newClient returns a client of srv and its node without read retries; opts come after the
// defaults.
func newClient(t *testing.T, srv *gpupricetest.Server, opts ...gpuprice.Option) *gpuprice.Client {
	t.Helper()
	defaults := []gpuprice.Option{gpuprice.WithBaseURL(srv.URL), gpuprice.WithRPCURL(srv.RPCURL), gpuprice.WithRetry(testkit.NoRetry)}
	return testkit.New(t, gpuprice.New, append(defaults, opts...)...)
}

// payerSOL is what a test's payer holds in SOL: 0.01 SOL, in lamports.
const payerSOL = 10_000_000

// newPayer returns a fresh wallet's signer funded with amount (atomic USDC units) and
// payerSOL on srv; the private key is known to the secret scan.
func newPayer(t *testing.T, srv *gpupricetest.Server, amount *big.Int) (*svm.PrivateKeySigner, solana.PrivateKey) {
	t.Helper()
	return newPayerWithSOL(t, srv, amount, payerSOL)
}

// newPayerWithSOL is newPayer with lamports of SOL.
func newPayerWithSOL(t *testing.T, srv *gpupricetest.Server, amount *big.Int, lamports uint64) (*svm.PrivateKeySigner, solana.PrivateKey) {
	t.Helper()
	key := solana.NewWallet().PrivateKey
	scan.Add(key.String())
	if amount.Sign() > 0 {
		srv.FundUSDC(key.PublicKey(), amount)
	}
	if lamports > 0 {
		srv.FundSOL(key.PublicKey(), lamports)
	}
	s, err := svm.NewPrivateKeySigner(key)
	require.NoError(t, err)
	return s, key
}

// issueKey issues a key of plan on srv, valid for a month, known to the secret scan.
func issueKey(srv *gpupricetest.Server, plan gpupricetest.Plan) string {
	key := srv.IssueKey(plan, t0.AddDate(0, 1, 0))
	scan.Add(key)
	return key
}

// sentKey reports whether a request the fake recorded carried the X-API-Key header (its
// value is redacted in the record).
func sentKey(r sdktest.Request) bool { return r.Header.Get(gpuprice.KeyHeader) != "" }

// rpcMethod returns the JSON-RPC method of a request body (a single call).
func rpcMethod(body []byte) string {
	var call struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &call)
	return call.Method
}

// faultyNode is a transport to the fake node that fails one JSON-RPC method: after
// forwarding the call (the node acted on it; the answer is lost) or instead of it.
type faultyNode struct {
	method  string
	forward bool
	calls   atomic.Int32
}

// errDropped is the transport error of a dropped call.
var errDropped = errors.New("connection reset by peer")

// RoundTrip forwards req, failing the chosen method.
func (f *faultyNode) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	if rpcMethod(body) != f.method {
		return http.DefaultTransport.RoundTrip(req)
	}
	f.calls.Add(1)
	if f.forward {
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	return nil, errDropped
}

// nodeThrough returns a solana-go client of srv's node whose calls go through rt.
func nodeThrough(srv *gpupricetest.Server, rt http.RoundTripper) *rpc.Client {
	return rpc.NewWithCustomRPCClient(jsonrpc.NewClientWithOpts(srv.RPCURL, &jsonrpc.RPCClientOpts{HTTPClient: &http.Client{Transport: rt}}))
}

// sprintf is fmt.Sprintf, named so that vet does not check the verbs a test loops over.
var sprintf = fmt.Sprintf
