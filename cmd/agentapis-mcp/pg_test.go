package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/mcpserver"
)

// pgSchema makes a schema of the test's own in the database of dsn, dropped when the test
// ends, and returns the DSN that uses it.
func pgSchema(t *testing.T, dsn string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	schema := fmt.Sprintf("mcp_test_%d_%d", time.Now().Unix(), os.Getpid())
	_, err = conn.Exec(ctx, "CREATE SCHEMA "+schema)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if conn, err := pgx.Connect(ctx, dsn); err == nil {
			conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
			conn.Close(ctx)
		}
	})
	u, err := url.Parse(dsn)
	require.NoError(t, err, "the DSN is a postgres:// URL")
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// stdioServer starts the program with args and dsn in its environment, and connects a Go
// MCP client to it over stdio.
func stdioServer(t *testing.T, dsn string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), envRunMain+"=1", mcpserver.EnvBudgetDSN+"="+dsn)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "pg-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// demoURL returns the offline paid resource x402_fetch's description names.
func demoURL(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	tools, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tool := range tools.Tools {
		if m := regexp.MustCompile(`paid resource at (\S+) `).FindStringSubmatch(tool.Description); tool.Name == "x402_fetch" && m != nil {
			return m[1]
		}
	}
	t.Fatal("x402_fetch names no demo resource")
	return ""
}

// spentOf returns budget_status's spent amount.
func spentOf(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "budget_status", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	return res.StructuredContent.(map[string]any)["spent"].(map[string]any)["atomic"].(string)
}

func TestTwoServersSharingAPostgreSQLBudgetNeverSpendPastItsCap(t *testing.T) {
	dsn := pgSchema(t, budgettest.PostgresDSN(t))
	// Ten payments of $0.01 fit under the cap; the two servers try sixteen at once.
	args := []string{"-offline", "-budget-name", "mcp-fleet", "-max-total", "0.10"}
	servers := []*mcp.ClientSession{stdioServer(t, dsn, args...), stdioServer(t, dsn, args...)}
	var (
		mu       sync.Mutex
		paid     int
		refusals []string
		wg       sync.WaitGroup
	)
	for _, cs := range servers {
		demo := demoURL(t, cs)
		for range 8 {
			wg.Go(func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "x402_fetch", Arguments: map[string]any{"url": demo}})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					refusals = append(refusals, "protocol error: "+err.Error())
				case res.IsError:
					refusals = append(refusals, res.Content[0].(*mcp.TextContent).Text)
				default:
					paid++
				}
			})
		}
	}
	wg.Wait()
	assert.Equal(t, 10, paid, "exactly what the cap allows was paid")
	require.Len(t, refusals, 6)
	for _, r := range refusals {
		assert.Contains(t, r, "total budget", "a refusal names the limit")
		assert.Contains(t, r, "left of $0.10")
	}
	for _, cs := range servers {
		assert.Equal(t, "100000", spentOf(t, cs), "both servers see the shared budget")
	}

	servers[0].Close()
	again := stdioServer(t, dsn, args...)
	assert.Equal(t, "100000", spentOf(t, again), "the shared budget survives a restart")
	res, err := again.CallTool(context.Background(), &mcp.CallToolParams{Name: "x402_fetch", Arguments: map[string]any{"url": demoURL(t, again)}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	assert.True(t, strings.Contains(res.Content[0].(*mcp.TextContent).Text, "$0.00 left of $0.10"), res.Content[0].(*mcp.TextContent).Text)
}
