package gpuprice_test

import (
	"net/http"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/internal/benchtest"
	"github.com/agentapis/sdk/x402/svm"
)

// floorCheapest is what a hand-written client would decode: the fields the API description
// names.
type floorCheapest struct {
	Model              string             `json:"model"`
	BestPlatform       string             `json:"best_platform"`
	BestPriceUSDHr     float64            `json:"best_price_usd_hr"`
	SavingPctVsDearest float64            `json:"saving_pct_vs_dearest"`
	AllOnDemand        map[string]float64 `json:"all_on_demand"`
}

// floorGet is the hand-written GET of the cheapest H100: net/http and encoding/json only.
func floorGet(hc *http.Client, base, key string) error {
	req, err := http.NewRequest(http.MethodGet, base+"/v1/cheapest?model=H100", nil)
	if err != nil {
		return err
	}
	req.Header.Set(gpuprice.KeyHeader, key)
	return benchtest.Floor(hc, req, new(floorCheapest))
}

// BenchmarkCheapest compares Client.Cheapest with the hand-written floor on the same fake:
// one goroutine, then 64 sharing one client. Both send an Unlimited key (the SDK with
// WithKeyOnFreeEndpoints), so that no daily quota interferes. "conns" is the number of TCP
// connections each client dialled during the run.
//
//	go test -run='^$' -bench=Cheapest -benchmem -count=10 ./gpuprice
func BenchmarkCheapest(b *testing.B) {
	srv := gpupricetest.NewServer()
	b.Cleanup(srv.Close)
	key := srv.IssueKey(gpupricetest.PlanUnlimited, srv.Now().AddDate(1, 0, 0))
	benchtest.Run(b, benchtest.Calls{
		SDK: func(b *testing.B, hc *http.Client) func() error {
			c, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL), gpuprice.WithAPIKey(key), gpuprice.WithKeyOnFreeEndpoints(),
				gpuprice.WithHTTPClient(hc))
			if err != nil {
				b.Fatal(err)
			}
			return func() error { _, err := c.Cheapest(b.Context(), "H100"); return err }
		},
		Floor: func(b *testing.B, hc *http.Client) func() error {
			return func() error { return floorGet(hc, srv.URL, key) }
		},
	})
}

// BenchmarkBuildKeyPayment measures building and signing a Pro payment offline.
func BenchmarkBuildKeyPayment(b *testing.B) {
	payer, err := svm.NewPrivateKeySigner(solana.NewWallet().PrivateKey)
	if err != nil {
		b.Fatal(err)
	}
	p := &gpuprice.BuyKeyParams{Plan: gpuprice.PlanPro, Payer: payer, Treasury: solana.NewWallet().PublicKey()}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gpuprice.BuildKeyPayment(p, solana.Hash{1}); err != nil {
			b.Fatal(err)
		}
	}
}
