package mcpserver

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/budgetfile"
	"github.com/agentapis/sdk/x402/evm"
)

// pipeSession connects a Go MCP client to server over a pair of OS pipes carrying
// newline-delimited JSON-RPC, as stdio does, and returns the client's session.
func pipeSession(b *testing.B, server *mcp.Server) *mcp.ClientSession {
	b.Helper()
	clientRead, serverWrite, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	serverRead, clientWrite, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	ss, err := server.Connect(context.Background(), &mcp.IOTransport{Reader: serverRead, Writer: serverWrite}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
		&mcp.IOTransport{Reader: clientRead, Writer: clientWrite}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// benchServer starts an offline server for the benchmarks, with a budget large enough for
// every paid call they make, and connects a client over pipes.
func benchServer(b *testing.B) (*Server, *mcp.ClientSession) {
	b.Helper()
	srv, err := New(context.Background(), Options{Offline: true, Logger: slog.New(slog.DiscardHandler),
		Policy: Policy{MaxTotal: "1000000.00"}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	return srv, pipeSession(b, srv.MCP())
}

// callTool calls a tool and fails the benchmark on any error.
func callTool(b *testing.B, cs *mcp.ClientSession, name string, args map[string]any) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		b.Fatal(err)
	}
	if res.IsError {
		b.Fatal(text(res))
	}
}

// minimalServer is go-sdk's minimal typed tool: the protocol's floor.
func minimalServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
	type in struct {
		ChartID int `json:"chart_id"`
	}
	type out struct {
		OK bool `json:"ok"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "noop", Description: "does nothing"}, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, out, error) {
		return nil, out{OK: true}, nil
	})
	return s
}

// interleave runs the measured call and its floor in turn, one of each per iteration, and
// reports each one's time per call and their ratio, so that both meet the same load of a
// shared machine.
func interleave(b *testing.B, call, floor func()) {
	var callTime, floorTime time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		call()
		mid := time.Now()
		floor()
		callTime, floorTime = callTime+mid.Sub(start), floorTime+time.Since(mid)
	}
	n := float64(b.N)
	b.ReportMetric(float64(callTime.Nanoseconds())/n, "mcp-ns/op")
	b.ReportMetric(float64(floorTime.Nanoseconds())/n, "floor-ns/op")
	b.ReportMetric(float64(callTime)/float64(floorTime), "ratio")
}

// BenchmarkFreeToolCall compares a free tool call over stdio-like pipes (chartdiff_chart
// against the offline fake) with its floor: the same SDK call made directly plus go-sdk's
// minimal tool round trip over the same kind of pipes, interleaved.
func BenchmarkFreeToolCall(b *testing.B) {
	srv, cs := benchServer(b)
	direct, err := chartdiff.New(chartdiff.WithBaseURL(srv.env(chartdiff.EnvURL)), chartdiff.WithAPIKey(srv.env(chartdiff.EnvAPIKey)))
	if err != nil {
		b.Fatal(err)
	}
	minimal := pipeSession(b, minimalServer())
	args := map[string]any{"chart_id": 1}
	interleave(b, func() { callTool(b, cs, "chartdiff_chart", args) }, func() {
		if _, err := direct.Chart(context.Background(), 1); err != nil {
			b.Fatal(err)
		}
		callTool(b, minimal, "noop", args)
	})
}

// BenchmarkPaidToolCall compares a paid tool call (x402_fetch of the offline paid resource,
// one $0.01 payment in the server's budget file) with its floor: the free tool call plus the
// same payment made over HTTP by an x402 payer with a budget file of its own, interleaved.
func BenchmarkPaidToolCall(b *testing.B) {
	srv, cs := benchServer(b)
	store, err := budgetfile.Open(filepath.Join(b.TempDir(), "budget.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	spend, err := budget.New(budget.Unlimited, budget.WithStore(store))
	if err != nil {
		b.Fatal(err)
	}
	signer, err := evm.NewPrivateKeySigner(srv.env(EnvEVMPrivateKey))
	if err != nil {
		b.Fatal(err)
	}
	scheme, err := evm.NewExact(signer)
	if err != nil {
		b.Fatal(err)
	}
	payer, err := x402.NewPayer(x402.Policy{}, []x402.Scheme{scheme}, x402.WithBudget(spend))
	if err != nil {
		b.Fatal(err)
	}
	hc := &http.Client{Transport: payer.RoundTripper(http.DefaultTransport.(*http.Transport).Clone())}
	paidArgs, free := map[string]any{"url": srv.demoURL}, map[string]any{"chart_id": 1}
	interleave(b, func() { callTool(b, cs, "x402_fetch", paidArgs) }, func() {
		callTool(b, cs, "chartdiff_chart", free)
		resp, err := hc.Get(srv.demoURL)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatal(resp.Status)
		}
	})
}
