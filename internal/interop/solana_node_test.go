package interop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/gpuprice"
	// usdcunits is package usdc, named apart from the interop tests' USDC contract ABI.
	usdcunits "github.com/agentapis/sdk/x402/usdc"
)

// solanaDir holds node.mjs, a Solana JSON-RPC node over the litesvm runtime, with its pinned
// package.json and lock.
const solanaDir = "testdata/solana"

// solanaInstall installs the node's packages, from the repository root.
const solanaInstall = "npm ci --prefix internal/interop/testdata/solana --ignore-scripts"

// solanaStartTimeout bounds the node's start, until it announces its address.
const solanaStartTimeout = 30 * time.Second

// requireLitesvm returns the path of the node binary that runs node.mjs. Outside CI it skips
// the test when Node.js 20 or the packages are missing, saying how to install them; with the
// CI environment variable set, that is a failure.
func requireLitesvm(t testing.TB) string {
	t.Helper()
	missing := func(reason string) {
		t.Helper()
		partMissing(t, reason+": the tests on the litesvm Solana runtime need Node.js 20 or later and its packages; run `"+
			solanaInstall+"` from the repository root")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not on PATH")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	version, err := exec.CommandContext(ctx, node, "--version").Output()
	require.NoError(t, err, "node --version")
	var major int
	if _, err := fmt.Sscanf(string(version), "v%d.", &major); err != nil || major < 20 {
		missing("node " + string(bytes.TrimSpace(version)) + " is not Node.js 20 or later")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		missing("litesvm 1.5.0 publishes its runtime for Linux on x86-64 only, not " + runtime.GOOS + "/" + runtime.GOARCH)
	}
	for _, pkg := range []string{"litesvm", "litesvm-linux-x64-gnu", "@solana/kit"} {
		if _, err := os.Stat(filepath.Join(solanaDir, "node_modules", pkg, "package.json")); err != nil {
			missing("the npm package " + pkg + " is not installed")
		}
	}
	return node
}

// announcement is what node.mjs writes on its first line of stdout: its address. The
// writer keeps what the process wrote and signals once that line is complete.
type announcement struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	once  sync.Once
	ready chan struct{}
}

// Write keeps p and signals the first complete line.
func (a *announcement) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.buf.Write(p)
	if bytes.IndexByte(a.buf.Bytes(), '\n') >= 0 {
		a.once.Do(func() { close(a.ready) })
	}
	return len(p), nil
}

// String returns what the process wrote.
func (a *announcement) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.buf.String()
}

// solanaNode is a running node.mjs: a litesvm runtime behind a JSON-RPC server on loopback.
type solanaNode struct {
	URL string
	RPC *rpc.Client
}

// startSolanaNode starts node.mjs for one test and waits, at most solanaStartTimeout, for
// its address. The process stops when the test ends: its stdin is closed, and it is killed
// if it has not exited 5 s later.
func startSolanaNode(t testing.TB) *solanaNode {
	t.Helper()
	node := requireLitesvm(t)
	cmd := exec.Command(node, "node.mjs")
	cmd.Dir = solanaDir
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout := &announcement{ready: make(chan struct{})}
	stderr := &announcement{ready: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	require.NoError(t, cmd.Start())

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("node.mjs did not exit within 5 s of its stdin closing")
		}
		if t.Failed() {
			t.Logf("node.mjs stderr:\n%s", stderr.String())
		}
	})

	select {
	case <-stdout.ready:
	case err := <-exited:
		exited <- err
		t.Fatalf("node.mjs exited before announcing its address: %v\nstderr:\n%s", err, stderr.String())
	case <-time.After(solanaStartTimeout):
		t.Fatalf("node.mjs did not announce its address within %v\nstderr:\n%s", solanaStartTimeout, stderr.String())
	}
	var addr struct {
		URL string `json:"url"`
	}
	line, _, _ := bytes.Cut([]byte(stdout.String()), []byte("\n"))
	require.NoError(t, json.Unmarshal(line, &addr), "node.mjs announced %q", line)
	require.NotEmpty(t, addr.URL)
	return &solanaNode{URL: addr.URL, RPC: rpc.New(addr.URL)}
}

// call calls a method of the node, failing the test on an error.
func (n *solanaNode) call(t testing.TB, method string, params ...any) {
	t.Helper()
	var out json.RawMessage
	require.NoError(t, n.RPC.RPCCallForInto(t.Context(), &out, method, params), method)
}

// setSOL sets the lamports of wallet, written directly into the runtime.
func (n *solanaNode) setSOL(t testing.TB, wallet solana.PublicKey, lamports uint64) {
	t.Helper()
	n.call(t, "test_setSolBalance", wallet.String(), lamports)
}

// setUSDC sets the balance of owner's USDC account, creating it, written directly into the
// runtime.
func (n *solanaNode) setUSDC(t testing.TB, owner solana.PublicKey, amount uint64) {
	t.Helper()
	n.call(t, "test_setUsdcBalance", owner.String(), amount)
}

// sol returns the lamports of wallet.
func (n *solanaNode) sol(t testing.TB, wallet solana.PublicKey) uint64 {
	t.Helper()
	b, err := n.RPC.GetBalance(t.Context(), wallet, rpc.CommitmentConfirmed)
	require.NoError(t, err)
	return b.Value
}

// usdc returns the balance of owner's USDC account, 0 when it does not exist.
func (n *solanaNode) usdc(t testing.TB, owner solana.PublicKey) uint64 {
	t.Helper()
	ata, _, err := solana.FindAssociatedTokenAddress(owner, gpuprice.USDCMint)
	require.NoError(t, err)
	if _, err := n.RPC.GetAccountInfo(t.Context(), ata); err == rpc.ErrNotFound {
		return 0
	}
	b, err := n.RPC.GetTokenAccountBalance(t.Context(), ata, rpc.CommitmentConfirmed)
	require.NoError(t, err)
	require.EqualValues(t, usdcunits.Decimals, b.Value.Decimals)
	var amount uint64
	_, err = fmt.Sscan(b.Value.Amount, &amount)
	require.NoError(t, err)
	return amount
}

// transaction returns a transaction that landed, with its metadata.
func (n *solanaNode) transaction(t testing.TB, sig solana.Signature) *rpc.GetTransactionResult {
	t.Helper()
	legacy := uint64(0)
	tx, err := n.RPC.GetTransaction(t.Context(), sig, &rpc.GetTransactionOpts{
		Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &legacy})
	require.NoError(t, err)
	require.NotNil(t, tx.Meta)
	return tx
}

// nodeTap is a transport to the node that records the JSON-RPC methods a client calls and
// may run a hook once, just before the first sendTransaction goes out.
type nodeTap struct {
	beforeSend func()
	once       sync.Once

	mu      sync.Mutex
	methods []string
}

// RoundTrip records the method of req, runs the hook before the first sendTransaction, and
// forwards req.
func (tap *nodeTap) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	var call struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &call)
	tap.mu.Lock()
	tap.methods = append(tap.methods, call.Method)
	tap.mu.Unlock()
	if call.Method == "sendTransaction" && tap.beforeSend != nil {
		tap.once.Do(tap.beforeSend)
	}
	return http.DefaultTransport.RoundTrip(req)
}

// calls returns how many times method was called.
func (tap *nodeTap) calls(method string) int {
	tap.mu.Lock()
	defer tap.mu.Unlock()
	n := 0
	for _, m := range tap.methods {
		if m == method {
			n++
		}
	}
	return n
}

// client returns a solana-go client of the node whose calls go through tap.
func (n *solanaNode) client(tap *nodeTap) *rpc.Client {
	return rpc.NewWithCustomRPCClient(jsonrpc.NewClientWithOpts(n.URL, &jsonrpc.RPCClientOpts{HTTPClient: &http.Client{Transport: tap}}))
}
