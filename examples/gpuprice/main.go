// Command gpuprice walks through the GPU price API: it prints the cheapest price of a GPU
// model and the compute futures index, buys a Pro key with a USDC payment on Solana from a
// freshly generated wallet, within a budget of -cap, and fetches the model's price history
// with that key.
//
// It runs offline against the in-memory fakes of the API and of a Solana node:
//
//	go run ./examples/gpuprice -model L40S -cap 10.00
//
// Buying a real key spends real USDC; this program never does: it always pays the fake. The
// tour buys a live one with -live-payments (go run ./examples/tour -h).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/examples/internal/cli"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/usdc"
)

// about is what -h says the program does.
const about = `Prints the cheapest price of a GPU model and the compute futures index, buys a Pro key
with USDC on Solana within a budget of -cap, and reads the model's price history with it.
It always runs against the in-memory fakes of the API and of a Solana node, and pays from a
throwaway wallet: it never spends real money (the tour buys a live key with -live-payments).`

// settings say which model to price and the budget of the key purchase.
type settings struct {
	model string
	// budget is the most the purchase may spend, in USDC atomic units.
	budget *big.Int
}

func main() { cli.Main(realMain) }

// realMain runs the program with the command line args, and returns its exit status. It
// reads no environment variable: env is there for the signature every example shares.
func realMain(ctx context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) int {
	p := cli.New("gpuprice", about)
	model := p.Flags.String("model", "H100", "the GPU model to price and read the history of")
	capText := p.Flags.String("cap", "10.00", "the budget of the key purchase, in USD (a Pro key costs 5.00)")
	if code, done := p.Parse(args, stdout, stderr); done {
		return code
	}
	if strings.TrimSpace(*model) == "" {
		return p.Refuse(stderr, errors.New("-model: name a GPU model, such as H100"))
	}
	budget, err := cli.ParseCap("cap", *capText)
	if err != nil {
		return p.Refuse(stderr, err)
	}
	return p.Exit(stderr, run(ctx, stdout, settings{model: *model, budget: budget}))
}

// run performs the walk-through against the fakes, writing what happens to out.
func run(ctx context.Context, out io.Writer, s settings) error {
	srv := gpupricetest.NewServer()
	defer srv.Close()
	client, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL), gpuprice.WithRPCURL(srv.RPCURL))
	if err != nil {
		return err
	}

	// 1. The cheapest offer of the model and the futures index: free endpoints, no key.
	best, err := client.Cheapest(ctx, s.model)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "cheapest %s: %.2f USD/h on %s (%.1f%% below the dearest platform)\n",
		s.model, best.BestPriceUSDHr, best.BestPlatform, best.SavingPctVsDearest)
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

	// 2. Buy a Pro key from a new wallet, funded on the fake cluster, within the budget.
	wallet := solana.NewWallet().PrivateKey
	srv.FundUSDC(wallet.PublicKey(), usdc.Dollars(6))
	srv.FundSOL(wallet.PublicKey(), 10_000_000) // 0.01 SOL: the transaction's fee is paid in SOL
	payer, err := svm.NewPrivateKeySigner(wallet)
	if err != nil {
		return err
	}
	spend, err := budget.New(s.budget)
	if err != nil {
		return err
	}
	key, err := client.BuyKey(ctx, &gpuprice.BuyKeyParams{Plan: gpuprice.PlanPro, Payer: payer, Treasury: srv.Treasury, Budget: spend})
	if err != nil {
		return fmt.Errorf("buying a Pro key: %w", err)
	}
	expires := "no expiry given"
	if key.ExpiresAt != nil {
		expires = "valid until " + key.ExpiresAt.Format("2006-01-02")
	}
	price, _ := gpuprice.PlanPro.Price()
	fmt.Fprintf(out, "bought a %s key %v, %s\n", key.Plan, key.Key, expires)
	spent, err := spend.Spent(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "paid %s in USDC on Solana to the treasury %s; budget spent %s of %s\n",
		usdc.Format(price), srv.Treasury, usdc.Format(spent), usdc.Format(spend.Limit()))

	// 3. The history needs the key; BuyKey already switched the client to it.
	h, err := client.History(ctx, &gpuprice.HistoryParams{Model: s.model, Platform: best.BestPlatform, Limit: 7})
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
