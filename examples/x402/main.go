// Command x402 shows a payment with the x402 package, offline: it starts an in-memory paywall
// on 127.0.0.1, funds a freshly generated key in the test facilitator, buys a resource
// through Payer.RoundTripper, and prints the receipt and the total spent.
//
//	go run ./examples/x402
package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/x402test"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	// A throwaway wallet; a real program reads its key from a secret store.
	key, err := crypto.GenerateKey()
	if err != nil {
		return err
	}
	signer, err := x402.NewPrivateKeySigner(hex.EncodeToString(crypto.FromECDSA(key)))
	if err != nil {
		return err
	}

	// The seller: a paywall charging $0.13 in USDC on Base for each report.
	facilitator := x402test.NewFacilitator()
	facilitator.Fund(signer.Address(), big.NewInt(1_000_000)) // $1.00
	shop := "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	srv := httptest.NewServer(x402test.NewPaywall(facilitator, x402test.PaywallConfig{
		PayTo:       shop,
		Amount:      big.NewInt(130_000),
		Description: "Macro report",
	}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintln(w, "Inflation report: CPI 2.4% year on year.")
	})))
	defer srv.Close()

	// The buyer: at most $0.25 per request and $1.00 in total, with a look at every quote.
	payer, err := x402.NewPayer(signer, x402.Policy{
		MaxPerPayment: big.NewInt(250_000),
		MaxTotal:      big.NewInt(1_000_000),
		Approve: func(_ context.Context, q x402.Quote) error {
			fmt.Printf("quote: %s atomic USDC to %s on %s for %s\n",
				q.Requirements.Amount, q.Requirements.PayTo, q.Network, q.URL.Path)
			return nil
		},
	})
	if err != nil {
		return err
	}
	client := &http.Client{Transport: payer.RoundTripper(nil), Timeout: 10 * time.Second}

	resp, err := client.Get(srv.URL + "/report/macro-inflation")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	fmt.Printf("status: %d\nbody: %s", resp.StatusCode, body)

	receipt, ok := x402.ReceiptFrom(resp)
	if !ok {
		return fmt.Errorf("no receipt in the response")
	}
	fmt.Printf("receipt: success=%t transaction=%s network=%s payer=%s\n",
		receipt.Success, receipt.Transaction, receipt.Network, receipt.Payer)
	fmt.Printf("spent: %s atomic USDC; payer balance %s, shop balance %s\n",
		payer.Spent(), facilitator.Balance(signer.Address()), facilitator.Balance(shop))
	return nil
}
