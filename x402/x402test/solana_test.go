package x402test_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/reconcile"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// solanaShop is a paywall taking USDC on Solana, its payee, and a payer's wallet and node.
type solanaShop struct {
	srv   *x402test.Server
	payTo solana.PublicKey
	node  *svm.Node
}

// newSolanaShop starts a server charging price on Solana mainnet, with cfg's other fields.
func newSolanaShop(t *testing.T, clock *sdktest.Clock, cfg x402test.PaywallConfig) *solanaShop {
	t.Helper()
	s := &solanaShop{payTo: solana.NewWallet().PublicKey()}
	if cfg.PayTo == "" {
		cfg.PayTo = s.payTo.String()
	}
	if cfg.Network == "" && len(cfg.Offers) == 0 {
		cfg.Network = svm.NetworkMainnet
	}
	if cfg.Amount == nil && cfg.Price == nil {
		cfg.Amount = big.NewInt(x402test.DefaultPrice)
	}
	fac := x402test.NewFacilitator(x402test.WithClock(clock))
	s.srv = x402test.NewServer(x402test.WithPaywall(cfg), x402test.WithFacilitator(fac))
	t.Cleanup(s.srv.Close)
	node, err := svm.DialNode(s.srv.SolanaURL())
	require.NoError(t, err)
	s.node = node
	return s
}

// solanaPayer returns a funded Solana wallet and a client paying for it through the shop's
// node, within policy (see payerOf: MaxTotal set when the policy has none).
func (s *solanaShop) solanaPayer(t *testing.T, funds uint64, policy x402.Policy, opts ...x402.PayerOption) (*svm.PrivateKeySigner, *x402.Payer, *http.Client) {
	t.Helper()
	wallet, err := svm.NewPrivateKeySigner(solana.NewWallet().PrivateKey)
	require.NoError(t, err)
	s.srv.Facilitator().Fund(wallet.PublicKey().String(), new(big.Int).SetUint64(funds))
	scheme, err := svm.NewExact(wallet, s.node)
	require.NoError(t, err)
	payer := payerOf(t, []x402.Scheme{scheme}, policy, opts...)
	return wallet, payer, &http.Client{Transport: payer.RoundTripper(s.srv.Client().Transport)}
}

func TestSolanaPaymentSettlesOnTheFacilitatorsLedger(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(time.Now())
	shop := newSolanaShop(t, clock, x402test.PaywallConfig{})
	wallet, payer, client := shop.solanaPayer(t, 1_000_000, x402.Policy{})
	f := shop.srv.Facilitator()

	for i := range 3 {
		resp, err := client.Get(shop.srv.URL + "/report")
		require.NoError(t, err, i)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		receipt, ok := x402.ReceiptFrom(resp)
		require.True(t, ok)
		assert.True(t, receipt.Success)
		assert.Equal(t, svm.NetworkMainnet, receipt.Network)
		assert.Equal(t, wallet.PublicKey().String(), receipt.Payer)
		payment, ok := x402.PaymentFrom(resp)
		require.True(t, ok)
		assert.NotEqual(t, receipt.Transaction, payment.ID, "the transaction's id is the fee payer's signature")
	}
	assert.Equal(t, big.NewInt(1_000_000-3*x402test.DefaultPrice), f.Balance(wallet.PublicKey().String()))
	assert.Equal(t, uint64(3*x402test.DefaultPrice), f.TokenBalance(svm.USDCMainnet, shop.payTo.String()))
	spent, err := payer.Spent(t.Context())
	require.NoError(t, err)
	assert.Equal(t, big.NewInt(3*x402test.DefaultPrice), spent)
	settlements := f.Settlements()
	require.Len(t, settlements, 3)
	for _, s := range settlements {
		assert.Equal(t, wallet.PublicKey().String(), s.From)
		assert.Equal(t, shop.payTo.String(), s.To)
		assert.Equal(t, svm.USDCMainnet, s.Asset)
	}

	// The payments settled are found on the ledger by their payer's signature.
	lookup, err := svm.NewLookup(shop.node, svm.ForNetworks(svm.NetworkMainnet))
	require.NoError(t, err)
	out := make([]ledger.Outstanding, 0, len(settlements)+1)
	for _, s := range settlements {
		out = append(out, ledger.Outstanding{Rail: "x402 " + svm.NetworkMainnet, Payer: s.From, Asset: s.Asset,
			Reserved: clock.Now().Add(-time.Minute), Signature: ledger.Signature{ID: s.ID, Ref: refOf(t, shop, s.ID)}})
	}
	unknown := solana.SignatureFromBytes(make([]byte, 64))
	out = append(out, ledger.Outstanding{Rail: "x402 " + svm.NetworkMainnet, Reserved: clock.Now(),
		Signature: ledger.Signature{ID: unknown.String(), Ref: svm.Ref{LastValid: 1 << 62}.String()}})
	results, err := lookup.Lookup(t.Context(), out)
	require.NoError(t, err)
	for i, s := range settlements {
		assert.Equal(t, reconcile.Settled, results[i].State, i)
		assert.Equal(t, s.TxHash, results[i].Transaction, i)
	}
	assert.Equal(t, reconcile.Pending, results[3].State, "not found while its blockhash could still land")
}

// A payment whose answer was lost stays in doubt in its payer's budget; a reconciler with a
// lookup of the facilitator's ledger finds it there by the payer's signature, in the payer's
// token account's history, with the Ref the payer recorded, and commits it with the
// transaction that settled it.
func TestSolanaPaymentLeftInDoubtIsFoundOnTheLedger(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(time.Now())
	shop := newSolanaShop(t, clock, x402test.PaywallConfig{})
	_, payer, client := shop.solanaPayer(t, 1_000_000, x402.Policy{}, x402.WithResend(0, 0))
	shop.srv.InjectSettlementFaults(x402test.FaultDropAfterSettle)

	resp, err := client.Get(shop.srv.URL + "/report")
	if err == nil {
		resp.Body.Close()
	}
	var unconfirmed *x402.PaymentUnconfirmedError
	require.ErrorAs(t, err, &unconfirmed)
	settlements := shop.srv.Facilitator().Settlements()
	require.Len(t, settlements, 1)
	assert.Equal(t, settlements[0].ID, unconfirmed.ID, "the payment's id is the payer's signature")
	assert.NotEqual(t, settlements[0].TxHash, unconfirmed.ID, "not the transaction's id, the fee payer's signature")
	held := budgettest.Outstanding(t, payer)
	require.Len(t, held, 1)
	assert.Equal(t, ledger.InDoubt, held[0].State)
	ref, ok := svm.ParseRef(held[0].Ref)
	require.True(t, ok, held[0].Ref)
	assert.False(t, ref.Source.IsZero(), "the payer recorded its token account")
	assert.NotEmpty(t, ref.Memo, "and its memo")

	lookup, err := svm.NewLookup(shop.node, svm.ForNetworks(svm.NetworkMainnet))
	require.NoError(t, err)
	r, err := reconcile.New(payer.Budget(), reconcile.WithLookup(lookup), reconcile.WithRate(1000))
	require.NoError(t, err)
	rep, err := r.Reconcile(t.Context())
	require.NoError(t, err)
	require.NoError(t, rep.Err())
	require.Len(t, rep.Committed, 1)
	assert.Equal(t, settlements[0].TxHash, rep.Committed[0].Transaction)
	assert.Equal(t, big.NewInt(x402test.DefaultPrice), budgettest.Spent(t, payer))
	assert.Empty(t, budgettest.Outstanding(t, payer))
}

// refOf returns the Ref a payer recorded of the payment its signature id names, as its
// budget holds it: read back from the payer's token account by the lookup's own rules.
func refOf(t *testing.T, shop *solanaShop, id string) string {
	t.Helper()
	for _, s := range shop.srv.Facilitator().Settlements() {
		if s.ID != id {
			continue
		}
		wallet := solana.MustPublicKeyFromBase58(s.From)
		source, err := svm.AssociatedTokenAccount(wallet, solana.MustPublicKeyFromBase58(svm.USDCMainnet), solana.TokenProgramID)
		require.NoError(t, err)
		return svm.Ref{LastValid: 1 << 62, Source: source}.String()
	}
	t.Fatalf("no settlement %s", id)
	return ""
}

func TestSolanaFacilitatorRefusesWithTheReferenceReasons(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(time.Now())
	shop := newSolanaShop(t, clock, x402test.PaywallConfig{Memo: "order-7"})
	f := shop.srv.Facilitator()
	feePayer := solana.MustPublicKeyFromBase58(f.FeePayer())
	mint := solana.MustPublicKeyFromBase58(svm.USDCMainnet)
	blockhash, _, err := shop.node.LatestBlockhash(t.Context(), "confirmed")
	require.NoError(t, err)

	type txSpec struct {
		payer    *svm.PrivateKeySigner
		ixs      func(payer solana.PublicKey) []solana.Instruction
		feePayer solana.PublicKey
		hash     solana.Hash
	}
	funded := func() *svm.PrivateKeySigner {
		w, err := svm.NewPrivateKeySigner(solana.NewWallet().PrivateKey)
		require.NoError(t, err)
		f.Fund(w.PublicKey().String(), big.NewInt(1_000_000))
		return w
	}
	transfer := func(to solana.PublicKey, amount uint64, authority solana.PublicKey) solana.Instruction {
		src, _ := svm.AssociatedTokenAccount(authority, mint, solana.TokenProgramID)
		dst, _ := svm.AssociatedTokenAccount(to, mint, solana.TokenProgramID)
		ix, err := svm.TransferChecked(solana.TokenProgramID, amount, 6, src, mint, dst, authority)
		require.NoError(t, err)
		return ix
	}
	good := func(p solana.PublicKey) []solana.Instruction {
		return []solana.Instruction{svm.ComputeUnitLimit(20_000), svm.ComputeUnitPrice(1),
			transfer(shop.payTo, x402test.DefaultPrice, p), svm.Memo([]byte("order-7"))}
	}
	build := func(spec txSpec) *wire.PaymentPayload {
		fp := spec.feePayer
		if fp.IsZero() {
			fp = feePayer
		}
		hash := spec.hash
		if hash.IsZero() {
			hash = blockhash
		}
		tx, err := solana.NewTransaction(spec.ixs(spec.payer.PublicKey()), hash, solana.TransactionPayer(fp))
		require.NoError(t, err)
		tx.Message.SetVersion(solana.MessageVersionV0)
		tx.Signatures = make([]solana.Signature, tx.Message.Header.NumRequiredSignatures)
		if !spec.payer.PublicKey().Equals(fp) && tx.IsSigner(spec.payer.PublicKey()) { // a payer named nowhere signs nothing
			_, err = svm.SignAs(tx, spec.payer)
			require.NoError(t, err)
		}
		raw, err := tx.MarshalBinary()
		require.NoError(t, err)
		body, err := json.Marshal(map[string]string{"transaction": base64.StdEncoding.EncodeToString(raw)})
		require.NoError(t, err)
		return &wire.PaymentPayload{X402Version: 2, Payload: body}
	}
	offer := func() wire.PaymentRequirements {
		return wire.PaymentRequirements{Scheme: "exact", Network: svm.NetworkMainnet, Amount: big.NewInt(x402test.DefaultPrice),
			Asset: svm.USDCMainnet, PayTo: shop.payTo.String(), MaxTimeoutSeconds: 60,
			Extra: map[string]any{"feePayer": f.FeePayer(), "memo": "order-7"}}
	}
	settle := func(p *wire.PaymentPayload, r wire.PaymentRequirements) (*wire.SettleResponse, string) {
		p.Accepted = r
		receipt, err := f.Settle(p, r)
		if err == nil {
			return receipt, ""
		}
		assert.False(t, receipt.Success)
		assert.Equal(t, receipt.ErrorReason, reason(t, err))
		return receipt, receipt.ErrorReason
	}
	stranger := solana.NewWallet().PublicKey()

	cases := map[string]struct {
		spec    func() txSpec
		payload func() *wire.PaymentPayload // instead of spec, a payload no transaction reads
		offer   func(r *wire.PaymentRequirements)
		reason  string
	}{
		"a fee payer of another facilitator": {spec: func() txSpec { return txSpec{payer: funded(), ixs: good} },
			offer: func(r *wire.PaymentRequirements) { r.Extra["feePayer"] = stranger.String() }, reason: svm.ReasonFeePayerNotManaged},
		"not a transaction": {payload: func() *wire.PaymentPayload {
			return &wire.PaymentPayload{X402Version: 2, Payload: json.RawMessage(`{"transaction":"bm90IGEgdHJhbnNhY3Rpb24="}`)}
		}, reason: svm.ReasonCouldNotBeDecoded},
		"another mint": {spec: func() txSpec { return txSpec{payer: funded(), ixs: good} },
			offer: func(r *wire.PaymentRequirements) { r.Asset = stranger.String() }, reason: svm.ReasonMintMismatch},
		"an unknown fourth instruction": {spec: func() txSpec {
			return txSpec{payer: funded(), ixs: func(p solana.PublicKey) []solana.Instruction {
				ixs := good(p)
				return append(ixs[:3], system.NewTransferInstruction(1, p, shop.payTo).Build(), ixs[3])
			}}
		}, reason: svm.ReasonUnknownFourthInstruction},
		"fee payer is not key 0": {spec: func() txSpec {
			return txSpec{payer: funded(), ixs: good, feePayer: stranger}
		}, reason: svm.ReasonFeePayerMismatch},
		"client pays its own fee": {spec: func() txSpec {
			p := funded()
			return txSpec{payer: p, ixs: good, feePayer: p.PublicKey()}
		}, reason: svm.ReasonFeePayerMismatch},
		"no extra.feePayer": {spec: func() txSpec { return txSpec{payer: funded(), ixs: good} },
			offer: func(r *wire.PaymentRequirements) { delete(r.Extra, "feePayer") }, reason: svm.ReasonMissingFeePayer},
		"missing signature": {spec: func() txSpec {
			return txSpec{payer: funded(), ixs: func(p solana.PublicKey) []solana.Instruction {
				return good(stranger) // the authority never signs
			}}
		}, reason: svm.ReasonSignatureInvalid},
		"two instructions": {spec: func() txSpec {
			return txSpec{payer: funded(), ixs: func(p solana.PublicKey) []solana.Instruction {
				return []solana.Instruction{svm.ComputeUnitPrice(1), transfer(shop.payTo, x402test.DefaultPrice, p)}
			}}
		}, reason: svm.ReasonInstructionsLength},
		"compute price too high": {spec: func() txSpec {
			return txSpec{payer: funded(), ixs: func(p solana.PublicKey) []solana.Instruction {
				ixs := good(p)
				ixs[1] = svm.ComputeUnitPrice(svm.MaxComputeUnitPrice + 1)
				return ixs
			}}
		}, reason: svm.ReasonComputePriceTooHigh},
		"instructions out of order": {spec: func() txSpec {
			return txSpec{payer: funded(), ixs: func(p solana.PublicKey) []solana.Instruction {
				ixs := good(p)
				ixs[0], ixs[1] = ixs[1], ixs[0]
				return ixs
			}}
		}, reason: svm.ReasonComputeLimitInstruction},
		"a plain transfer": {spec: func() txSpec {
			return txSpec{payer: funded(), ixs: func(p solana.PublicKey) []solana.Instruction {
				ixs := good(p)
				ixs[2] = system.NewTransferInstruction(10_000, p, shop.payTo).Build()
				return ixs
			}}
		}, reason: svm.ReasonNoTransferInstruction},
		"an account creation first": {spec: func() txSpec {
			return txSpec{payer: funded(), ixs: func(p solana.PublicKey) []solana.Instruction {
				ixs := good(p)
				dst, _ := svm.AssociatedTokenAccount(shop.payTo, mint, solana.TokenProgramID)
				return append(ixs[:2], svm.CreateAssociatedTokenAccount(p, dst, shop.payTo, mint, solana.TokenProgramID), ixs[2], ixs[3])
			}}
		}, reason: svm.ReasonNoTransferInstruction},
		"amount below": {spec: func() txSpec {
			return txSpec{payer: funded(), ixs: func(p solana.PublicKey) []solana.Instruction {
				ixs := good(p)
				ixs[2] = transfer(shop.payTo, x402test.DefaultPrice-1, p)
				return ixs
			}}
		}, reason: svm.ReasonAmountMismatch},
		"other recipient": {spec: func() txSpec {
			return txSpec{payer: funded(), ixs: func(p solana.PublicKey) []solana.Instruction {
				ixs := good(p)
				ixs[2] = transfer(stranger, x402test.DefaultPrice, p)
				return ixs
			}}
		}, reason: svm.ReasonRecipientMismatch},
		"the facilitator's key as authority": {spec: func() txSpec {
			return txSpec{payer: funded(), ixs: func(p solana.PublicKey) []solana.Instruction {
				ixs := good(p)
				ixs[2] = transfer(shop.payTo, x402test.DefaultPrice, feePayer)
				return ixs
			}}
		}, reason: svm.ReasonFeePayerTransferring},
		"other memo": {spec: func() txSpec {
			return txSpec{payer: funded(), ixs: func(p solana.PublicKey) []solana.Instruction {
				ixs := good(p)
				ixs[3] = svm.Memo([]byte("order-8"))
				return ixs
			}}
		}, reason: svm.ReasonMemoMismatch},
		"two memos": {spec: func() txSpec {
			return txSpec{payer: funded(), ixs: func(p solana.PublicKey) []solana.Instruction {
				return append(good(p), svm.Memo([]byte("order-7")))
			}}
		}, reason: svm.ReasonMemoCount},
		"stale blockhash": {spec: func() txSpec {
			// Not the zero hash, which build takes for "the latest": a blockhash the node does
			// not know, as it forgets one 150 blocks old.
			return txSpec{payer: funded(), ixs: good, hash: solana.Hash(sha256.Sum256([]byte("a blockhash the cluster never gave out")))}
		}, reason: svm.ReasonSimulationFailed},
		"payee without a token account": {spec: func() txSpec {
			return txSpec{payer: funded(), ixs: func(p solana.PublicKey) []solana.Instruction {
				ixs := good(p)
				ixs[2] = transfer(stranger, x402test.DefaultPrice, p)
				return ixs
			}}
		}, offer: func(r *wire.PaymentRequirements) { r.PayTo = stranger.String() }, reason: svm.ReasonSimulationFailed},
		"short funds": {spec: func() txSpec {
			w, err := svm.NewPrivateKeySigner(solana.NewWallet().PrivateKey)
			require.NoError(t, err)
			f.Fund(w.PublicKey().String(), big.NewInt(x402test.DefaultPrice-1))
			return txSpec{payer: w, ixs: good}
		}, reason: svm.ReasonSimulationFailed},
	}
	for name, tc := range cases {
		var p *wire.PaymentPayload
		if tc.payload != nil {
			p = tc.payload()
		} else {
			p = build(tc.spec())
		}
		r := offer()
		if tc.offer != nil {
			tc.offer(&r)
		}
		before := f.TokenBalance(svm.USDCMainnet, shop.payTo.String())
		_, got := settle(p, r)
		assert.Equal(t, tc.reason, got, name)
		assert.Equal(t, before, f.TokenBalance(svm.USDCMainnet, shop.payTo.String()), "%s moved money", name)
	}

	// A payment settles once. The same message again is refused by the cluster's status cache
	// while its blockhash lives: the facilitator simulates it, as the reference facilitator
	// verifies (and so simulates) a payment before it looks at its own memory of settlements.
	p := build(txSpec{payer: funded(), ixs: good})
	receipt, got := settle(p, offer())
	require.Empty(t, got)
	assert.True(t, receipt.Success)
	_, got = settle(build(txSpec{payer: funded(), ixs: good}), offer())
	require.Empty(t, got, "another payer's payment of the same terms is another message")
	again := *p
	receipt, got = settle(&again, offer())
	assert.Equal(t, svm.ReasonSimulationFailed, got, "a message that landed is refused by the node while its blockhash lives")
	assert.Contains(t, receipt.ErrorMessage, "This transaction has already been processed")

	// What the facilitator's memory refuses, within 120 s, is a message whose settlement began
	// and did not land (here a failure after its verification): the cluster would take it, the
	// facilitator calls it a duplicate settlement.
	q := build(txSpec{payer: funded(), ixs: good})
	f.FailNextSettle(svm.ReasonTransactionFailed)
	_, got = settle(q, offer())
	require.Equal(t, svm.ReasonTransactionFailed, got)
	retry := *q
	_, got = settle(&retry, offer())
	assert.Equal(t, svm.ReasonDuplicateSettlement, got)
	paid := f.TokenBalance(svm.USDCMainnet, shop.payTo.String())
	assert.Equal(t, uint64(2*x402test.DefaultPrice), paid, "the two payments that landed, and nothing else")

	// 121 s later the facilitator has forgotten both messages, and the cluster refuses both:
	// a blockhash is usable for 150 blocks (a minute at 400 ms a block), not for 120 s.
	clock.Advance(121 * time.Second)
	for _, m := range []*wire.PaymentPayload{&again, &retry} {
		receipt, got = settle(m, offer())
		assert.Equal(t, svm.ReasonSimulationFailed, got)
		assert.Contains(t, receipt.ErrorMessage, "Blockhash not found")
	}
	assert.Equal(t, paid, f.TokenBalance(svm.USDCMainnet, shop.payTo.String()))
}

func TestSolanaPaywallOffersEveryRailInItsOrder(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(time.Now())
	payTo := solana.NewWallet().PublicKey()
	shop := newSolanaShop(t, clock, x402test.PaywallConfig{Offers: []x402test.Offer{
		{PayTo: shopAddress},
		{PayTo: payTo.String(), Network: svm.NetworkMainnet},
	}})
	resp, err := shop.srv.Client().Get(shop.srv.URL + "/x")
	require.NoError(t, err)
	resp.Body.Close()
	pr, err := wire.ReadPaymentRequired(resp)
	require.NoError(t, err)
	require.Len(t, pr.Accepts, 2)
	assert.Equal(t, "eip155:8453", pr.Accepts[0].Network)
	assert.Equal(t, svm.NetworkMainnet, pr.Accepts[1].Network)
	assert.Equal(t, shop.srv.Facilitator().FeePayer(), pr.Accepts[1].ExtraString("feePayer"))

	// The payer's preference chooses the rail: one that pays on both takes the server's first
	// offer, EVM, unless it prefers Solana.
	f := shop.srv.Facilitator()
	evmSigner := newSigner(t)
	f.Fund(evmSigner.Address(), big.NewInt(1_000_000))
	wallet, err := svm.NewPrivateKeySigner(solana.NewWallet().PrivateKey)
	require.NoError(t, err)
	f.Fund(wallet.PublicKey().String(), big.NewInt(1_000_000))
	evmScheme, err := evm.NewExact(evmSigner)
	require.NoError(t, err)
	svmScheme, err := svm.NewExact(wallet, shop.node)
	require.NoError(t, err)
	for _, prefer := range []bool{false, true} {
		var opts []x402.PayerOption
		if prefer {
			opts = append(opts, x402.WithPreference("solana:*"))
		}
		payer := payerOf(t, []x402.Scheme{evmScheme, svmScheme}, x402.Policy{}, opts...)
		client := &http.Client{Transport: payer.RoundTripper(shop.srv.Client().Transport)}
		resp, err = client.Get(shop.srv.URL + "/x")
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		receipt, ok := x402.ReceiptFrom(resp)
		require.True(t, ok)
		spent, err := payer.Spent(t.Context())
		require.NoError(t, err)
		assert.Equal(t, big.NewInt(x402test.DefaultPrice), spent)
		if !prefer {
			assert.Equal(t, evm.NetworkBase, receipt.Network, "the server's order")
			continue
		}
		assert.Equal(t, svm.NetworkMainnet, receipt.Network, "the payer's preference")
	}
	assert.Equal(t, big.NewInt(1_000_000-x402test.DefaultPrice), f.Balance(evmSigner.Address()))
	assert.Equal(t, big.NewInt(x402test.DefaultPrice), f.Balance(shopAddress))
	assert.Equal(t, uint64(x402test.DefaultPrice), f.TokenBalance(svm.USDCMainnet, payTo.String()))
	assert.Equal(t, big.NewInt(1_000_000-x402test.DefaultPrice), f.Balance(wallet.PublicKey().String()))
}

func TestSolanaPaymentInAToken2022Mint(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(time.Now())
	mint := solana.NewWallet().PublicKey()
	fac := x402test.NewFacilitator(x402test.WithClock(clock))
	fac.AddMint(mint.String(), true, 6)
	payTo := solana.NewWallet().PublicKey()
	srv := x402test.NewServer(x402test.WithFacilitator(fac), x402test.WithPaywall(x402test.PaywallConfig{
		PayTo: payTo.String(), Network: svm.NetworkMainnet, Asset: mint.String(), Amount: big.NewInt(2_500)}))
	t.Cleanup(srv.Close)
	node, err := svm.DialNode(srv.SolanaURL())
	require.NoError(t, err)
	wallet, err := svm.NewPrivateKeySigner(solana.NewWallet().PrivateKey)
	require.NoError(t, err)
	fac.FundToken(mint.String(), wallet.PublicKey().String(), 10_000)
	scheme, err := svm.NewExact(wallet, node)
	require.NoError(t, err)
	payer := payerOf(t, []x402.Scheme{scheme}, x402.Policy{Assets: []string{mint.String()}})
	client := &http.Client{Transport: payer.RoundTripper(srv.Client().Transport)}
	resp, err := client.Get(srv.URL + "/x")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, uint64(2_500), fac.TokenBalance(mint.String(), payTo.String()))
	assert.Equal(t, uint64(7_500), fac.TokenBalance(mint.String(), wallet.PublicKey().String()))
	// Its token account is the Token-2022 one, which the payer derived from the mint's program.
	src, err := svm.AssociatedTokenAccount(wallet.PublicKey(), mint, solana.Token2022ProgramID)
	require.NoError(t, err)
	assert.NotEqual(t, src, mustATA(t, wallet.PublicKey(), mint))
}

// mustATA returns the classic Token program's associated account of wallet for mint.
func mustATA(t *testing.T, wallet, mint solana.PublicKey) solana.PublicKey {
	t.Helper()
	ata, err := svm.AssociatedTokenAccount(wallet, mint, solana.TokenProgramID)
	require.NoError(t, err)
	return ata
}
