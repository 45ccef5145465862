package gpupricetest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/agentapis/sdk/gpuprice/gpupricetest"
)

func ExampleNewServer() {
	srv := gpupricetest.NewServer(gpupricetest.WithClock(func() time.Time {
		return time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	}))
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/v1/cheapest?model=H100")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(resp.StatusCode, " ", string(body))
	fmt.Println(resp.Header.Get("X-RateLimit-Remaining"), "of", resp.Header.Get("X-RateLimit-Limit"), "free requests left today")
	// Output:
	// 200 {"model":"H100","best_platform":"lambda","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6,"all_on_demand":{"aws":5.75,"azure":4.59,"coreweave":3.42,"gcp":4.86,"lambda":2.84,"runpod":2.88}}
	// 9 of 10 free requests left today
}

// Buying a Pro key: a USDC TransferChecked to the treasury with the memo "API-PRO", sent
// through solana-go's rpc client, then redeemed with the transaction signature.
func ExampleServer_FundUSDC() {
	srv := gpupricetest.NewServer()
	defer srv.Close()
	ctx := context.Background()
	payer := solana.NewWallet().PrivateKey
	srv.FundUSDC(payer.PublicKey(), 8_000_000) // 8 USDC
	srv.FundSOL(payer.PublicKey(), 1_000_000)  // 0.001 SOL, for the fee

	node := rpc.New(srv.RPCURL)
	from, _, _ := solana.FindAssociatedTokenAddress(payer.PublicKey(), gpupricetest.USDCMint)
	bh, err := node.GetLatestBlockhash(ctx, rpc.CommitmentFinalized)
	if err != nil {
		log.Fatal(err)
	}
	tx, err := solana.NewTransaction([]solana.Instruction{
		token.NewTransferCheckedInstruction(gpupricetest.ProPrice, gpupricetest.USDCDecimals, from, gpupricetest.USDCMint,
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
	fmt.Println("payer:", srv.USDCBalance(payer.PublicKey()), "treasury:", srv.USDCBalance(srv.Treasury))
	// Output:
	// status: confirmed
	// 201 pro true
	// payer: 3000000 treasury: 5000000
}
