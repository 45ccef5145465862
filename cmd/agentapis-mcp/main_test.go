package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentapis/sdk/internal/logbuf"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// envRunMain makes the test binary run the server's main instead of the tests, so that the
// tests run the real program without building it.
const envRunMain = "AGENTAPIS_MCP_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envRunMain) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// server starts the program with args, returning the command with its stdin, stdout and
// stderr.
func server(t *testing.T, args ...string) (*exec.Cmd, io.WriteCloser, io.Reader, *logbuf.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), envRunMain+"=1")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := &logbuf.Buffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd, stdin, stdout, stderr
}

func TestStdoutCarriesOnlyJSONRPCWhateverComesIn(t *testing.T) {
	cmd, stdin, stdout, stderr := server(t, "-offline")
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"reportstore_catalog","arguments":{"limit":2}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"reportstore_preview","arguments":{"id":"no such report"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"budget_status","arguments":{}}}`,
	}
	_, err := io.WriteString(stdin, strings.Join(lines, "\n")+"\n")
	require.NoError(t, err)
	answered := map[float64]map[string]any{}
	scanner := bufio.NewScanner(stdout)
	scanner.Buffer(make([]byte, 1<<20), 4<<20)
	for len(answered) < 5 && scanner.Scan() {
		var msg map[string]any
		require.NoError(t, json.Unmarshal(scanner.Bytes(), &msg), "stdout carries JSON-RPC only: %q", scanner.Text())
		require.Equal(t, "2.0", msg["jsonrpc"])
		if id, ok := msg["id"].(float64); ok {
			answered[id] = msg
		}
	}
	require.Len(t, answered, 5, "every request is answered; stderr: %s", stderr)
	assert.Equal(t, true, answered[3]["result"].(map[string]any)["isError"], "a bad argument is a tool error")
	assert.NotNil(t, answered[4]["error"], "an unknown method is a JSON-RPC error")
	assert.Contains(t, answered[5]["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"], "spent $0.00")
	stdin.Close()
	require.NoError(t, cmd.Wait(), "the server exits cleanly when the client disconnects")
	assert.Contains(t, stderr.String(), "session", "the log goes to stderr")
}

func TestHTTPServesTheToolsAndRefusesRemoteAddresses(t *testing.T) {
	cmd, _, _, stderr := server(t, "-offline", "-http", "127.0.0.1:0")
	address := regexp.MustCompile(`address=(http://\S+)`)
	deadline := time.Now().Add(30 * time.Second)
	var endpoint string
	for endpoint == "" && time.Now().Before(deadline) {
		if m := address.FindStringSubmatch(stderr.String()); m != nil {
			endpoint = m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.NotEmpty(t, endpoint, "stderr: %s", stderr)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	require.NoError(t, err)
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "chartdiff_chart", Arguments: map[string]any{"chart_id": 1}})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	cs.Close()
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	assert.NoError(t, cmd.Wait(), "an interrupted server closes its budget and fakes and exits cleanly")

	var out bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), []string{"-offline", "-http", "0.0.0.0:0"}, func(string) string { return "" }, &out))
	assert.Contains(t, out.String(), "not a loopback address")
}

func TestTheCommandLineIsCheckedBeforeAnythingStarts(t *testing.T) {
	env := func(string) string { return "" }
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-h"}, 0, "AGENTAPIS_MCP_BUDGET_DSN"},
		{[]string{"-tool-cap", "x402_fetch"}, 2, "want tool=amount"},
		{[]string{"-policy", "/no/such/policy.json"}, 2, "policy file"},
		{[]string{"-offline", "extra"}, 2, "unexpected arguments"},
		{[]string{"-offline", "-max-total", "-1"}, 1, "max_total"},
		{[]string{"-offline", "-window", "forever", "-window-max", "1"}, 1, "window.length"},
	} {
		var out bytes.Buffer
		assert.Equal(t, c.code, run(context.Background(), c.args, env, &out), "%v", c.args)
		assert.Contains(t, out.String(), c.want, "%v", c.args)
	}
}
