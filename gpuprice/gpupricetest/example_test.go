package gpupricetest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/usdc"
)

// A client of package gpuprice against the fake, on a fake clock that the example moves:
// the free tier's daily quota, here of one request, starts again at midnight UTC.
func ExampleNewServer() {
	clock := sdktest.NewClock(time.Date(2026, 1, 1, 23, 59, 0, 0, time.UTC))
	srv := gpupricetest.NewServer(gpupricetest.WithClock(clock), gpupricetest.WithFreeQuota(1))
	defer srv.Close()
	client, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	for range 2 {
		_, err = client.Platforms(ctx)
	}
	fmt.Println("quota used up:", errors.Is(err, gpuprice.ErrRateLimited))
	clock.Advance(time.Minute)
	_, err = client.Platforms(ctx)
	fmt.Println("the next day:", err)
	// Output:
	// quota used up: true
	// the next day: <nil>
}

// Buying a Pro key: a USDC TransferChecked to the treasury with the memo "API-PRO", sent
// through solana-go's rpc client, then redeemed with the transaction signature.
func ExampleServer_FundUSDC() {
	srv := gpupricetest.NewServer()
	defer srv.Close()
	ctx := context.Background()
	payer := solana.NewWallet().PrivateKey
	srv.FundUSDC(payer.PublicKey(), usdc.Dollars(8)) // 8 USDC
	srv.FundSOL(payer.PublicKey(), 1_000_000)        // 0.001 SOL, for the fee

	node := rpc.New(srv.RPCURL)
	from, _, _ := solana.FindAssociatedTokenAddress(payer.PublicKey(), gpupricetest.USDCMint)
	bh, err := node.GetLatestBlockhash(ctx, rpc.CommitmentFinalized)
	if err != nil {
		log.Fatal(err)
	}
	tx, err := solana.NewTransaction([]solana.Instruction{
		token.NewTransferCheckedInstruction(usdc.Dollars(5).Uint64(), usdc.Decimals, from, gpupricetest.USDCMint,
			srv.TreasuryATA(), payer.PublicKey(), nil).Build(),
		solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{solana.Meta(payer.PublicKey()).SIGNER()}, []byte(gpupricetest.MemoPro)),
	}, bh.Value.Blockhash, solana.TransactionPayer(payer.PublicKey()))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := tx.Sign(func(solana.PublicKey) *solana.PrivateKey { return &payer }); err != nil {
		log.Fatal(err)
	}
	sig, err := node.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentFinalized})
	if err != nil {
		log.Fatal(err)
	}
	status, err := node.GetSignatureStatuses(ctx, true, sig)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("status:", status.Value[0].ConfirmationStatus)

	resp, err := http.Post(srv.URL+gpupricetest.DefaultRedeemPath, "application/json",
		strings.NewReader(`{"tx_signature":"`+sig.String()+`"}`))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var issued struct {
		APIKey string `json:"api_key"`
		Plan   string `json:"plan"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&issued); err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, issued.Plan, strings.HasPrefix(issued.APIKey, "gpk_"))
	fmt.Println("payer:", usdc.Format(srv.USDCBalance(payer.PublicKey())), "treasury:", usdc.Format(srv.USDCBalance(srv.Treasury)))
	// Output:
	// status: confirmed
	// 201 pro true
	// payer: $3.00 treasury: $5.00
}
