package reportstore_test

import (
	"context"
	"fmt"
	"io"
	"log"

	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/usdc"
)

func ExampleClient_Catalog() {
	store := reportstoretest.NewServer()
	defer store.Close()
	client, err := reportstore.New(reportstore.WithBaseURL(store.URL))
	if err != nil {
		log.Fatal(err)
	}

	catalog, err := client.Catalog(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(catalog.Products), "products")
	for _, p := range catalog.Products[:3] {
		economies := "economies not stated" // Economies is nil when the store does not say.
		if p.Economies != nil {
			economies = fmt.Sprintf("%d economies", *p.Economies)
		}
		fmt.Printf("%s %s %s, %s, %s\n", p.ID, usdc.Format(p.Price), p.Kind, economies, p.Period)
	}
	// Output:
	// 80 products
	// macro-gdp $0.13 catalog, 20 economies, 2015:2025
	// macro-gdp-per-capita $0.13 catalog, 20 economies, 2015:2025
	// macro-gdp-ppp $0.13 catalog, 20 economies, 2015:2025
}

func ExampleClient_Quote() {
	store := reportstoretest.NewServer()
	defer store.Close()
	client, err := reportstore.New(reportstore.WithBaseURL(store.URL))
	if err != nil {
		log.Fatal(err)
	}

	// The unpaid request: the store's 402 states the live price. Nothing is paid.
	q, err := client.Quote(context.Background(), "macro-fdi", reportstore.FormatCSV)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("price:", usdc.Format(q.Amount), "=", q.Amount, "atomic USDC units")
	fmt.Println("network:", q.Network)
	fmt.Println("pay to:", q.PayTo)
	// Output:
	// price: $0.28 = 280000 atomic USDC units
	// network: eip155:8453
	// pay to: 0x7E57000000000000000000000000000000005707
}

func ExampleClient_Report() {
	store := reportstoretest.NewServer()
	defer store.Close()

	// A wallet funded in the fake store's ledger, paying at most 0.50 USDC per report and
	// 1 USDC in all, to the store's address only.
	signer, err := evm.NewPrivateKeySigner(testKey)
	if err != nil {
		log.Fatal(err)
	}
	scheme, err := evm.NewExact(signer)
	if err != nil {
		log.Fatal(err)
	}
	payer, err := x402.NewPayer(x402.Policy{
		MaxPerPayment: usdc.Cents(50),
		MaxTotal:      usdc.Dollars(1),
		PayTo:         []string{reportstoretest.DefaultPayTo},
	}, []x402.Scheme{scheme})
	if err != nil {
		log.Fatal(err)
	}
	store.Facilitator().Fund(signer.Address(), usdc.Dollars(1))

	client, err := reportstore.New(
		reportstore.WithBaseURL(store.URL),
		reportstore.WithPayer(payer),
		reportstore.WithExpectedPayee(reportstoretest.DefaultPayTo),
	)
	if err != nil {
		log.Fatal(err)
	}
	report, err := client.Report(context.Background(), "macro-gini", reportstore.FormatCSV)
	if err != nil {
		log.Fatal(err)
	}
	records, err := report.Records()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(records), "records")
	for _, r := range records[:4] {
		if r.Value == nil {
			fmt.Println(r.Economy, r.Year, r.Indicator, "(no data)")
			continue
		}
		fmt.Println(r.Economy, r.Year, r.Indicator, *r.Value)
	}
	fmt.Println("settled:", report.Receipt.Success, "on", report.Receipt.Network)
	spent, err := payer.Spent(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("spent:", usdc.Format(spent))
	fmt.Println("store balance:", usdc.Format(store.Facilitator().Balance(reportstoretest.DefaultPayTo)))
	// Output:
	// 110 records
	// US 2015 SI.POV.GINI (no data)
	// US 2016 SI.POV.GINI (no data)
	// US 2017 SI.POV.GINI 46.52
	// US 2018 SI.POV.GINI 46.82
	// settled: true on eip155:8453
	// spent: $0.25
	// store balance: $0.25
}

func ExampleClient_OpenReport() {
	store := reportstoretest.NewServer(reportstoretest.WithLargeReport("macro-stream", 10<<20, usdc.Cents(5)))
	defer store.Close()
	signer, err := evm.NewPrivateKeySigner(testKey)
	if err != nil {
		log.Fatal(err)
	}
	scheme, err := evm.NewExact(signer)
	if err != nil {
		log.Fatal(err)
	}
	// No total limit, on purpose: only the default cap of 1 USDC per payment applies.
	payer, err := x402.NewPayer(x402.Policy{MaxTotal: budget.Unlimited}, []x402.Scheme{scheme})
	if err != nil {
		log.Fatal(err)
	}
	store.Facilitator().Fund(signer.Address(), usdc.Dollars(1))
	client, err := reportstore.New(reportstore.WithBaseURL(store.URL), reportstore.WithPayer(payer))
	if err != nil {
		log.Fatal(err)
	}

	stream, err := client.OpenReport(context.Background(), "macro-stream", reportstore.FormatCSV)
	if err != nil {
		log.Fatal(err)
	}
	defer stream.Close()
	fmt.Println("receipt before reading:", stream.Receipt.Success)
	n, err := io.Copy(io.Discard, stream)
	if err != nil {
		log.Fatal(err)
	}
	spent, err := payer.Spent(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("streamed", n, "bytes of", stream.ContentType, "for", usdc.Format(spent))
	// Output:
	// receipt before reading: true
	// streamed 10485742 bytes of text/csv for $0.05
}
