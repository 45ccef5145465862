package solanafake_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"log"
	"net/http/httptest"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/agentapis/sdk/internal/solanafake"
	"github.com/agentapis/sdk/sdktest"
)

// A facilitator settles an x402 "exact" payment: the payer signs a transfer whose fee the
// facilitator pays, the facilitator simulates it with its own signature still missing,
// signs it, and submits it.
func Example() {
	cluster := solanafake.New(solanafake.Config{Clock: sdktest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)).Now})
	node := httptest.NewServer(cluster)
	defer node.Close()
	usdc := solana.MustPublicKeyFromBase58("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")
	cluster.AddMint(solanafake.Mint{Address: usdc, Program: solana.TokenProgramID, Decimals: 6})
	facilitator, payer, seller := solana.NewWallet().PrivateKey, solana.NewWallet().PrivateKey, solana.NewWallet().PublicKey()
	cluster.FundSOL(facilitator.PublicKey(), 1_000_000_000)
	from := cluster.FundToken(usdc, payer.PublicKey(), 50_000)
	to := cluster.FundToken(usdc, seller, 0)

	// The payer's side, through the node as a client would.
	bh, err := rpc.New(node.URL).GetLatestBlockhash(context.Background(), rpc.CommitmentConfirmed)
	if err != nil {
		log.Fatal(err)
	}
	transfer := binary.LittleEndian.AppendUint64([]byte{12}, 10_000)
	tx, err := solana.NewTransaction([]solana.Instruction{
		solana.NewInstruction(solana.TokenProgramID, solana.AccountMetaSlice{solana.Meta(from).WRITE(), solana.Meta(usdc),
			solana.Meta(to).WRITE(), solana.Meta(payer.PublicKey()).SIGNER()}, append(transfer, 6)),
		solana.NewInstruction(solana.MemoProgramID, solana.AccountMetaSlice{}, []byte("order 42")),
	}, bh.Value.Blockhash, solana.TransactionPayer(facilitator.PublicKey()))
	if err != nil {
		log.Fatal(err)
	}
	tx.Message.SetVersion(solana.MessageVersionV0)
	keys := map[solana.PublicKey]*solana.PrivateKey{payer.PublicKey(): &payer}
	if _, err := tx.PartialSign(func(k solana.PublicKey) *solana.PrivateKey { return keys[k] }); err != nil {
		log.Fatal(err)
	}

	// The facilitator's side.
	sim, err := cluster.Simulate(tx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("fee:", sim.Fee)
	keys[facilitator.PublicKey()] = &facilitator
	if _, err := tx.PartialSign(func(k solana.PublicKey) *solana.PrivateKey { return keys[k] }); err != nil {
		log.Fatal(err)
	}
	sig, err := cluster.Submit(tx, solanafake.SendOptions{})
	if err != nil {
		log.Fatal(err)
	}
	landed, _ := cluster.Landed(sig)
	fmt.Println(landed.Stage, string(landed.Memos[0]), cluster.TokenBalance(usdc, seller))
	_, err = cluster.Submit(tx, solanafake.SendOptions{})
	fmt.Println(err)
	// Output:
	// fee: 10000
	// confirmed order 42 10000
	// solana node error -32002: Transaction simulation failed: This transaction has already been processed
}
