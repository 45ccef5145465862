package svm_test

import (
	"encoding/base64"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/wire"
)

// payment is the parts of a Solana "exact" payment a verification test changes.
type payment struct {
	payer            *svm.PrivateKeySigner
	feePayer, payTo  solana.PublicKey
	authority        solana.PublicKey // the transfer's authority, the payer unless changed
	mint             solana.PublicKey
	amount           uint64
	limit            solana.Instruction
	price            solana.Instruction
	transfer         func(p *payment) solana.Instruction
	tail             []solana.Instruction
	signWith         []*svm.PrivateKeySigner
	breakSignature   bool
	sellerMemo       string
	requirementsEdit func(r *wire.PaymentRequirements)
}

// newPayment returns a valid payment of 10,000 USDC units.
func newPayment(t *testing.T) *payment {
	t.Helper()
	p := &payment{payer: newWallet(t), feePayer: newWallet(t).PublicKey(), payTo: newWallet(t).PublicKey(),
		mint: solana.MustPublicKeyFromBase58(svm.USDCMainnet), amount: 10_000,
		limit: svm.ComputeUnitLimit(20_000), price: svm.ComputeUnitPrice(1)}
	p.authority = p.payer.PublicKey()
	p.transfer = func(p *payment) solana.Instruction {
		source, _ := svm.AssociatedTokenAccount(p.authority, p.mint, solana.TokenProgramID)
		dest, _ := svm.AssociatedTokenAccount(p.payTo, p.mint, solana.TokenProgramID)
		ix, _ := svm.TransferChecked(solana.TokenProgramID, p.amount, 6, source, p.mint, dest, p.authority)
		return ix
	}
	p.tail = []solana.Instruction{svm.Memo([]byte("0123456789abcdef0123456789abcdef"))}
	p.signWith = []*svm.PrivateKeySigner{p.payer}
	return p
}

// payload builds, signs and wraps the payment, with its requirements.
func (p *payment) payload(t *testing.T) (*wire.PaymentPayload, wire.PaymentRequirements) {
	t.Helper()
	var ixs []solana.Instruction
	for _, ix := range append([]solana.Instruction{p.limit, p.price, p.transfer(p)}, p.tail...) {
		if ix != nil {
			ixs = append(ixs, ix)
		}
	}
	tx, err := solana.NewTransaction(ixs, solana.HashFromBytes(randomBytes(t, 32)), solana.TransactionPayer(p.feePayer))
	require.NoError(t, err)
	tx.Message.SetVersion(solana.MessageVersionV0)
	tx.Signatures = make([]solana.Signature, tx.Message.Header.NumRequiredSignatures)
	for _, s := range p.signWith {
		_, err := svm.SignAs(tx, s)
		require.NoError(t, err)
	}
	if p.breakSignature {
		tx.Signatures[1][3] ^= 1
	}
	raw, err := tx.MarshalBinary()
	require.NoError(t, err)
	body, err := json.Marshal(map[string]string{"transaction": base64.StdEncoding.EncodeToString(raw)})
	require.NoError(t, err)
	extra := map[string]any{"feePayer": p.feePayer.String()}
	if p.sellerMemo != "" {
		extra["memo"] = p.sellerMemo
	}
	r := wire.PaymentRequirements{Scheme: "exact", Network: svm.NetworkMainnet, Amount: big.NewInt(10_000),
		Asset: svm.USDCMainnet, PayTo: p.payTo.String(), MaxTimeoutSeconds: 60, Extra: extra}
	if p.requirementsEdit != nil {
		p.requirementsEdit(&r)
	}
	return &wire.PaymentPayload{X402Version: 2, Accepted: r, Payload: body}, r
}

func TestVerifyExactReasons(t *testing.T) {
	t.Parallel()
	other := newWallet(t).PublicKey()
	tests := map[string]struct {
		edit      func(p *payment)
		feePayers func(p *payment) []solana.PublicKey
		reason    string
	}{
		"scheme": {edit: func(p *payment) {
			p.requirementsEdit = func(r *wire.PaymentRequirements) { r.Scheme = "upto" }
		}, reason: svm.ReasonUnsupportedScheme},
		"missing fee payer": {edit: func(p *payment) {
			p.requirementsEdit = func(r *wire.PaymentRequirements) { delete(r.Extra, "feePayer") }
		}, reason: svm.ReasonMissingFeePayer},
		"fee payer not the facilitator's": {feePayers: func(*payment) []solana.PublicKey { return []solana.PublicKey{other} },
			reason: svm.ReasonFeePayerNotManaged},
		"key 0 not the fee payer": {edit: func(p *payment) {
			p.requirementsEdit = func(r *wire.PaymentRequirements) { r.Extra["feePayer"] = other.String() }
		}, feePayers: func(p *payment) []solana.PublicKey { return []solana.PublicKey{p.feePayer, other} }, reason: svm.ReasonFeePayerMismatch},
		"bad signature":      {edit: func(p *payment) { p.breakSignature = true }, reason: svm.ReasonSignatureInvalid},
		"unsigned payer":     {edit: func(p *payment) { p.signWith = nil }, reason: svm.ReasonSignatureInvalid},
		"two instructions":   {edit: func(p *payment) { p.limit, p.tail = nil, nil }, reason: svm.ReasonInstructionsLength},
		"eight instructions": {edit: func(p *payment) { p.tail = append(p.tail, memos(5)...) }, reason: svm.ReasonInstructionsLength},
		"limit not first":    {edit: func(p *payment) { p.limit, p.price = p.price, p.limit }, reason: svm.ReasonComputeLimitInstruction},
		"no price":           {edit: func(p *payment) { p.price = svm.Memo([]byte("x")) }, reason: svm.ReasonComputePriceInstruction},
		"price too high":     {edit: func(p *payment) { p.price = svm.ComputeUnitPrice(5_000_001) }, reason: svm.ReasonComputePriceTooHigh},
		"plain transfer": {edit: func(p *payment) {
			p.transfer = func(p *payment) solana.Instruction {
				return system.NewTransferInstruction(1, p.authority, p.payTo).Build()
			}
		}, reason: svm.ReasonNoTransferInstruction},
		"ATA creation first": {edit: func(p *payment) {
			transfer := p.transfer
			p.transfer = func(p *payment) solana.Instruction {
				dest, _ := svm.AssociatedTokenAccount(p.payTo, p.mint, solana.TokenProgramID)
				return svm.CreateAssociatedTokenAccount(p.authority, dest, p.payTo, p.mint, solana.TokenProgramID)
			}
			p.tail = append([]solana.Instruction{transfer(p)}, p.tail...)
		}, reason: svm.ReasonNoTransferInstruction},
		"fee payer transferring": {edit: func(p *payment) { p.authority, p.signWith = p.feePayer, nil },
			reason: svm.ReasonFeePayerTransferring},
		"other mint": {edit: func(p *payment) {
			p.requirementsEdit = func(r *wire.PaymentRequirements) { r.Asset = svm.USDCDevnet }
		}, reason: svm.ReasonMintMismatch},
		"other payee": {edit: func(p *payment) {
			p.requirementsEdit = func(r *wire.PaymentRequirements) { r.PayTo = other.String() }
		}, reason: svm.ReasonRecipientMismatch},
		"amount below": {edit: func(p *payment) { p.amount = 9_999 }, reason: svm.ReasonAmountMismatch},
		"amount above": {edit: func(p *payment) { p.amount = 10_001 }, reason: svm.ReasonAmountMismatch},
		"unknown fourth": {edit: func(p *payment) {
			p.tail = []solana.Instruction{system.NewTransferInstruction(1, p.payer.PublicKey(), other).Build()}
		}, reason: svm.ReasonUnknownFourthInstruction},
		"unknown fifth": {edit: func(p *payment) {
			p.tail = append(p.tail, system.NewTransferInstruction(1, p.payer.PublicKey(), other).Build())
		}, reason: svm.ReasonUnknownFifthInstruction},
		"seller memo twice": {edit: func(p *payment) {
			p.sellerMemo, p.tail = "order-1", memos(2)
		}, reason: svm.ReasonMemoCount},
		"seller memo missing": {edit: func(p *payment) { p.sellerMemo, p.tail = "order-1", nil },
			reason: svm.ReasonMemoCount},
		"other memo": {edit: func(p *payment) { p.sellerMemo = "order-1" }, reason: svm.ReasonMemoMismatch},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := newPayment(t)
			if tt.edit != nil {
				tt.edit(p)
			}
			feePayers := []solana.PublicKey{p.feePayer}
			if tt.feePayers != nil {
				feePayers = tt.feePayers(p)
			}
			payload, r := p.payload(t)
			_, err := svm.VerifyExact(payload, r, feePayers)
			var ve *wire.VerifyError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.reason, ve.Reason, ve.Message)
		})
	}

	t.Run("network", func(t *testing.T) {
		t.Parallel()
		p := newPayment(t)
		payload, r := p.payload(t)
		r.Network = svm.NetworkDevnet
		_, err := svm.VerifyExact(payload, r, []solana.PublicKey{p.feePayer})
		var ve *wire.VerifyError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, svm.ReasonNetworkMismatch, ve.Reason)
	})
	t.Run("not a transaction", func(t *testing.T) {
		t.Parallel()
		p := newPayment(t)
		payload, r := p.payload(t)
		for _, body := range []string{`{"transaction":"***"}`, `{"transaction":"AAAA"}`, `{}`} {
			payload.Payload = json.RawMessage(body)
			_, err := svm.VerifyExact(payload, r, []solana.PublicKey{p.feePayer})
			var ve *wire.VerifyError
			require.ErrorAs(t, err, &ve, body)
			assert.Equal(t, svm.ReasonCouldNotBeDecoded, ve.Reason, body)
		}
	})
	t.Run("valid", func(t *testing.T) {
		t.Parallel()
		p := newPayment(t)
		p.sellerMemo, p.tail = "order-1", []solana.Instruction{svm.Memo([]byte("order-1"))}
		payload, r := p.payload(t)
		v, err := svm.VerifyExact(payload, r, []solana.PublicKey{p.feePayer})
		require.NoError(t, err)
		assert.Equal(t, p.payer.PublicKey(), v.Payer)
		assert.Equal(t, p.feePayer, v.FeePayer)
		assert.Equal(t, solana.TokenProgramID, v.Program)
	})
}

// memos returns n memo instructions.
func memos(n int) []solana.Instruction {
	out := make([]solana.Instruction, n)
	for i := range out {
		out[i] = svm.Memo([]byte{byte('a' + i)})
	}
	return out
}
