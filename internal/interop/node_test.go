package interop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// requireNode returns the path of the node binary. It skips the test when node
// is not installed, and when the JavaScript dependencies are not installed,
// except in CI (the CI environment variable is set) where that is a failure.
func requireNode(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: install Node.js 20 or later and run " +
			"`npm ci --prefix internal/interop/testdata/js` to run the x402 interoperability tests")
	}
	version, err := exec.Command(node, "--version").Output()
	require.NoError(t, err, "node --version")
	var major int
	_, err = fmt.Sscanf(string(version), "v%d.", &major)
	require.NoError(t, err, "node --version printed %q", version)
	require.GreaterOrEqual(t, major, 20, "the reference packages need Node.js 20 or later; found %s", version)
	if _, err := os.Stat(filepath.Join(jsDir, "node_modules", "@x402", "express", "package.json")); err != nil {
		msg := "the reference JavaScript packages are not installed: run " +
			"`npm ci --prefix internal/interop/testdata/js --ignore-scripts` from the repository root"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node
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

// lineWriter keeps what a process writes and signals once a full line arrived.
type lineWriter struct {
	syncBuffer
	once sync.Once
	line chan struct{}
}

func (w *lineWriter) Write(p []byte) (int, error) {
	n, err := w.syncBuffer.Write(p)
	if bytes.IndexByte(p, '\n') >= 0 {
		w.once.Do(func() { close(w.line) })
	}
	return n, err
}

// jsServerConfig is the configuration server.mjs takes as its argument.
type jsServerConfig struct {
	PayTo             string            `json:"payTo"`
	Amount            string            `json:"amount"`
	Fund              map[string]string `json:"fund"`
	MaxTimeoutSeconds int               `json:"maxTimeoutSeconds"`
}

// jsServer is a running server.mjs: the reference Express middleware backed by
// the reference EVM facilitator scheme over an in-memory chain.
type jsServer struct {
	URL     string          `json:"url"`
	Network string          `json:"network"`
	Asset   string          `json:"asset"`
	PayTo   string          `json:"payTo"`
	Amount  string          `json:"amount"`
	Body    json.RawMessage `json:"body"`
}

// startJSServer starts server.mjs and waits for the line announcing its
// address. The process is stopped (stdin closed) when the test ends.
func startJSServer(ctx context.Context, t testing.TB, node string, cfg jsServerConfig) *jsServer {
	t.Helper()
	arg, err := json.Marshal(cfg)
	require.NoError(t, err)

	cmd := exec.CommandContext(ctx, node, "server.mjs", string(arg))
	cmd.Dir = jsDir
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout := &lineWriter{line: make(chan struct{})}
	stderr := &syncBuffer{}
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		// Closing stdin asks server.mjs to exit; it is killed if it does not.
		_ = stdin.Close()
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("server.mjs did not exit cleanly: %v", err)
			}
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("server.mjs did not exit within 5s of its stdin closing")
		}
		if t.Failed() {
			t.Logf("server.mjs stderr:\n%s", stderr.String())
		}
	})

	select {
	case <-stdout.line:
	case err := <-exited:
		exited <- err
		t.Fatalf("server.mjs exited before announcing its address: %v\nstderr:\n%s", err, stderr.String())
	case <-ctx.Done():
		t.Fatalf("server.mjs did not announce its address: %v\nstderr:\n%s", ctx.Err(), stderr.String())
	}
	var srv jsServer
	require.NoError(t, json.Unmarshal(bytes.TrimSpace(firstLine(stdout.String())), &srv), "server.mjs output: %s", stdout.String())
	require.NotEmpty(t, srv.URL)
	return &srv
}

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
	mode := args[0]
	cmd := exec.CommandContext(ctx, node, append([]string{"client.mjs"}, args...)...)
	cmd.Dir = jsDir
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = append(os.Environ(), keyEnv+"="+key)
	stdout := &syncBuffer{}
	stderr := &syncBuffer{}
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	err := cmd.Run()
	require.NoError(t, err, "client.mjs %s failed\nstderr:\n%s", mode, stderr.String())
	require.NoError(t, json.Unmarshal(bytes.TrimSpace(firstLine(stdout.String())), out), "client.mjs output: %s", stdout.String())
}
