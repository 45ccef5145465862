package mcppay_test

import (
	"context"
	"io"
	"math/big"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/mcppay"
	"github.com/agentapis/sdk/x402/x402test"
)

// benchPayer returns a payer without a total limit, funded without end at f.
func benchPayer(b *testing.B, f *x402test.Facilitator) *x402.Payer {
	b.Helper()
	signer := newSigner(b)
	f.Fund(signer.Address(), new(big.Int).Lsh(big.NewInt(1), 100))
	scheme, err := evm.NewExact(signer)
	require.NoError(b, err)
	p, err := x402.NewPayer(x402.Policy{MaxTotal: budget.Unlimited}, []x402.Scheme{scheme})
	require.NoError(b, err)
	return p
}

// BenchmarkPaidToolCall measures, against x402test, a free MCP tool call, the same call paid
// (the unpaid call, the payment, the paid call), both in memory and over streamable HTTP,
// and the same payment made over HTTP (x402test's paywall): the target is a paid call within
// 1.2x the free one plus the paid HTTP fetch.
//
//	go test -run '^$' -bench BenchmarkPaidToolCall -benchmem ./x402/mcppay/
func BenchmarkPaidToolCall(b *testing.B) {
	ctx := context.Background()
	for _, transport := range transports {
		srv := x402test.NewMCPServer(x402test.WithMCPPaywall(x402test.MCPPaywallConfig{
			Price: func(call *x402test.MCPCall) *big.Int {
				if string(call.Arguments) == `{"free":true}` {
					return nil
				}
				return big.NewInt(x402test.DefaultPrice)
			},
		}))
		client, err := mcppay.New(connect(b, srv, transport), benchPayer(b, srv.Facilitator()))
		require.NoError(b, err)
		for _, paid := range []bool{false, true} {
			name, args := transport+"/free MCP tool call", map[string]any{"free": true}
			if paid {
				name, args = transport+"/paid MCP tool call", map[string]any{"free": false}
			}
			b.Run(name, func(b *testing.B) {
				measure(b, func() {
					res, err := client.CallTool(ctx, &mcp.CallToolParams{Name: x402test.DefaultMCPTool, Arguments: args})
					if err != nil || res.IsError || (res.Payment != nil) != paid {
						b.Fatal(res, err)
					}
				})
			})
		}
		srv.Close()
	}

	srv := x402test.NewServer()
	defer srv.Close()
	client := &http.Client{Transport: benchPayer(b, srv.Facilitator()).RoundTripper(srv.Client().Transport)}
	b.Run("paid HTTP fetch", func(b *testing.B) {
		measure(b, func() {
			resp, err := client.Get(srv.URL + "/doc")
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatal(resp, err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	})
}

// measure runs op b.N times, reporting its allocations and, beside the wall time, the
// process's CPU time per op ("cpu-ns/op": client and server together), which other work on
// a shared machine disturbs less.
func measure(b *testing.B, op func()) {
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		op()
	}
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}
