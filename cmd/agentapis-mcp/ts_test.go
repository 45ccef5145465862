package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentapis/sdk/internal/logbuf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jsDir holds the official TypeScript MCP client (package.json, package-lock.json) and the
// script that drives the server with it.
const jsDir = "testdata/js"

// requireNode returns the path of node once the TypeScript client is installed. Without it
// the test skips, saying how to install it, except in CI (CI set), where it fails.
func requireNode(t *testing.T) string {
	t.Helper()
	missing := func(what string) {
		msg := what + ": install the TypeScript MCP client with `npm ci --prefix cmd/agentapis-mcp/testdata/js --ignore-scripts` (Node.js 20 or later)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not on PATH")
	}
	for _, pkg := range []string{"@modelcontextprotocol/sdk", "ajv"} {
		if _, err := os.Stat(filepath.Join(jsDir, "node_modules", pkg, "package.json")); err != nil {
			missing("the JavaScript package " + pkg + " is not installed")
		}
	}
	return node
}

// tsCall is one tool call the TypeScript client made.
type tsCall struct {
	Label, Tool        string
	IsError            bool
	Text               string
	Structured         map[string]any
	StructuredIsObject bool
	ProtocolError      string
}

// tsReport is what the TypeScript client reports.
type tsReport struct {
	ClientProtocol, ServerProtocol string
	Tools                          []struct {
		Name                    string
		InputValid, OutputValid bool
		InputError              string
	}
	Calls        []tsCall
	Elicitations []string
}

// call returns the call labelled label.
func (r *tsReport) call(t *testing.T, label string) tsCall {
	t.Helper()
	for _, c := range r.Calls {
		if c.Label == label {
			require.Empty(t, c.ProtocolError, label)
			return c
		}
	}
	t.Fatalf("no call %q", label)
	return tsCall{}
}

// spent returns a budget_status result's spent amount.
func spent(t *testing.T, c tsCall) string {
	t.Helper()
	require.False(t, c.IsError, c.Text)
	return c.Structured["spent"].(map[string]any)["atomic"].(string)
}

// runClient runs the TypeScript client with config and returns its report.
func runClient(t *testing.T, node string, config map[string]any) *tsReport {
	t.Helper()
	data, err := json.Marshal(config)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", string(data))
	cmd.Dir = jsDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "the TypeScript client failed: %s", stderr.String())
	var rep tsReport
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), "report: %s\nstderr: %s", stdout.String(), stderr.String())
	return &rep
}

// serverFlags are the flags of the servers the TypeScript client drives: offline, a budget
// file that outlives them, a total cap, an approval threshold and a cap on x402_fetch.
func serverFlags(budget string) []string {
	return []string{"-offline", "-budget", budget, "-max-total", "6.00", "-approve-above", "4.00", "-tool-cap", "x402_fetch=0.015"}
}

// checkFullScenario checks the report of the client's full scenario.
func checkFullScenario(t *testing.T, rep *tsReport) string {
	t.Helper()
	assert.Equal(t, "2025-11-25", rep.ClientProtocol)
	assert.Equal(t, rep.ClientProtocol, rep.ServerProtocol, "the server speaks the client's protocol version")
	require.Len(t, rep.Tools, 34)
	called := map[string]bool{}
	for _, c := range rep.Calls {
		assert.Empty(t, c.ProtocolError, c.Label)
		called[c.Tool] = true
		if !c.IsError {
			assert.True(t, c.StructuredIsObject, "%s: structuredContent is an object", c.Label)
			assert.NotEmpty(t, c.Text, c.Label)
		}
	}
	for _, tool := range rep.Tools {
		assert.True(t, tool.InputValid, "%s: %s", tool.Name, tool.InputError)
		assert.True(t, tool.OutputValid, "%s: its output schema compiles and is an object", tool.Name)
		assert.True(t, called[tool.Name], "%s was called", tool.Name)
	}
	for _, c := range rep.Calls {
		switch {
		case strings.HasPrefix(c.Label, "hostile "):
			assert.True(t, c.IsError, "%s: %s", c.Label, c.Text)
			assert.LessOrEqual(t, len(c.Text), 2100, c.Label)
		case strings.HasPrefix(c.Label, "buy key "), c.Label == "fetch over the tool cap":
		default:
			assert.False(t, c.IsError, "%s: %s", c.Label, c.Text)
		}
	}
	report := rep.call(t, "reportstore_report")
	paid := report.Structured["paid"].(map[string]any)
	assert.NotEmpty(t, paid["transaction"], "the paid report settled")
	reportPrice, _ := new(big.Int).SetString(paid["amount"].(map[string]any)["atomic"].(string), 10)
	assert.Equal(t, "10000", rep.call(t, "x402_fetch").Structured["paid"].(map[string]any)["amount"].(map[string]any)["atomic"])

	overTool := rep.call(t, "fetch over the tool cap")
	assert.True(t, overTool.IsError)
	assert.Contains(t, overTool.Text, "tool cap of x402_fetch: amount $0.01, $0.005 left of the $0.015")

	declined := rep.call(t, "buy key declined")
	assert.True(t, declined.IsError)
	assert.Contains(t, declined.Text, "did not approve")
	assert.Equal(t, spent(t, rep.call(t, "status after the paid tools")), spent(t, rep.call(t, "status after the refusal")), "a refusal pays nothing")
	require.Len(t, rep.Elicitations, 3, "each payment above the threshold asked")
	assert.Contains(t, rep.Elicitations[0], "$5.00")
	accepted := rep.call(t, "buy key accepted")
	assert.False(t, accepted.IsError, accepted.Text)
	assert.Contains(t, accepted.Structured["key"], "…", "the bought key is masked")
	over := rep.call(t, "buy key over the cap")
	assert.True(t, over.IsError)
	assert.Contains(t, over.Text, "total budget")
	assert.Contains(t, over.Text, "left of $6.00")

	want := new(big.Int).Add(reportPrice, big.NewInt(10_000+5_000_000))
	final := spent(t, rep.call(t, "final status"))
	assert.Equal(t, want.String(), final, "spent is the report, the fetch and the key")
	return final
}

func TestTypeScriptClientOverStdio(t *testing.T) {
	t.Parallel()
	node := requireNode(t)
	budget := filepath.Join(t.TempDir(), "budget.db")
	stdio := map[string]any{"transport": "stdio", "command": os.Args[0], "args": serverFlags(budget), "env": map[string]string{envRunMain: "1"}}
	stdio["scenario"] = "full"
	final := checkFullScenario(t, runClient(t, node, stdio))

	stdio["scenario"] = "status"
	again := runClient(t, node, stdio)
	assert.Equal(t, final, spent(t, again.call(t, "budget_status")), "the budget survives a restart of the server")
}

func TestTypeScriptClientOverHTTP(t *testing.T) {
	t.Parallel()
	node := requireNode(t)
	budget := filepath.Join(t.TempDir(), "budget.db")
	url, stop := startHTTP(t, serverFlags(budget))
	final := checkFullScenario(t, runClient(t, node, map[string]any{"transport": "http", "url": url, "scenario": "full"}))
	stop()

	url, _ = startHTTP(t, serverFlags(budget))
	again := runClient(t, node, map[string]any{"transport": "http", "url": url, "scenario": "status"})
	assert.Equal(t, final, spent(t, again.call(t, "budget_status")), "the budget survives a restart of the server")
}

// startHTTP starts the program serving HTTP on a free loopback port and returns its URL and
// a function that stops it and waits for it to exit.
func startHTTP(t *testing.T, flags []string) (string, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append(flags, "-http", "127.0.0.1:0")...)
	cmd.Env = append(os.Environ(), envRunMain+"=1")
	stderr := &logbuf.Buffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cmd.Process.Signal(os.Interrupt)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
			}
		})
	}
	t.Cleanup(stop)
	address := regexp.MustCompile(`address=(http://\S+)`)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := address.FindStringSubmatch(stderr.String()); m != nil {
			return m[1], stop
		}
	}
	t.Fatalf("the server did not start: %s", stderr)
	return "", nil
}
