package gpuprice_test

import (
	"crypto/ed25519"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/x402/svm"
)

// The program ids, written out here so that the test does not take them from the code under
// test or from solana-go.
const (
	tokenProgram  = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
	ataProgram    = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL"
	memoProgram   = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr"
	systemProgram = "11111111111111111111111111111111"
	usdcMint      = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
)

// wireTx is a legacy Solana transaction decoded by hand from its wire bytes.
type wireTx struct {
	signatures             [][]byte
	message                []byte
	requiredSigs, roSigned byte
	roUnsigned             byte
	keys                   []string
	blockhash              []byte
	instructions           []wireInstruction
}

// wireInstruction is one instruction of a wireTx, its accounts resolved to addresses.
type wireInstruction struct {
	program  string
	accounts []int
	data     []byte
}

// reader reads the wire format.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || len(r.b) < n {
		r.err = errors.New("short transaction")
		return make([]byte, n)
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

// compact reads a compact-u16.
func (r *reader) compact() int {
	n, shift := 0, 0
	for {
		c := r.take(1)[0]
		n |= int(c&0x7f) << shift
		if c&0x80 == 0 || r.err != nil {
			return n
		}
		shift += 7
	}
}

// decodeWire parses a legacy transaction without solana-go.
func decodeWire(t *testing.T, raw []byte) wireTx {
	t.Helper()
	r := &reader{b: raw}
	var tx wireTx
	for range r.compact() {
		tx.signatures = append(tx.signatures, r.take(64))
	}
	tx.message = r.b
	h := r.take(3)
	tx.requiredSigs, tx.roSigned, tx.roUnsigned = h[0], h[1], h[2]
	require.Zero(t, h[0]&0x80, "a legacy message")
	for range r.compact() {
		tx.keys = append(tx.keys, solana.PublicKeyFromBytes(r.take(32)).String())
	}
	tx.blockhash = r.take(32)
	for range r.compact() {
		var ix wireInstruction
		ix.program = tx.keys[r.take(1)[0]]
		for range r.compact() {
			ix.accounts = append(ix.accounts, int(r.take(1)[0]))
		}
		ix.data = append([]byte(nil), r.take(r.compact())...)
		tx.instructions = append(tx.instructions, ix)
	}
	require.NoError(t, r.err)
	require.Empty(t, r.b, "no trailing bytes")
	return tx
}

// signer reports whether key i signs, writable whether it is writable, by the header rules.
func (tx wireTx) signer(i int) bool { return i < int(tx.requiredSigs) }
func (tx wireTx) writable(i int) bool {
	if i < int(tx.requiredSigs) {
		return i < int(tx.requiredSigs-tx.roSigned)
	}
	return i < len(tx.keys)-int(tx.roUnsigned)
}

// associated derives an associated token account from its definition: the program address
// of [wallet, token program, mint] under the associated token account program.
func associated(t *testing.T, wallet string) string {
	t.Helper()
	addr, _, err := solana.FindProgramAddress([][]byte{
		solana.MustPublicKeyFromBase58(wallet).Bytes(),
		solana.MustPublicKeyFromBase58(tokenProgram).Bytes(),
		solana.MustPublicKeyFromBase58(usdcMint).Bytes(),
	}, solana.MustPublicKeyFromBase58(ataProgram))
	require.NoError(t, err)
	return addr.String()
}

func TestBuildKeyPaymentDecodesInstructionByInstruction(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		plan   gpuprice.Plan
		amount uint64
		memo   string
		create bool
	}{
		{gpuprice.PlanPro, 5_000_000, "API-PRO", false},
		{gpuprice.PlanUnlimited, 19_000_000, "API-ULTRA", true},
	} {
		t.Run(string(tc.plan), func(t *testing.T) {
			t.Parallel()
			key := solana.NewWallet().PrivateKey
			scan.Add(key.String())
			payer, err := svm.NewPrivateKeySigner(key)
			require.NoError(t, err)
			treasury := solana.NewWallet().PublicKey()
			blockhash := solana.Hash{1, 2, 3, 4, 5}

			tx, err := gpuprice.BuildKeyPayment(&gpuprice.BuyKeyParams{Plan: tc.plan, Payer: payer, Treasury: treasury, CreateTreasuryAccount: tc.create}, blockhash)
			require.NoError(t, err)
			raw, err := tx.MarshalBinary()
			require.NoError(t, err)
			w := decodeWire(t, raw)

			owner := key.PublicKey().String()
			require.Len(t, w.signatures, 1, "the payer is the only signer")
			assert.Equal(t, byte(1), w.requiredSigs)
			assert.Equal(t, owner, w.keys[0], "the payer pays the fee")
			assert.True(t, ed25519.Verify(ed25519.PublicKey(key.PublicKey().Bytes()), w.message, w.signatures[0]), "the signature covers the message as sent")
			assert.Equal(t, blockhash[:], w.blockhash)

			ixs := w.instructions
			if tc.create {
				require.Len(t, ixs, 3)
				create := ixs[0]
				assert.Equal(t, ataProgram, create.program)
				assert.Equal(t, []byte{1}, create.data, "CreateIdempotent")
				require.Len(t, create.accounts, 6)
				want := []string{owner, associated(t, treasury.String()), treasury.String(), usdcMint, systemProgram, tokenProgram}
				for i, a := range create.accounts {
					assert.Equal(t, want[i], w.keys[a], "account %d of CreateIdempotent", i)
				}
				assert.True(t, w.writable(create.accounts[0]) && w.signer(create.accounts[0]), "the funder signs and pays")
				assert.True(t, w.writable(create.accounts[1]), "the new account is writable")
				ixs = ixs[1:]
			}
			require.Len(t, ixs, 2)

			transfer := ixs[0]
			assert.Equal(t, tokenProgram, transfer.program)
			require.Len(t, transfer.data, 10)
			assert.Equal(t, byte(12), transfer.data[0], "TransferChecked")
			assert.Equal(t, tc.amount, binary.LittleEndian.Uint64(transfer.data[1:9]), "the plan's exact amount")
			assert.Equal(t, byte(6), transfer.data[9], "USDC decimals")
			require.Len(t, transfer.accounts, 4)
			src, mint, dst, auth := transfer.accounts[0], transfer.accounts[1], transfer.accounts[2], transfer.accounts[3]
			assert.Equal(t, associated(t, owner), w.keys[src], "from the payer's USDC account")
			assert.Equal(t, usdcMint, w.keys[mint])
			assert.Equal(t, associated(t, treasury.String()), w.keys[dst], "to the treasury's USDC account")
			assert.Equal(t, owner, w.keys[auth])
			assert.True(t, w.writable(src))
			assert.True(t, w.writable(dst))
			assert.False(t, w.writable(mint))
			assert.True(t, w.signer(auth))

			memo := ixs[1]
			assert.Equal(t, memoProgram, memo.program)
			assert.Equal(t, []byte(tc.memo), memo.data, "the memo bytes exactly, with no length prefix")
			require.Len(t, memo.accounts, 1)
			assert.Equal(t, owner, w.keys[memo.accounts[0]])
			assert.True(t, w.signer(memo.accounts[0]))
		})
	}
}

func TestBuildKeyPaymentRefusesBadInput(t *testing.T) {
	t.Parallel()
	payer, err := svm.NewPrivateKeySigner(solana.NewWallet().PrivateKey)
	require.NoError(t, err)
	treasury := solana.NewWallet().PublicKey()
	bh := solana.Hash{9}
	for _, tc := range []struct {
		name  string
		p     *gpuprice.BuyKeyParams
		bh    solana.Hash
		field string
	}{
		{"nil purchase", nil, bh, "purchase"},
		{"no treasury", &gpuprice.BuyKeyParams{Plan: gpuprice.PlanPro, Payer: payer}, bh, "Treasury"},
		{"treasury is the payer", &gpuprice.BuyKeyParams{Plan: gpuprice.PlanPro, Payer: payer, Treasury: payer.PublicKey()}, bh, "Treasury"},
		{"unknown plan", &gpuprice.BuyKeyParams{Plan: "free", Payer: payer, Treasury: treasury}, bh, "Plan"},
		{"no payer", &gpuprice.BuyKeyParams{Plan: gpuprice.PlanPro, Treasury: treasury}, bh, "Payer"},
		{"no blockhash", &gpuprice.BuyKeyParams{Plan: gpuprice.PlanPro, Payer: payer, Treasury: treasury}, solana.Hash{}, "recent blockhash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := gpuprice.BuildKeyPayment(tc.p, tc.bh)
			ve := testkit.As[*sdk.ValidationError](t, err)
			assert.Equal(t, tc.field, ve.Field)
			assert.Equal(t, "gpuprice", ve.Service)
		})
	}
}

func TestPrivateKeySignerNeverPrintsTheKey(t *testing.T) {
	t.Parallel()
	key := solana.NewWallet().PrivateKey
	scan.Add(key.String())
	s, err := svm.PrivateKeySignerFromBase58(key.String())
	require.NoError(t, err)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		out := sprintf(verb, s)
		assert.NotContains(t, out, key.String(), verb)
		assert.Contains(t, out, key.PublicKey().String(), verb)
	}
	_, err = svm.PrivateKeySignerFromBase58("not-a-key")
	assert.Equal(t, "private key", testkit.As[*sdk.ValidationError](t, err).Field)
}
