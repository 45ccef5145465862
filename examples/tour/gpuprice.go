package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	"github.com/agentapis/sdk/examples/internal/cli"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/usdc"
)

// gpupriceResult is what the gpuprice step did.
type gpupriceResult struct {
	// Model, Platform and USDPerHour are the cheapest on-demand offer of the model.
	Model, Platform string
	USDPerHour      float64
	// Bought reports whether a key was bought; Plan and Signature describe the purchase.
	Bought    bool
	Plan      gpuprice.Plan
	Signature string
	// Snapshots is how many history snapshots the bought key read.
	Snapshots int
}

// tourGPU is the model the tour prices.
const tourGPU = "H100"

// gpupriceStep prints the cheapest platforms for a GPU, buys a Pro key with USDC on Solana
// from the session's budget, and reads the price history with it.
func (s *session) gpupriceStep(ctx context.Context) (any, error) {
	opts := []gpuprice.Option{gpuprice.WithHTTPClient(s.httpClient()), gpuprice.WithLogger(s.logger)}
	rpcURL, treasuryText, keyText := s.env(gpuprice.EnvRPCURL), s.env(cli.EnvGPUPriceTreasury), s.env(cli.EnvSolanaPrivateKey)
	var srv *gpupricetest.Server
	if s.live(gpuprice.EnvURL) {
		opts = append(opts, gpuprice.WithBaseURL(s.env(gpuprice.EnvURL)))
		if key := s.env(gpuprice.EnvAPIKey); key != "" {
			opts = append(opts, gpuprice.WithAPIKey(key))
		}
	} else {
		srv = gpupricetest.NewServer()
		s.closeLater(srv.Close)
		opts = append(opts, gpuprice.WithBaseURL(srv.URL))
		rpcURL, treasuryText = srv.RPCURL, srv.Treasury.String()
		wallet := solana.NewWallet().PrivateKey
		// The throwaway wallet holds 20 USDC: the session's cap, not the balance, bounds
		// what the tour may spend.
		srv.FundUSDC(wallet.PublicKey(), usdc.Dollars(20))
		srv.FundSOL(wallet.PublicKey(), 10_000_000) // 0.01 SOL, for the transaction's fee
		keyText = wallet.String()
	}
	// The environment was checked before the tour started: a live service is paid only with
	// -live-payments, a node, a treasury and a valid key.
	buy := srv != nil || s.opts.livePayments
	if buy {
		// The node's requests are counted with the others.
		node := rpc.NewWithCustomRPCClient(jsonrpc.NewClientWithOpts(rpcURL, &jsonrpc.RPCClientOpts{HTTPClient: s.httpClient()}))
		opts = append(opts, gpuprice.WithRPCClient(node))
	}
	client, err := gpuprice.New(opts...)
	if err != nil {
		return nil, err
	}

	res := &gpupriceResult{Model: tourGPU}
	best, err := client.Cheapest(ctx, tourGPU)
	if err != nil {
		return res, fmt.Errorf("the cheapest %s: %w", tourGPU, err)
	}
	res.Platform, res.USDPerHour = best.BestPlatform, best.BestPriceUSDHr
	s.printf("cheapest %s on demand: $%.2f/h on %s, %.1f%% below the dearest of %d platforms", tourGPU,
		best.BestPriceUSDHr, best.BestPlatform, best.SavingPctVsDearest, len(best.AllOnDemand))
	if index, err := client.FuturesIndex(ctx); err != nil {
		return res, fmt.Errorf("the futures index: %w", err)
	} else if index.Value != nil {
		s.printf("compute futures index %s: $%.4f per H100-equivalent hour", index.Symbol, *index.Value)
	}
	if !buy {
		s.printf("not buying a key from a live service: that needs -live-payments, %s, %s, %s and -cap",
			gpuprice.EnvRPCURL, cli.EnvGPUPriceTreasury, cli.EnvSolanaPrivateKey)
		return res, nil
	}

	payer, err := svm.PrivateKeySignerFromBase58(keyText)
	if err != nil {
		return res, fmt.Errorf("%s is not a base58 Solana private key", cli.EnvSolanaPrivateKey)
	}
	treasury, err := solana.PublicKeyFromBase58(treasuryText)
	if err != nil {
		return res, fmt.Errorf("%s: %w", cli.EnvGPUPriceTreasury, err)
	}
	key, err := client.BuyKey(ctx, &gpuprice.BuyKeyParams{Plan: gpuprice.PlanPro, Payer: payer, Treasury: treasury, Budget: s.budget})
	var pe *gpuprice.PaymentError
	if errors.As(err, &pe) {
		// The error carries the signature (masked when printed) so that the key can be
		// redeemed again when only the redemption failed.
		return res, fmt.Errorf("buying a Pro key (transaction %v): %w", pe.Signature, err)
	}
	if err != nil {
		return res, fmt.Errorf("buying a Pro key: %w", err)
	}
	res.Bought, res.Plan, res.Signature = true, key.Plan, key.TxSignature.Reveal()
	expires := "no expiry given"
	if key.ExpiresAt != nil {
		expires = "valid until " + key.ExpiresAt.Format("2006-01-02")
	}
	s.printf("bought a %s key %v (transaction %v), %s", key.Plan, key.Key, key.TxSignature, expires)
	if price, ok := gpuprice.PlanPro.Price(); ok {
		s.paid(payment{Amount: price, To: treasury.String(), Rail: "USDC on Solana", For: "a Pro key"})
	}

	h, err := client.History(ctx, &gpuprice.HistoryParams{Model: tourGPU, Platform: best.BestPlatform, Limit: 7})
	if err != nil {
		return res, fmt.Errorf("the price history with the new key: %w", err)
	}
	res.Snapshots = len(h.Snapshots)
	if res.Snapshots == 0 {
		return res, fmt.Errorf("the price history of %s on %s is empty", tourGPU, best.BestPlatform)
	}
	s.printf("read %d days of %s history on %s with the new key", res.Snapshots, tourGPU, best.BestPlatform)
	return res, nil
}
