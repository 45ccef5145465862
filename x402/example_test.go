package x402_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// exampleKey is a throwaway key for the examples; never use a published key for real funds.
const exampleKey = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"

// A payer wraps any http.Client transport. Here it buys a report from an in-memory paywall.
func ExamplePayer_RoundTripper() {
	f := x402test.NewFacilitator()
	report := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "GDP grew 2.1%")
	})
	srv := httptest.NewServer(x402test.NewPaywall(f, x402test.PaywallConfig{
		PayTo:  "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		Amount: big.NewInt(130_000), // $0.13
	}, report))
	defer srv.Close()

	signer, err := evm.NewPrivateKeySigner(exampleKey)
	if err != nil {
		fmt.Println(err)
		return
	}
	f.Fund(signer.Address(), big.NewInt(1_000_000)) // $1

	scheme, err := evm.NewExact(signer)
	if err != nil {
		fmt.Println(err)
		return
	}
	payer, err := x402.NewPayer(x402.Policy{
		MaxPerPayment: big.NewInt(250_000),
		MaxTotal:      big.NewInt(500_000),
	}, []x402.Scheme{scheme})
	if err != nil {
		fmt.Println(err)
		return
	}
	client := &http.Client{Transport: payer.RoundTripper(nil)}

	resp, err := client.Get(srv.URL + "/report/gdp")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(body))

	receipt, ok := x402.ReceiptFrom(resp)
	fmt.Println("settled:", ok && receipt.Success, "on", receipt.Network, "by", receipt.Payer)
	spent, err := payer.Spent(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("spent:", spent, "balance left:", f.Balance(signer.Address()))
	// Output:
	// 200 GDP grew 2.1%
	// settled: true on eip155:8453 by 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23
	// spent: 130000 balance left: 870000
}

// A quote above the policy is refused before anything is signed.
func ExamplePolicyError() {
	f := x402test.NewFacilitator()
	srv := httptest.NewServer(x402test.NewPaywall(f, x402test.PaywallConfig{
		PayTo:  "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		Amount: big.NewInt(5_000_000), // $5
	}, http.NotFoundHandler()))
	defer srv.Close()

	signer, _ := evm.NewPrivateKeySigner(exampleKey)
	scheme, _ := evm.NewExact(signer)
	payer, _ := x402.NewPayer(x402.Policy{
		MaxTotal: budget.Unlimited,
		Approve: func(ctx context.Context, q x402.Quote) error {
			fmt.Println("never asked") // the cap refuses first
			return nil
		},
	}, []x402.Scheme{scheme})
	client := &http.Client{Transport: payer.RoundTripper(nil)}
	_, err := client.Get(srv.URL + "/expensive")

	var pe *x402.PolicyError
	if errors.As(err, &pe) && errors.Is(err, x402.ErrAmountOverCap) {
		fmt.Println("refused:", pe.Requirements.Amount, "is above the cap of", pe.Limit)
	}
	spent, _ := payer.Spent(context.Background())
	fmt.Println("spent:", spent)
	// Output:
	// refused: 5000000 is above the cap of 1000000
	// spent: 0
}

// wire.ReadPaymentRequired reads a 402 challenge, here the example of the x402 v2 HTTP spec.
func Example_readPaymentRequired() {
	header, _ := os.ReadFile("../internal/spectest/testdata/spec_payment_required.b64")
	resp := &http.Response{StatusCode: http.StatusPaymentRequired, Header: http.Header{}, Body: http.NoBody}
	resp.Header.Set(wire.HeaderPaymentRequired, strings.TrimSpace(string(header)))

	pr, err := wire.ReadPaymentRequired(resp)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range pr.Accepts {
		name, version, _ := evm.TokenDomain(&r)
		fmt.Println(r.Scheme, r.Network, r.Amount, r.PayTo, name, version, r.Usable())
	}
	// Output:
	// exact eip155:84532 10000 0x209693Bc6afc0C5328bA36FaF03C514EF312287C USDC 2 true
}

// evm.VerifyExact checks a payment offline; here the signed example of the x402 v2 spec, at a
// time inside its validity window.
func Example_verifyExact() {
	header, _ := os.ReadFile("../internal/spectest/testdata/spec_payment_signature.b64")
	p, err := wire.DecodePaymentPayload(strings.TrimSpace(string(header)))
	if err != nil {
		fmt.Println(err)
		return
	}
	payer, err := evm.VerifyExact(p, p.Accepted, time.Unix(1740672100, 0))
	fmt.Println(payer, err)

	// Later, the authorization has expired.
	_, err = evm.VerifyExact(p, p.Accepted, time.Unix(1740672200, 0))
	var ve *wire.VerifyError
	if errors.As(err, &ve) {
		fmt.Println(ve.Reason)
	}
	// Output:
	// 0x857b06519E91e3A54538791bDbb0E22373e36b66 <nil>
	// invalid_exact_evm_payload_authorization_valid_before
}
