package reportstoretest_test

import (
	"context"
	"fmt"

	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/usdc"
)

// A test buys from the fake store with a real payer: fund the payer in the store's
// facilitator, then read the sale and the settlement back from the fake.
func ExampleNewServer() {
	ctx := context.Background()
	store := reportstoretest.NewServer(reportstoretest.WithPrice("macro-gdp", usdc.Cents(25)))
	defer store.Close()

	signer, _ := evm.NewPrivateKeySigner("0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
	store.Facilitator().Fund(signer.Address(), usdc.Dollars(1))
	scheme, _ := evm.NewExact(signer)
	payer, _ := x402.NewPayer(x402.Policy{MaxTotal: usdc.Cents(50), PayTo: []string{store.PayTo()}}, []x402.Scheme{scheme})
	client, _ := reportstore.New(reportstore.WithBaseURL(store.URL), reportstore.WithPayer(payer))

	report, err := client.Report(ctx, "macro-gdp", reportstore.FormatCSV)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(report.ContentType, report.Receipt.Success)
	fmt.Println("sales:", store.Sales("macro-gdp"))
	fmt.Println("settled:", len(store.Facilitator().Settlements()), usdc.Format(store.Facilitator().Settlements()[0].Value))
	spent, _ := payer.Spent(ctx)
	fmt.Println("spent:", usdc.Format(spent))
	// Output:
	// text/csv true
	// sales: 1
	// settled: 1 $0.25
	// spent: $0.25
}
