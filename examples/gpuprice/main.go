// Command gpuprice walks through the GPU price API: it prints the cheapest H100 and the
// compute futures index, buys a Pro key with a USDC payment on Solana from a freshly
// generated wallet, and fetches the H100 price history with that key.
//
// It runs offline against the in-memory fakes of the API and of a Solana node:
//
//	go run ./examples/gpuprice
//
// Buying a real key spends real USDC; this program never does: it always pays the fake.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"math/big"
	"os"
	"os/signal"

	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/x402"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run performs the walk-through against the fakes, writing what happens to out.
func run(ctx context.Context, out io.Writer) error {
	srv := gpupricetest.NewServer()
	defer srv.Close()
	client, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL), gpuprice.WithRPCURL(srv.RPCURL))
	if err != nil {
		return err
	}

	// 1. The cheapest H100 and the futures index: free endpoints, no key.
	best, err := client.Cheapest(ctx, "H100")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "cheapest H100: %.2f USD/h on %s (%.1f%% below the dearest platform)\n",
		best.BestPriceUSDHr, best.BestPlatform, best.SavingPctVsDearest)
	index, err := client.FuturesIndex(ctx)
	if err != nil {
		return err
	}
	if index.Value != nil && index.Bid != nil && index.Ask != nil {
		fmt.Fprintf(out, "futures index %s: %.4f USD per H100-hour (bid %.4f, ask %.4f)\n", index.Symbol, *index.Value, *index.Bid, *index.Ask)
	}
	if rl := index.Response.RateLimit; rl != nil && rl.Remaining != nil {
		fmt.Fprintf(out, "free requests left today: %d\n", *rl.Remaining)
	}

	// 2. Buy a Pro key from a new wallet, funded on the fake cluster, within a 10 USDC budget.
	wallet := solana.NewWallet().PrivateKey
	srv.FundUSDC(wallet.PublicKey(), 6_000_000)
	srv.FundSOL(wallet.PublicKey(), 10_000_000) // 0.01 SOL: the transaction's fee is paid in SOL
	payer, err := gpuprice.NewPrivateKeySigner(wallet)
	if err != nil {
		return err
	}
	budget, err := x402.NewBudget(big.NewInt(10_000_000))
	if err != nil {
		return err
	}
	key, err := client.BuyKey(ctx, &gpuprice.BuyKeyParams{Plan: gpuprice.PlanPro, Payer: payer, Treasury: srv.Treasury, Budget: budget})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "bought a %s key %v, valid until %s; budget spent %s of %s\n",
		key.Plan, key.Key, key.ExpiresAt.Format("2006-01-02"), x402.FormatUSDC(budget.Spent()), x402.FormatUSDC(budget.Limit()))

	// 3. The history needs the key; BuyKey already switched the client to it.
	h, err := client.History(ctx, &gpuprice.HistoryParams{Model: "H100", Platform: best.BestPlatform, Limit: 7})
	if err != nil {
		return err
	}
	for _, s := range h.Snapshots {
		if s.Timestamp != nil && s.USDPerHour != nil {
			fmt.Fprintf(out, "  %s  %.2f USD/h\n", s.Timestamp.Format("2006-01-02"), *s.USDPerHour)
		}
	}
	return nil
}
