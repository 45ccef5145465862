package budgetfile_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math/big"
	"net/http"
	"os"
	"path/filepath"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/budgetfile"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/usdc"
	"github.com/agentapis/sdk/x402/x402test"
)

// Each run of a program opens the same budget file: what earlier runs spent still counts.
func Example() {
	dir, err := os.MkdirTemp("", "budget")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "budget.db")

	srv := x402test.NewServer() // charges $0.01 a request
	defer srv.Close()
	signer, err := evm.NewPrivateKeySigner("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
	if err != nil {
		log.Fatal(err)
	}
	srv.Facilitator().Fund(signer.Address(), big.NewInt(1_000_000))
	scheme, err := evm.NewExact(signer)
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	// run is one run of the program: it pays for one report.
	run := func() error {
		store, err := budgetfile.Open(path)
		if err != nil {
			return err
		}
		defer store.Close()
		b, err := budget.New(big.NewInt(25_000), budget.WithStore(store)) // $0.025 over the file's life
		if err != nil {
			return err
		}
		payer, err := x402.NewPayer(x402.Policy{}, []x402.Scheme{scheme}, x402.WithBudget(b))
		if err != nil {
			return err
		}
		client := &http.Client{Transport: payer.RoundTripper(srv.Client().Transport)}
		resp, err := client.Get(srv.URL + "/report")
		if errors.Is(err, x402.ErrBudgetExceeded) {
			spent, err := b.Spent(ctx)
			if err != nil {
				return err
			}
			fmt.Println("refused: the budget is spent; spent", usdc.Format(spent))
			return nil
		}
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		spent, err := b.Spent(ctx)
		if err != nil {
			return err
		}
		fmt.Println(resp.Status, "spent", usdc.Format(spent))
		return nil
	}
	for range 3 {
		if err := run(); err != nil {
			log.Fatal(err)
		}
	}
	// Output:
	// 200 OK spent $0.01
	// 200 OK spent $0.02
	// refused: the budget is spent; spent $0.02
}
