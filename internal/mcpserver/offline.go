package mcpserver

import (
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/hosting/hostingtest"
	"github.com/agentapis/sdk/productdata"
	"github.com/agentapis/sdk/productdata/productdatatest"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/usdc"
	"github.com/agentapis/sdk/x402/x402test"
)

// The environment variables the server reads besides the clients' own (reportstore.EnvURL,
// hosting.EnvToken, ...).
const (
	// EnvEVMPrivateKey is the hex key of the wallet paying x402 resources (reportstore,
	// x402_fetch) in USDC on Base.
	EnvEVMPrivateKey = "EVM_PRIVATE_KEY"
	// EnvSolanaPrivateKey is the base58 key of the wallet buying gpuprice keys.
	EnvSolanaPrivateKey = "SOLANA_PRIVATE_KEY"
	// EnvGPUPriceTreasury is gpuprice's treasury wallet, the only payee of a key purchase.
	EnvGPUPriceTreasury = "GPUPRICE_TREASURY"
	// EnvReportstorePayTo pins the report store's payee.
	EnvReportstorePayTo = "REPORTSTORE_PAY_TO"
)

// offlineDemoPrice is what the offline paid resource of x402_fetch charges: one cent.
var offlineDemoPrice = usdc.Cents(1)

// startOffline starts the in-memory fakes of the five services and a paid resource for
// x402_fetch, all settling in one fake facilitator, funds throwaway wallets in them, and
// makes the server's environment point at them. The budget goes to a temporary file removed
// at Close, unless a budget file or database was given on purpose. Nothing leaves the machine.
func (s *Server) startOffline() error {
	if s.opts.BudgetPath == "" && s.opts.BudgetDSN == "" {
		dir, err := os.MkdirTemp("", "agentapis-mcp-")
		if err != nil {
			return err
		}
		s.closers = append(s.closers, func() { os.RemoveAll(dir) })
		s.opts.BudgetPath = filepath.Join(dir, "budget.db")
	}

	fac := x402test.NewFacilitator()
	store := reportstoretest.NewServer(reportstoretest.WithFacilitator(fac))
	demo := x402test.NewServer(x402test.WithFacilitator(fac), x402test.WithPaywall(x402test.PaywallConfig{
		PayTo: x402test.DefaultPayTo, Amount: offlineDemoPrice, MimeType: "application/json", Description: "the offline demo resource"}))
	site := hostingtest.NewServer()
	products := productdatatest.NewServer(productdatatest.WithTaskDuration(300 * time.Millisecond))
	gpus := gpupricetest.NewServer()
	charts := chartdifftest.NewServer(chartdifftest.WithCharts(200))
	s.closers = append(s.closers, store.Close, demo.Close, site.Close, products.Close, gpus.Close, charts.Close)

	// Throwaway wallets, funded in the fakes: the policy, not the balance, bounds spending.
	key, err := crypto.GenerateKey()
	if err != nil {
		return err
	}
	evmKey := hex.EncodeToString(crypto.FromECDSA(key))
	signer, err := evm.NewPrivateKeySigner(evmKey)
	if err != nil {
		return err
	}
	fac.Fund(signer.Address(), usdc.Dollars(1000))
	wallet := solana.NewWallet().PrivateKey
	gpus.FundUSDC(wallet.PublicKey(), usdc.Dollars(1000))
	gpus.FundSOL(wallet.PublicKey(), 100_000_000)

	env := map[string]string{
		reportstore.EnvURL:  store.URL,
		EnvReportstorePayTo: store.PayTo(),
		hosting.EnvURL:      site.URL, hosting.EnvToken: hostingtest.DefaultToken,
		productdata.EnvURL: products.URL, productdata.EnvAccountKey: productdatatest.DefaultKey,
		gpuprice.EnvURL: gpus.URL, gpuprice.EnvRPCURL: gpus.RPCURL,
		EnvGPUPriceTreasury: gpus.Treasury.String(), EnvSolanaPrivateKey: wallet.String(),
		chartdiff.EnvURL: charts.URL, chartdiff.EnvAPIKey: charts.IssueKey(charts.AccountToken()),
		chartdiff.EnvAccountToken: charts.AccountToken(),
		EnvEVMPrivateKey:          evmKey,
	}
	s.env = func(name string) string { return env[name] }
	for _, raw := range []string{store.URL, demo.URL, site.URL, products.URL, gpus.URL, gpus.RPCURL, charts.URL} {
		if u, err := url.Parse(raw); err == nil {
			s.trustedHosts = append(s.trustedHosts, strings.ToLower(u.Host))
		}
	}
	s.lookups = append(s.lookups, fac)
	s.demoURL = demo.URL + "/demo/report.json"
	return nil
}
