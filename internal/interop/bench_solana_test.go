package interop_test

import (
	"context"
	"math/big"
	"net/http"
	"strconv"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/svm"
)

// benchUSDC is the USDC each payer of the Solana benchmark holds: enough for 10^9 fetches.
const benchUSDC = 10_000_000_000_000_000

// BenchmarkPaidFetchSolana measures one paid fetch of the reference server's paid resource
// over Solana (server.mjs: @x402/express with the reference facilitator of @x402/svm settling
// on the litesvm node of node.mjs), two ways in the same run: the SDK (an x402.Payer with the
// svm.Exact scheme on an http.Client) and "reference", the reference @x402/fetch client with
// @x402/svm's scheme (client.mjs bench), which makes b.N paid fetches in one node process and
// reports their time alone. Both report "ns/fetch"; for the reference client ns/op also
// counts node's start-up. Each fetch builds and signs a new transaction, reads the chain (the
// SDK: a blockhash; the reference client: the mint and a blockhash), and the facilitator
// simulates it twice, lands it and confirms it.
//
//	npm ci --prefix internal/interop/testdata/js --ignore-scripts
//	npm ci --prefix internal/interop/testdata/solana --ignore-scripts
//	go test -run='^$' -bench=PaidFetchSolana -benchtime=20x ./internal/interop
func BenchmarkPaidFetchSolana(b *testing.B) {
	js := requireNode(b)
	rail := startSolanaRail(b)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	srv := startJSServer(ctx, b, js, jsServerConfig{SVM: rail.svmConfig()})
	paidURL := srv.URL + "/paid"

	b.Run("sdk", func(b *testing.B) {
		signer, _ := solanaPayer(b, rail.node, benchUSDC, 0)
		payer, err := x402.NewPayer(x402.Policy{
			MaxPerPayment: big.NewInt(price),
			MaxTotal:      budget.Unlimited, // a benchmark of as many payments as it takes
			PayTo:         []string{rail.treasury.String()},
			Networks:      []string{svm.NetworkMainnet},
		}, []x402.Scheme{rail.exactSolana(b, signer)})
		if err != nil {
			b.Fatal(err)
		}
		tr := http.DefaultTransport.(*http.Transport).Clone()
		b.Cleanup(tr.CloseIdleConnections)
		hc := &http.Client{Transport: payer.RoundTripper(tr)}
		runGo(b, func() error { return sdkPaidFetch(ctx, hc, paidURL) })
	})
	b.Run("reference", func(b *testing.B) {
		key := solana.NewWallet().PrivateKey
		scan.Add(key.String())
		rail.node.setUSDC(b, key.PublicKey(), benchUSDC)
		var out struct {
			N         int   `json:"n"`
			ElapsedNs int64 `json:"elapsedNs"`
		}
		env := []string{svmSecretEnv + "=" + key.String(), svmRPCEnv + "=" + rail.node.URL}
		runJSClientWith(ctx, b, js, env, &out, "bench", paidURL, strconv.Itoa(b.N))
		if out.N != b.N {
			b.Fatalf("client.mjs made %d fetches, want %d", out.N, b.N)
		}
		b.ReportMetric(float64(out.ElapsedNs)/float64(b.N), "ns/fetch")
	})
}
