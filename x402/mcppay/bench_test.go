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

// BenchmarkPaidToolCall measures, on each transport (in memory, streamable HTTP), a paid MCP
// tool call through the client ("sdk": the unpaid call, the payment, the paid call) beside
// its floor ("floor": the same tool call made free on the same session, plus the same payment
// made over HTTP, a paid fetch through the payer's RoundTripper from x402test's paywall).
// Target: sdk at most 1.2x floor. "free-call" and "paid-fetch" are the floor's two parts
// alone. Each sub-benchmark reports, beside the wall time, the
// process's CPU time per op ("cpu-ns/op": client and servers together), which other work on
// a shared machine disturbs less.
//
//	go test -c -o /tmp/mcppay.test ./x402/mcppay
//	cd x402/mcppay && /tmp/mcppay.test -test.run='^$' -test.bench='^BenchmarkPaidToolCall$' -test.benchmem -test.benchtime=1000x
func BenchmarkPaidToolCall(b *testing.B) {
	ctx := context.Background()
	paid, free := map[string]any{"free": false}, map[string]any{"free": true}
	for _, transport := range transports {
		srv := x402test.NewMCPServer(x402test.WithMCPPaywall(x402test.MCPPaywallConfig{
			Price: func(call *x402test.MCPCall) *big.Int {
				if string(call.Arguments) == `{"free":true}` {
					return nil
				}
				return big.NewInt(x402test.DefaultPrice)
			},
		}))
		b.Cleanup(srv.Close)
		session := connect(b, srv, transport)
		client, err := mcppay.New(session, benchPayer(b, srv.Facilitator()))
		require.NoError(b, err)

		web := x402test.NewServer()
		b.Cleanup(web.Close)
		hc := &http.Client{Transport: benchPayer(b, web.Facilitator()).RoundTripper(web.Client().Transport)}

		b.Run(transport+"/sdk", func(b *testing.B) {
			measure(b, func() {
				res, err := client.CallTool(ctx, &mcp.CallToolParams{Name: x402test.DefaultMCPTool, Arguments: paid})
				if err != nil || res.IsError || res.Payment == nil {
					b.Fatal(res, err)
				}
			})
		})
		freeCall := func() {
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: x402test.DefaultMCPTool, Arguments: free})
			if err != nil || res.IsError {
				b.Fatal(res, err)
			}
		}
		paidFetch := func() {
			resp, err := hc.Get(web.URL + "/doc")
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatal(resp, err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
		b.Run(transport+"/floor", func(b *testing.B) {
			measure(b, func() { freeCall(); paidFetch() })
		})
		// The floor's parts, to read the comparison by.
		b.Run(transport+"/free-call", func(b *testing.B) { measure(b, freeCall) })
		b.Run(transport+"/paid-fetch", func(b *testing.B) { measure(b, paidFetch) })
	}
}

// measure runs op b.N times, reporting its allocations and the process's CPU time per op.
func measure(b *testing.B, op func()) {
	op() // a warm session and connection on both sides
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		op()
	}
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}
