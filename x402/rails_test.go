package x402_test

import (
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"unicode"

	"github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/signertest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/x402test"
)

// railPayer is a payer with both of the SDK's schemes: an EVM signer and a Solana wallet,
// each funded at the facilitator, the Solana one reading the facilitator's ledger.
type railPayer struct {
	payer  *x402.Payer
	signer *signertest.EVM
	wallet *signertest.Solana
	client *http.Client
}

// bothSchemes returns the EVM and Solana schemes of a new signer and a new wallet, each funded
// with funds at f.
func bothSchemes(t *testing.T, f *x402test.Facilitator, funds int64) (*signertest.EVM, *signertest.Solana, []x402.Scheme) {
	t.Helper()
	signer := newCountingSigner(t)
	wallet := newWallet(t)
	f.Fund(signer.Address(), big.NewInt(funds))
	f.Fund(wallet.Address(), big.NewInt(funds))
	evmScheme, err := evm.NewExact(signer)
	require.NoError(t, err)
	svmScheme, err := svm.NewExact(wallet, solanaNode(t, f))
	require.NoError(t, err)
	return signer, wallet, []x402.Scheme{evmScheme, svmScheme}
}

// newRailPayer returns a payer with both schemes, within policy; a policy with a MaxTotal
// draws on a budget in the store budgettest.EnvStore names.
func newRailPayer(t *testing.T, f *x402test.Facilitator, funds int64, policy x402.Policy, opts ...x402.PayerOption) *railPayer {
	t.Helper()
	signer, wallet, schemes := bothSchemes(t, f, funds)
	var first []x402.PayerOption
	if policy.MaxTotal != nil {
		policy, first = budgettest.ForPayer(t, policy, nil)
	}
	p, err := x402.NewPayer(policy, schemes, append(first, opts...)...)
	require.NoError(t, err)
	return &railPayer{payer: p, signer: signer, wallet: wallet, client: scanningClient(p)}
}

// balances are the four balances a payment on one rail moves: the payer's and the payee's
// on EVM and on Solana.
type balances struct{ evmPayer, evmShop, solanaPayer, solanaShop int64 }

// balancesOf reads the balances of p and the two payees at f.
func balancesOf(f *x402test.Facilitator, p *railPayer, solanaShop string) balances {
	return balances{
		evmPayer: f.Balance(p.signer.Address()).Int64(), evmShop: f.Balance(shopAddress).Int64(),
		solanaPayer: f.Balance(p.wallet.Address()).Int64(), solanaShop: f.Balance(solanaShop).Int64(),
	}
}

func TestPayerWithBothSchemesPaysTheRailItPrefers(t *testing.T) {
	t.Parallel()
	const price = 100
	solanaShop := newSolanaAddress()
	evmOffer := x402test.Offer{PayTo: shopAddress}
	solanaOffer := x402test.Offer{PayTo: solanaShop, Network: svm.NetworkMainnet}
	for _, tc := range []struct {
		name   string
		offers []x402test.Offer
		prefer []string
		want   string // the rail paid: "evm" or "solana"
	}{
		{"EVM first, no preference", []x402test.Offer{evmOffer, solanaOffer}, nil, "evm"},
		{"Solana first, no preference", []x402test.Offer{solanaOffer, evmOffer}, nil, "solana"},
		{"EVM first, Solana preferred", []x402test.Offer{evmOffer, solanaOffer}, []string{"solana:*"}, "solana"},
		{"Solana first, Solana preferred", []x402test.Offer{solanaOffer, evmOffer}, []string{"solana:*"}, "solana"},
		{"Solana first, Base preferred", []x402test.Offer{solanaOffer, evmOffer}, []string{evm.NetworkBase}, "evm"},
		{"EVM first, Base preferred", []x402test.Offer{evmOffer, solanaOffer}, []string{evm.NetworkBase}, "evm"},
		{"Solana first, EVM family preferred", []x402test.Offer{solanaOffer, evmOffer}, []string{"eip155:*"}, "evm"},
		{"EVM first, Solana preferred by its v1 name", []x402test.Offer{evmOffer, solanaOffer}, []string{"solana"}, "solana"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newShop(t, x402test.PaywallConfig{Offers: tc.offers, Amount: big.NewInt(price)}, nil)
			var opts []x402.PayerOption
			if tc.prefer != nil {
				opts = append(opts, x402.WithPreference(tc.prefer...))
			}
			p := newRailPayer(t, s.f, 1000, x402.Policy{MaxTotal: big.NewInt(1000)}, opts...)
			before := balancesOf(s.f, p, solanaShop)

			resp, body, err := get(t, p.client, s.srv.URL+"/report")
			require.NoError(t, err)
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, "the goods", body)
			receipt, ok := x402.ReceiptFrom(resp)
			require.True(t, ok)
			payment, ok := x402.PaymentFrom(resp)
			require.True(t, ok)
			settlements := s.f.Settlements()
			require.Len(t, settlements, 1)

			want := before
			switch tc.want {
			case "evm":
				want.evmPayer, want.evmShop = before.evmPayer-price, before.evmShop+price
				assert.Equal(t, evm.NetworkBase, receipt.Network)
				assert.Equal(t, p.signer.Address(), payment.Payer)
				assert.Equal(t, evm.USDCBase, payment.Asset)
				assert.Equal(t, shopAddress, settlements[0].To)
				assert.Equal(t, int64(1), p.signer.Signed())
				assert.Zero(t, p.wallet.Signed(), "nothing is signed on the other rail")
			case "solana":
				want.solanaPayer, want.solanaShop = before.solanaPayer-price, before.solanaShop+price
				assert.Equal(t, svm.NetworkMainnet, receipt.Network)
				assert.Equal(t, p.wallet.Address(), payment.Payer)
				assert.Equal(t, svm.USDCMainnet, payment.Asset)
				assert.Equal(t, solanaShop, settlements[0].To)
				assert.Equal(t, int64(1), p.wallet.Signed())
				assert.Zero(t, p.signer.Signed(), "nothing is signed on the other rail")
			}
			assert.Equal(t, want, balancesOf(s.f, p, solanaShop), "only the rail paid moves")
			assert.Equal(t, settlements[0].ID, payment.ID)
			assert.Equal(t, receipt.Network, settlements[0].Network)
			assert.Equal(t, big.NewInt(price), budgettest.Spent(t, p.payer))
			assert.Zero(t, budgettest.Reserved(t, p.payer).Sign())
		})
	}
}

// otherCase returns a valid Solana address that differs from a new wallet's only in the
// letter case of one character, and that wallet's address: base58 is case-sensitive, so they
// are two accounts.
func otherCase(t *testing.T) (address, variant string) {
	t.Helper()
	for range 1000 {
		a := newSolanaAddress()
		for i, r := range a {
			var flipped rune
			switch {
			case unicode.IsUpper(r):
				flipped = unicode.ToLower(r)
			case unicode.IsLower(r):
				flipped = unicode.ToUpper(r)
			default:
				continue
			}
			v := a[:i] + string(flipped) + a[i+1:]
			if _, err := svm.ParseAddress(v); err == nil {
				return a, v
			}
		}
	}
	t.Fatal("no Solana address has a valid variant in another letter case")
	return "", ""
}

func TestPolicyComparesAddressesPerChainFamily(t *testing.T) {
	t.Parallel()
	const price = 100
	solanaShop, solanaVariant := otherCase(t)
	require.NotEqual(t, solanaShop, solanaVariant)
	require.True(t, strings.EqualFold(solanaShop, solanaVariant))
	otherSolana := newSolanaAddress()
	const otherEVM = "0x000000000000000000000000000000000000bEEF"

	// pay fetches from a paywall paying payTo on network, through a payer with both schemes
	// within policy, and returns the error and the payer.
	pay := func(t *testing.T, policy x402.Policy, payTo, network string) (*railPayer, *shop, error) {
		t.Helper()
		s := newShop(t, x402test.PaywallConfig{PayTo: payTo, Network: network, Amount: big.NewInt(price)}, nil)
		policy.MaxTotal = budget.Unlimited
		p := newRailPayer(t, s.f, 1000, policy)
		_, _, err := get(t, p.client, s.srv.URL+"/x")
		return p, s, err
	}
	refused := func(t *testing.T, p *railPayer, s *shop, err error) {
		t.Helper()
		var pe *x402.PolicyError
		require.ErrorAs(t, err, &pe)
		assert.ErrorIs(t, err, x402.ErrPayToNotAllowed)
		assert.Zero(t, p.signer.Signed()+p.wallet.Signed(), "nothing is signed")
		assert.Empty(t, s.payments.all(), "nothing is sent")
		assert.Empty(t, s.f.Settlements())
		assert.Zero(t, budgettest.Reserved(t, p.payer).Sign())
	}
	paid := func(t *testing.T, p *railPayer, s *shop, err error) {
		t.Helper()
		require.NoError(t, err)
		require.Len(t, s.f.Settlements(), 1)
		assert.Equal(t, big.NewInt(price), budgettest.Spent(t, p.payer))
	}

	both := x402.Policy{PayTo: []string{solanaShop, shopAddress}}
	t.Run("a list of both families allows each", func(t *testing.T) {
		t.Parallel()
		p, s, err := pay(t, both, shopAddress, "")
		paid(t, p, s, err)
		p, s, err = pay(t, both, solanaShop, svm.NetworkMainnet)
		paid(t, p, s, err)
		assert.Equal(t, int64(price), s.f.Balance(solanaShop).Int64())
	})
	t.Run("and refuses anyone else", func(t *testing.T) {
		t.Parallel()
		p, s, err := pay(t, both, otherEVM, "")
		refused(t, p, s, err)
		assert.Contains(t, err.Error(), otherEVM)
		p, s, err = pay(t, both, otherSolana, svm.NetworkMainnet)
		refused(t, p, s, err)
		assert.Contains(t, err.Error(), otherSolana)
	})
	t.Run("an EVM address in another letter case is the same account", func(t *testing.T) {
		t.Parallel()
		for _, listed := range []string{strings.ToLower(shopAddress), "0x" + strings.ToUpper(shopAddress[2:])} {
			p, s, err := pay(t, x402.Policy{PayTo: []string{listed}}, shopAddress, "")
			paid(t, p, s, err)
		}
	})
	t.Run("a Solana address in another letter case is another account", func(t *testing.T) {
		t.Parallel()
		p, s, err := pay(t, x402.Policy{PayTo: []string{solanaVariant}}, solanaShop, svm.NetworkMainnet)
		refused(t, p, s, err)
		assert.Zero(t, s.f.Balance(solanaShop).Sign())
		p, s, err = pay(t, x402.Policy{PayTo: []string{solanaShop}}, solanaShop, svm.NetworkMainnet)
		paid(t, p, s, err)
	})
}

func TestPolicyNetworksAndAssetsOfSolana(t *testing.T) {
	t.Parallel()
	signer := newSigner(t)
	f := x402test.NewFacilitator()
	_, _, both := bothSchemes(t, f, 0)
	solanaOnly := both[1:]
	mint := solana.NewWallet().PublicKey().String()

	t.Run("NewPayer refuses what no scheme of the payer pays", func(t *testing.T) {
		t.Parallel()
		for name, tc := range map[string]struct {
			policy  x402.Policy
			schemes []x402.Scheme
			field   string
			reason  string
		}{
			"a Solana network without a Solana scheme": {x402.Policy{Networks: []string{svm.NetworkMainnet}},
				exact(t, signer), "Policy.Networks", "no scheme of the payer pays on solana networks"},
			"a Solana network by its v1 name": {x402.Policy{Networks: []string{"solana"}},
				exact(t, signer), "Policy.Networks", "no scheme of the payer pays on solana networks"},
			"Base and Solana with an EVM scheme only": {x402.Policy{Networks: []string{evm.NetworkBase, svm.NetworkDevnet}},
				exact(t, signer), "Policy.Networks", "no scheme of the payer pays on solana networks"},
			"an EVM network without an EVM scheme": {x402.Policy{Networks: []string{evm.NetworkBase}},
				solanaOnly, "Policy.Networks", "no scheme of the payer pays on eip155 networks"},
			"a Solana mint without a Solana scheme": {x402.Policy{Assets: []string{mint}},
				exact(t, signer), "Policy.Assets", "not a token address of any scheme"},
			"a Solana payee without a Solana scheme": {x402.Policy{PayTo: []string{newSolanaAddress()}},
				exact(t, signer), "Policy.PayTo", "not an address any scheme of the payer pays to"},
			"a Solana mint only, with an EVM network allowed": {x402.Policy{Assets: []string{mint}},
				both, "Policy.Assets", "lists no token of eip155:8453"},
		} {
			tc.policy.MaxTotal = budget.Unlimited
			_, err := x402.NewPayer(tc.policy, tc.schemes)
			var ve *sdk.ValidationError
			require.ErrorAs(t, err, &ve, name)
			assert.Equal(t, tc.field, ve.Field, name)
			assert.Contains(t, ve.Reason, tc.reason, name)
		}
		for name, policy := range map[string]x402.Policy{
			"Solana mainnet":     {Networks: []string{svm.NetworkMainnet}},
			"Solana by v1 name":  {Networks: []string{"solana"}},
			"a mint of its own":  {Assets: []string{mint}},
			"Solana devnet USDC": {Networks: []string{svm.NetworkDevnet}},
		} {
			policy.MaxTotal = budget.Unlimited
			_, err := x402.NewPayer(policy, solanaOnly)
			assert.NoError(t, err, name)
		}
	})

	t.Run("Assets with a Solana mint", func(t *testing.T) {
		t.Parallel()
		const price = 2_500
		f := x402test.NewFacilitator()
		f.AddMint(mint, true, 6)
		solanaShop := newSolanaAddress()
		offers := []x402test.Offer{{PayTo: shopAddress}, {PayTo: solanaShop, Network: svm.NetworkMainnet, Asset: mint},
			{PayTo: solanaShop, Network: svm.NetworkMainnet}}
		srv := newShopAt(t, f, x402test.PaywallConfig{Offers: offers, Amount: big.NewInt(price)}, nil).srv.URL
		signer, wallet, schemes := bothSchemes(t, f, 10_000)
		f.FundToken(mint, wallet.Address(), 10_000)

		// Only the mint: the EVM offer and Solana's USDC are passed over.
		payer, err := x402.NewPayer(x402.Policy{MaxTotal: budget.Unlimited, Assets: []string{mint}}, schemes[1:])
		require.NoError(t, err)
		resp, _, err := get(t, scanningClient(payer), srv+"/x")
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		payment, ok := x402.PaymentFrom(resp)
		require.True(t, ok)
		assert.Equal(t, mint, payment.Asset)
		assert.Equal(t, uint64(price), f.TokenBalance(mint, solanaShop))
		assert.Equal(t, uint64(10_000-price), f.TokenBalance(mint, wallet.Address()))
		assert.Equal(t, big.NewInt(10_000), f.Balance(wallet.Address()), "its USDC does not move")
		assert.Zero(t, f.Balance(solanaShop).Sign())

		// The mint and Base's USDC, with both schemes: the server's first offer, on EVM, is
		// paid; an offer of Solana's USDC alone is refused.
		payer, err = x402.NewPayer(x402.Policy{MaxTotal: budget.Unlimited, Assets: []string{mint, evm.USDCBase}}, schemes)
		require.NoError(t, err)
		_, _, err = get(t, scanningClient(payer), srv+"/y")
		require.NoError(t, err)
		assert.Equal(t, big.NewInt(10_000-price), f.Balance(signer.Address()))
		assert.Equal(t, uint64(price), f.TokenBalance(mint, solanaShop), "the mint's balances do not move")

		usdcOnly := newShopAt(t, f, x402test.PaywallConfig{PayTo: solanaShop, Network: svm.NetworkMainnet, Amount: big.NewInt(price)}, nil)
		before := wallet.Signed()
		_, _, err = get(t, scanningClient(payer), usdcOnly.srv.URL+"/z")
		var nu *x402.NoUsableRequirementsError
		require.ErrorAs(t, err, &nu)
		assert.Contains(t, err.Error(), "asset "+svm.USDCMainnet+" is not allowed")
		assert.Equal(t, before, wallet.Signed(), "nothing is signed")
	})
}

// A Solana payment's id is its payer's signature: errors never show it, in any rendering,
// though the caller reads it in the error's ID and finds it in the budget.
func TestSolanaPaymentIDNeverRendered(t *testing.T) {
	t.Parallel()
	solanaShop := newSolanaAddress()
	for _, fault := range []x402test.SettlementFault{x402test.FaultErrorAfterSettle, x402test.FaultChallengeAfterSettle} {
		s := newShop(t, x402test.PaywallConfig{PayTo: solanaShop, Network: svm.NetworkMainnet, Amount: big.NewInt(100),
			Fault: func(*http.Request) x402test.SettlementFault { return fault }}, nil)
		p := newRailPayer(t, s.f, 1000, x402.Policy{MaxTotal: budget.Unlimited}, x402.WithResend(0, 0))
		_, _, err := get(t, p.client, s.srv.URL+"/x")
		require.Error(t, err)
		var id string
		var ue *x402.PaymentUnconfirmedError
		var rej *x402.PaymentRejectedError
		switch {
		case errors.As(err, &ue):
			id = ue.ID
			assert.Contains(t, fmt.Sprintf("%#v", err), "StatusCode:500", "the rest of the error is rendered")
		case errors.As(err, &rej):
			id = rej.ID
			assert.Contains(t, fmt.Sprintf("%#v", err), "StatusCode:402")
		default:
			t.Fatalf("fault %d: %v", fault, err)
		}
		require.Len(t, s.f.Settlements(), 1)
		assert.Equal(t, s.f.Settlements()[0].ID, id, "the caller reads the id")
		out := budgettest.Outstanding(t, p.payer)
		require.Len(t, out, 1)
		assert.Equal(t, id, out[0].ID)
		assert.NotEqual(t, ledger.Committed, out[0].State)
		for _, text := range []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
			assert.NotContains(t, text, id, "fault %d", fault)
		}
		assert.Contains(t, fmt.Sprintf("%#v", err), "[REDACTED]")
	}

	// An EVM payment's id is its nonce, which is public: it is shown.
	s := newShop(t, x402test.PaywallConfig{Amount: big.NewInt(100),
		Fault: func(*http.Request) x402test.SettlementFault { return x402test.FaultErrorAfterSettle }}, nil)
	_, _, client := newPayer(t, s.f, 1000, x402.Policy{MaxTotal: budget.Unlimited}, x402.WithResend(0, 0))
	_, _, err := get(t, client, s.srv.URL+"/x")
	var ue *x402.PaymentUnconfirmedError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), ue.ID)
	assert.Contains(t, fmt.Sprintf("%#v", err), ue.ID)
}
