package gpuprice_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math/big"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/usdc"
)

// exampleTime is the time at which the examples' fake stands.
var exampleTime = time.Date(2026, 3, 14, 15, 30, 0, 0, time.UTC)

func ExampleClient_Cheapest() {
	srv := gpupricetest.NewServer(gpupricetest.WithClock(sdktest.NewClock(exampleTime)))
	defer srv.Close()
	client, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	best, err := client.Cheapest(context.Background(), "H100")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %.2f USD/h on %s, %.1f%% below the dearest\n", best.Model, best.BestPriceUSDHr, best.BestPlatform, best.SavingPctVsDearest)
	fmt.Println(*best.Response.RateLimit.Remaining, "free requests left today")
	// Output:
	// H100: 2.84 USD/h on lambda, 50.6% below the dearest
	// 9 free requests left today
}

func ExampleClient_FuturesIndex() {
	srv := gpupricetest.NewServer(gpupricetest.WithClock(sdktest.NewClock(exampleTime)))
	defer srv.Close()
	client, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	x, err := client.FuturesIndex(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s over %d platforms and %d models, basis %s; bid below ask: %v\n", x.Symbol, *x.Platforms, *x.Models, x.Basis, *x.Bid < *x.Ask)
	// Output:
	// GCFI over 23 platforms and 14 models, basis H100; bid below ask: true
}

func ExampleClient_BuyKey() {
	srv := gpupricetest.NewServer(gpupricetest.WithClock(sdktest.NewClock(exampleTime)))
	defer srv.Close()
	ctx := context.Background()

	wallet := solana.NewWallet().PrivateKey
	srv.FundUSDC(wallet.PublicKey(), usdc.Dollars(8)) // 8 USDC on the fake cluster
	srv.FundSOL(wallet.PublicKey(), 10_000_000)       // and 0.01 SOL, for the fee
	payer, err := svm.NewPrivateKeySigner(wallet)
	if err != nil {
		log.Fatal(err)
	}
	spend, err := budget.New(big.NewInt(10_000_000)) // at most 10 USDC, on every rail
	if err != nil {
		log.Fatal(err)
	}
	client, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL), gpuprice.WithRPCURL(srv.RPCURL))
	if err != nil {
		log.Fatal(err)
	}

	key, err := client.BuyKey(ctx, &gpuprice.BuyKeyParams{Plan: gpuprice.PlanPro, Payer: payer, Treasury: srv.Treasury, Budget: spend})
	var pe *gpuprice.PaymentError
	if errors.As(err, &pe) {
		log.Fatalf("%v; look up or redeem the payment with its signature", err)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("plan:", key.Plan, "expires:", key.ExpiresAt.Format(time.DateOnly))
	spent, err := spend.Spent(ctx)
	if err != nil {
		log.Fatal(err)
	}
	held, err := spend.Reserved(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("spent:", usdc.Format(spent), "held:", usdc.Format(held))

	h, err := client.History(ctx, &gpuprice.HistoryParams{Model: "H100", Platform: "lambda", Limit: 3})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(h.Snapshots), "snapshots of", *h.Total)
	// Output:
	// plan: pro expires: 2026-04-14
	// spent: $5.00 held: $0.00
	// 3 snapshots of 30
}
