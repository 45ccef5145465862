package x402test_test

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/x402test"
)

// A paywall in front of a handler, paid by an x402.Payer, with the settlements audited in
// the facilitator.
func ExampleNewPaywall() {
	f := x402test.NewFacilitator()
	shop := "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	prices := map[string]int64{"/report/cpi": 130_000, "/report/gdp": 90_000}
	srv := httptest.NewServer(x402test.NewPaywall(f, x402test.PaywallConfig{
		PayTo: shop,
		Price: func(r *http.Request) *big.Int {
			if p, ok := prices[r.URL.Path]; ok {
				return big.NewInt(p)
			}
			return nil // everything else is free
		},
	}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "content of "+r.URL.Path)
	})))
	defer srv.Close()

	signer, _ := evm.NewPrivateKeySigner("0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
	f.Fund(signer.Address(), big.NewInt(1_000_000))
	scheme, _ := evm.NewExact(signer)
	payer, _ := x402.NewPayer(x402.Policy{MaxTotal: budget.Unlimited}, []x402.Scheme{scheme})
	client := &http.Client{Transport: payer.RoundTripper(nil)}

	for _, path := range []string{"/catalog", "/report/cpi", "/report/gdp"} {
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, string(body))
	}
	for _, s := range f.Settlements() {
		fmt.Println("settled", s.Value, "from", s.From, "to", s.To)
	}
	spent, _ := payer.Spent(context.Background())
	fmt.Println("shop balance:", f.Balance(shop), "payer spent:", spent)
	// Output:
	// 200 content of /catalog
	// 200 content of /report/cpi
	// 200 content of /report/gdp
	// settled 130000 from 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23 to 0x209693Bc6afc0C5328bA36FaF03C514EF312287C
	// settled 90000 from 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23 to 0x209693Bc6afc0C5328bA36FaF03C514EF312287C
	// shop balance: 220000 payer spent: 220000
}
