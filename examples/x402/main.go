// Command x402 pays for an HTTP resource with the x402 package, through
// Payer.RoundTripper on a plain http.Client, and prints the quote, the receipt and where the
// money went.
//
// By default it runs offline: it starts an in-memory paywall on 127.0.0.1 that charges $0.13,
// funds a freshly generated key with $1.00 in the test facilitator and buys the resource:
//
//	go run ./examples/x402
//
// With -url it asks that resource instead and prints its quote without paying; with
// -live-payments as well it pays it, at most -cap, from the wallet whose hex private key is
// in EVM_PRIVATE_KEY (USDC on Base):
//
//	EVM_PRIVATE_KEY=... go run ./examples/x402 -url https://seller.example/report -live-payments -cap 0.25
package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentapis/sdk/examples/internal/cli"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/usdc"
	"github.com/agentapis/sdk/x402/x402test"
)

// about is what -h says the program does.
const about = `Pays for an HTTP resource over x402 and prints the quote, the receipt and where the money
went. Offline by default: an in-memory paywall charging $0.13, paid from a throwaway key.
With -url it prints that resource's quote without paying; with -live-payments as well it pays
it, at most -cap, from the wallet in ` + cli.EnvEVMPrivateKey + `.`

// settings say which resource to ask, whether to pay it, from which wallet and under which
// cap.
type settings struct {
	// url is the resource; "" asks the in-memory paywall.
	url string
	// pay lets the resource at url be paid.
	pay bool
	// key is the payer's hex private key; "" pays from a throwaway key.
	key string
	// cap is the most the payer may pay, in total, in USDC atomic units.
	cap *big.Int
}

// errNotPaying is the refusal of a quote that -live-payments did not allow to be paid.
var errNotPaying = errors.New("not paying without -live-payments")

func main() { cli.Main(realMain) }

// realMain runs the program with the command line args and the environment env, and returns
// its exit status.
func realMain(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int {
	p := cli.New("x402", about,
		cli.Var{Name: cli.EnvEVMPrivateKey, Use: "hex private key of the wallet that pays -url with -live-payments (offline: a throwaway key)"})
	target := p.Flags.String("url", "", "the x402 resource to ask (default: an in-memory paywall)")
	capText := p.Flags.String("cap", "0.25", "most to pay, in USD")
	live := p.Flags.Bool("live-payments", false, "pay the resource at -url (needs "+cli.EnvEVMPrivateKey+")")
	if code, done := p.Parse(args, stdout, stderr); done {
		return code
	}
	s, err := configure(*target, *capText, *live, env)
	if err != nil {
		return p.Refuse(stderr, err)
	}
	return p.Exit(stderr, run(ctx, stdout, s))
}

// configure checks the flags against each other and the environment.
func configure(target, capText string, live bool, env func(string) string) (settings, error) {
	limit, err := cli.ParseCap("cap", capText)
	if err != nil {
		return settings{}, err
	}
	s := settings{url: target, pay: live, cap: limit}
	if target != "" {
		if u, err := url.Parse(target); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return s, fmt.Errorf("-url %q: not an http or https URL", target)
		}
	}
	if !live {
		return s, nil
	}
	if target == "" {
		return s, errors.New("-live-payments pays the resource at -url: give -url (the in-memory paywall needs no -live-payments)")
	}
	if s.key = env(cli.EnvEVMPrivateKey); s.key == "" {
		return s, fmt.Errorf("-live-payments needs %s, the hex private key of the paying wallet", cli.EnvEVMPrivateKey)
	}
	if _, err := evm.NewPrivateKeySigner(s.key); err != nil {
		return s, fmt.Errorf("%s: %w", cli.EnvEVMPrivateKey, err)
	}
	return s, nil
}

// run asks for the resource, pays it when allowed, and writes what happens to out. It never
// prints the key.
func run(ctx context.Context, out io.Writer, s settings) error {
	key := s.key
	if key == "" {
		// A throwaway wallet; a real program reads its key from a secret store.
		k, err := crypto.GenerateKey()
		if err != nil {
			return err
		}
		key = hex.EncodeToString(crypto.FromECDSA(k))
	}
	signer, err := evm.NewPrivateKeySigner(key)
	if err != nil {
		return err
	}

	// The seller, offline: a paywall charging $0.13 in USDC on Base for each report.
	target, pay := s.url, s.pay
	var facilitator *x402test.Facilitator
	const shop = x402test.DefaultPayTo
	if target == "" {
		facilitator = x402test.NewFacilitator()
		facilitator.Fund(signer.Address(), big.NewInt(1_000_000)) // $1.00
		srv := httptest.NewServer(x402test.NewPaywall(facilitator, x402test.PaywallConfig{
			PayTo:       shop,
			Amount:      big.NewInt(130_000),
			Description: "Macro report",
		}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprintln(w, "Inflation report: CPI 2.4% year on year.")
		})))
		defer srv.Close()
		target, pay = srv.URL+"/report/macro-inflation", true
	}

	// The buyer: at most the cap, in total, with a look at every quote before it is signed.
	scheme, err := evm.NewExact(signer)
	if err != nil {
		return err
	}
	payer, err := x402.NewPayer(x402.Policy{
		MaxPerPayment: s.cap,
		MaxTotal:      s.cap,
		Approve: func(_ context.Context, q x402.Quote) error {
			fmt.Fprintf(out, "quote: %s to %s on %s for %s (cap %s)\n",
				usdc.Format(q.Requirements.Amount), q.Requirements.PayTo, q.Network, q.URL.Path, usdc.Format(s.cap))
			if !pay {
				return errNotPaying
			}
			return nil
		},
	}, []x402.Scheme{scheme})
	if err != nil {
		return err
	}
	client := &http.Client{Transport: payer.RoundTripper(nil), Timeout: 30 * time.Second}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if errors.Is(err, errNotPaying) {
		fmt.Fprintln(out, "not paid: give -live-payments to pay it")
		return nil
	}
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "status: %d\nbody: %s\n", resp.StatusCode, strings.TrimSpace(string(body[:min(len(body), 200)])))

	receipt, ok := x402.ReceiptFrom(resp)
	if !ok {
		return fmt.Errorf("no receipt in the response (status %d)", resp.StatusCode)
	}
	fmt.Fprintf(out, "receipt: success=%t transaction=%s network=%s payer=%s\n",
		receipt.Success, receipt.Transaction, receipt.Network, receipt.Payer)
	spent, err := payer.Spent(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "spent: %s of the %s cap\n", usdc.Format(spent), usdc.Format(s.cap))
	if facilitator != nil {
		fmt.Fprintf(out, "balances: payer %s, shop %s\n",
			usdc.Format(facilitator.Balance(signer.Address())), usdc.Format(facilitator.Balance(shop)))
	}
	return nil
}
