package budgetpg_test

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"time"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budgetpg"
)

// A fleet of processes paying from one wallet shares one budget: each opens the same
// budget and pays through it. (The example needs a PostgreSQL server, so it is not run.)
func ExampleOpen() {
	ctx := context.Background()
	store, err := budgetpg.Open(ctx, os.Getenv("BUDGET_DSN"), budgetpg.WithName("crawlers"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	budget, err := x402.NewBudget(big.NewInt(50_000_000), // $50.00 of USDC, for the whole fleet
		x402.WithStore(store), x402.WithWindowLimit(24*time.Hour, big.NewInt(10_000_000), 0))
	if err != nil {
		fmt.Println(err) // budgetpg.ErrLimitsDiffer when the fleet runs with other limits
		return
	}
	signer, err := x402.NewPrivateKeySigner(os.Getenv("WALLET_KEY"))
	if err != nil {
		fmt.Println(err)
		return
	}
	payer, err := x402.NewPayer(signer, x402.Policy{}, x402.WithBudget(budget))
	if err != nil {
		fmt.Println(err)
		return
	}
	client := &http.Client{Transport: payer.RoundTripper(nil)}
	_ = client // pays within the fleet's budget
}
