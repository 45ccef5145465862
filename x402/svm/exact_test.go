package svm_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/wire"
)

// stubNode answers getLatestBlockhash with blockhash and lastValid, and counts the calls by
// method; any other method is an error answer.
type stubNode struct {
	blockhash solana.Hash
	lastValid uint64
	calls     map[string]*atomic.Int32
}

func newStubNode(t *testing.T) (*stubNode, *svm.Node) {
	t.Helper()
	s := &stubNode{blockhash: solana.HashFromBytes(randomBytes(t, 32)), lastValid: 1_000_150,
		calls: map[string]*atomic.Int32{"getLatestBlockhash": {}, "other": {}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if req.Method != "getLatestBlockhash" {
			s.calls["other"].Add(1)
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID,
				"error": map[string]any{"code": -32601, "message": "Method not found"}})
			return
		}
		s.calls[req.Method].Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{
			"context": map[string]any{"slot": 1_000_000},
			"value":   map[string]any{"blockhash": s.blockhash.String(), "lastValidBlockHeight": s.lastValid},
		}})
	}))
	t.Cleanup(srv.Close)
	node, err := svm.DialNode(srv.URL)
	require.NoError(t, err)
	return s, node
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return b
}

// newWallet returns a signer of a fresh key.
func newWallet(t *testing.T) *svm.PrivateKeySigner {
	t.Helper()
	s, err := svm.NewPrivateKeySigner(solana.NewWallet().PrivateKey)
	require.NoError(t, err)
	return s
}

// offer returns a Solana exact offer of amount USDC to payTo, its fee paid by feePayer.
func offer(payTo, feePayer solana.PublicKey, amount int64, extra map[string]any) wire.PaymentRequirements {
	e := map[string]any{"feePayer": feePayer.String()}
	for k, v := range extra {
		e[k] = v
	}
	return wire.PaymentRequirements{Scheme: "exact", Network: svm.NetworkMainnet, Amount: big.NewInt(amount),
		Asset: svm.USDCMainnet, PayTo: payTo.String(), MaxTimeoutSeconds: 60, Extra: e}
}

// payloadOf wraps a signed payment as a server receives it.
func payloadOf(t *testing.T, r wire.PaymentRequirements, signed *x402.Signed) *wire.PaymentPayload {
	t.Helper()
	p := &wire.PaymentPayload{X402Version: 2, Accepted: r, Payload: signed.Payload}
	v, err := wire.EncodePaymentPayload(p)
	require.NoError(t, err)
	back, err := wire.DecodePaymentPayload(v)
	require.NoError(t, err)
	return back
}

func TestExactPaysWithTheReferenceLayout(t *testing.T) {
	t.Parallel()
	stub, node := newStubNode(t)
	payer, payTo, feePayer := newWallet(t), newWallet(t).PublicKey(), newWallet(t).PublicKey()
	scheme, err := svm.NewExact(payer, node)
	require.NoError(t, err)
	r := offer(payTo, feePayer, 10_000, nil)
	require.NoError(t, scheme.Check(&r))
	now := time.Unix(1_800_000_000, 0)
	signed, err := scheme.Pay(t.Context(), x402.Offer{Requirements: r, Network: r.Network, X402Version: 2, Validity: time.Minute, Now: now})
	require.NoError(t, err)
	assert.Equal(t, int32(1), stub.calls["getLatestBlockhash"].Load(), "USDC's mint is known: only the blockhash is read")
	assert.Zero(t, stub.calls["other"].Load())

	var body struct {
		Transaction string `json:"transaction"`
	}
	require.NoError(t, json.Unmarshal(signed.Payload, &body))
	raw, err := base64.StdEncoding.Strict().DecodeString(body.Transaction)
	require.NoError(t, err)
	tx, err := solana.TransactionFromBytes(raw)
	require.NoError(t, err)
	msg := tx.Message
	assert.Equal(t, solana.MessageVersionV0, msg.GetVersion())
	assert.Equal(t, stub.blockhash, msg.RecentBlockhash)
	assert.Equal(t, uint8(2), msg.Header.NumRequiredSignatures)
	assert.Equal(t, uint8(1), msg.Header.NumReadonlySignedAccounts, "the payer signs read-only")
	assert.Equal(t, feePayer, msg.AccountKeys[0])
	assert.Equal(t, payer.PublicKey(), msg.AccountKeys[1])
	assert.Equal(t, solana.Signature{}, tx.Signatures[0], "the fee payer's signature is left for the facilitator")
	message, err := msg.MarshalBinary()
	require.NoError(t, err)
	assert.True(t, tx.Signatures[1].Verify(payer.PublicKey(), message))

	require.Len(t, msg.Instructions, 4)
	program := func(i int) solana.PublicKey { return msg.AccountKeys[msg.Instructions[i].ProgramIDIndex] }
	assert.Equal(t, solana.ComputeBudget, program(0))
	assert.Equal(t, []byte{2, 0x20, 0x4e, 0, 0}, []byte(msg.Instructions[0].Data), "SetComputeUnitLimit 20,000")
	assert.Equal(t, solana.ComputeBudget, program(1))
	assert.Equal(t, []byte{3, 1, 0, 0, 0, 0, 0, 0, 0}, []byte(msg.Instructions[1].Data), "SetComputeUnitPrice 1")
	assert.Equal(t, solana.TokenProgramID, program(2))
	transfer := msg.Instructions[2].Data
	assert.Equal(t, byte(12), transfer[0], "TransferChecked")
	assert.Equal(t, uint64(10_000), binary.LittleEndian.Uint64(transfer[1:9]))
	assert.Equal(t, byte(6), transfer[9])
	mint := solana.MustPublicKeyFromBase58(svm.USDCMainnet)
	source, _, _ := solana.FindAssociatedTokenAddress(payer.PublicKey(), mint)
	destination, _, _ := solana.FindAssociatedTokenAddress(payTo, mint)
	accounts := msg.Instructions[2].Accounts
	assert.Equal(t, []solana.PublicKey{source, mint, destination, payer.PublicKey()},
		[]solana.PublicKey{msg.AccountKeys[accounts[0]], msg.AccountKeys[accounts[1]], msg.AccountKeys[accounts[2]], msg.AccountKeys[accounts[3]]})
	assert.Equal(t, solana.MemoProgramID, program(3))
	assert.Empty(t, msg.Instructions[3].Accounts, "the memo needs no signer")
	memo := string(msg.Instructions[3].Data)
	assert.Regexp(t, `^[0-9a-f]{32}$`, memo, "16 random bytes in hex")

	// What the budget records: the payer's signature, the blockhash's end, the lookup's data.
	assert.Equal(t, tx.Signatures[1].String(), signed.ID)
	assert.Contains(t, signed.Secrets, signed.ID, "a signature is kept out of errors")
	assert.Contains(t, signed.Secrets, body.Transaction)
	assert.Equal(t, now.Add(183*600*time.Millisecond), signed.Expires)
	ref, ok := svm.ParseRef(signed.Ref)
	require.True(t, ok, signed.Ref)
	assert.Equal(t, svm.Ref{Blockhash: stub.blockhash, LastValid: stub.lastValid + 32, Source: source, Memo: []byte(memo)}, ref)

	// The reference facilitator's static checks pass.
	v, err := svm.VerifyExact(payloadOf(t, r, signed), r, []solana.PublicKey{feePayer})
	require.NoError(t, err)
	assert.Equal(t, payer.PublicKey(), v.Payer)
	assert.Equal(t, uint64(10_000), v.Amount)
}

func TestExactHonoursTheSellersTerms(t *testing.T) {
	t.Parallel()
	stub, node := newStubNode(t)
	payer, payTo, feePayer := newWallet(t), newWallet(t).PublicKey(), newWallet(t).PublicKey()
	scheme, err := svm.NewExact(payer, node, svm.WithComputeUnitPrice(5_000_000))
	require.NoError(t, err)
	given := solana.HashFromBytes(randomBytes(t, 32))
	r := offer(payTo, feePayer, 250_000, map[string]any{"memo": "order-42 ✓", "recentBlockhash": given.String(),
		"lastValidBlockHeight": "5"})
	signed, err := scheme.Pay(t.Context(), x402.Offer{Requirements: r, Network: r.Network, X402Version: 2, Now: time.Now()})
	require.NoError(t, err)
	v, err := svm.VerifyExact(payloadOf(t, r, signed), r, []solana.PublicKey{feePayer})
	require.NoError(t, err)
	msg := v.Transaction.Message
	assert.Equal(t, given, msg.RecentBlockhash, "the seller's blockhash is used")
	assert.Equal(t, "order-42 ✓", string(msg.Instructions[3].Data), "the seller's memo, exactly")
	assert.Equal(t, uint64(5_000_000), binary.LittleEndian.Uint64(msg.Instructions[1].Data[1:]))
	ref, ok := svm.ParseRef(signed.Ref)
	require.True(t, ok)
	assert.Equal(t, stub.lastValid+32, ref.LastValid, "a server's lower last valid height never lowers the bound")
	assert.Equal(t, "order-42 ✓", string(ref.Memo))

	_, err = svm.NewExact(payer, node, svm.WithComputeUnitPrice(5_000_001))
	assert.ErrorContains(t, err, "at most 5000000")
}

func TestExactRefusesBeforeSigning(t *testing.T) {
	t.Parallel()
	stub, node := newStubNode(t)
	payer, payTo, feePayer := newWallet(t), newWallet(t).PublicKey(), newWallet(t).PublicKey()
	scheme, err := svm.NewExact(payer, node)
	require.NoError(t, err)
	long := make([]byte, svm.MaxMemoBytes+1)
	for i := range long {
		long[i] = 'm'
	}
	for name, tc := range map[string]struct {
		r      wire.PaymentRequirements
		reason string
	}{
		"own fee payer": {offer(payTo, payer.PublicKey(), 1, nil), "is the payer's own wallet"},
		"no fee payer": {func() wire.PaymentRequirements {
			r := offer(payTo, feePayer, 1, nil)
			delete(r.Extra, "feePayer")
			return r
		}(), "extra.feePayer"},
		"bad fee payer": {offer(payTo, feePayer, 1, map[string]any{"feePayer": "not-base58-0OIl"}), "extra.feePayer must be"},
		"EVM payee": {func() wire.PaymentRequirements {
			r := offer(payTo, feePayer, 1, nil)
			r.PayTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
			return r
		}(), "payTo must be"},
		"bad mint": {func() wire.PaymentRequirements { r := offer(payTo, feePayer, 1, nil); r.Asset = "usdc"; return r }(), "asset must be"},
		"amount beyond u64": {func() wire.PaymentRequirements {
			r := offer(payTo, feePayer, 1, nil)
			r.Amount = new(big.Int).Lsh(big.NewInt(1), 64)
			return r
		}(), "64 bits"},
		"long memo":     {offer(payTo, feePayer, 1, map[string]any{"memo": string(long)}), "extra.memo is longer"},
		"bad blockhash": {offer(payTo, feePayer, 1, map[string]any{"recentBlockhash": "xyz"}), "recentBlockhash"},
	} {
		assert.ErrorContains(t, scheme.Check(&tc.r), tc.reason, name)
		_, err := scheme.Pay(context.Background(), x402.Offer{Requirements: tc.r, Network: tc.r.Network, X402Version: 2, Now: time.Now()})
		assert.ErrorContains(t, err, tc.reason, name)
	}
	assert.Zero(t, stub.calls["getLatestBlockhash"].Load(), "a refused offer reads nothing from the node")
}

func TestInstructionsAreTheProgramsBytes(t *testing.T) {
	t.Parallel()
	wallet, mint := newWallet(t).PublicKey(), newWallet(t).PublicKey()
	classic, err := svm.AssociatedTokenAccount(wallet, mint, solana.TokenProgramID)
	require.NoError(t, err)
	want, _, _ := solana.FindAssociatedTokenAddress(wallet, mint)
	assert.Equal(t, want, classic)
	t2022, err := svm.AssociatedTokenAccount(wallet, mint, solana.Token2022ProgramID)
	require.NoError(t, err)
	want2022, _, err := solana.FindProgramAddress([][]byte{wallet[:], solana.Token2022ProgramID[:], mint[:]}, solana.SPLAssociatedTokenAccountProgramID)
	require.NoError(t, err)
	assert.Equal(t, want2022, t2022)
	assert.NotEqual(t, classic, t2022, "Token-2022 derives other accounts")

	for _, program := range []solana.PublicKey{solana.TokenProgramID, solana.Token2022ProgramID} {
		ix, err := svm.TransferChecked(program, 0x0102030405060708, 6, classic, mint, t2022, wallet)
		require.NoError(t, err)
		data, err := ix.Data()
		require.NoError(t, err)
		assert.Equal(t, "0c0807060504030201"+"06", hex.EncodeToString(data))
		assert.Equal(t, program, ix.ProgramID())
		require.Len(t, ix.Accounts(), 4)
		assert.True(t, ix.Accounts()[3].IsSigner)
	}
	_, err = svm.TransferChecked(solana.SystemProgramID, 1, 6, classic, mint, t2022, wallet)
	assert.Error(t, err)

	memo := svm.Memo([]byte("API-PRO"), wallet)
	data, err := memo.Data()
	require.NoError(t, err)
	assert.Equal(t, []byte("API-PRO"), data, "no length byte before the text")
	assert.Equal(t, solana.MemoProgramID, memo.ProgramID())

	create := svm.CreateAssociatedTokenAccount(wallet, classic, wallet, mint, solana.TokenProgramID)
	data, err = create.Data()
	require.NoError(t, err)
	assert.Equal(t, []byte{1}, data, "CreateIdempotent")
}

func TestRefRoundTrips(t *testing.T) {
	t.Parallel()
	bh := solana.HashFromBytes(randomBytes(t, 32))
	src := newWallet(t).PublicKey()
	for _, r := range []svm.Ref{
		{Blockhash: bh, LastValid: 7},
		{Blockhash: bh, LastValid: 1 << 40, Source: src, Memo: []byte("API-PRO")},
		{Blockhash: bh, LastValid: 1, Source: src},
	} {
		back, ok := svm.ParseRef(r.String())
		require.True(t, ok, r.String())
		assert.Equal(t, r.Blockhash, back.Blockhash)
		assert.Equal(t, r.LastValid, back.LastValid)
		assert.Equal(t, r.Source, back.Source)
		assert.Equal(t, string(r.Memo), string(back.Memo))
	}
	old, ok := svm.ParseRef(bh.String() + " 123")
	require.True(t, ok, "a purchase recorded by an earlier release")
	assert.Equal(t, uint64(123), old.LastValid)
	for _, bad := range []string{"", "x 1", bh.String() + " -1", bh.String() + " 1 x y", bh.String() + " 1 " + src.String()} {
		_, ok := svm.ParseRef(bad)
		assert.False(t, ok, bad)
	}
}
