package svm

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/wire"
)

// SchemeExact is the name of the scheme this package pays and verifies: a fixed amount of a
// token moved by one TransferChecked in a transaction whose fee a facilitator pays.
const SchemeExact = "exact"

// Limits of the "exact" scheme on Solana, as the reference implementation sets them.
const (
	// MaxComputeUnitPrice is the highest compute unit price, in micro-lamports, the reference
	// facilitator accepts: the fee payer (the facilitator) pays it.
	MaxComputeUnitPrice = 5_000_000
	// DefaultComputeUnitPrice is the price a payment offers by default, the reference
	// client's.
	DefaultComputeUnitPrice = 1
	// DefaultComputeUnitLimit is the compute budget a payment asks for by default, the
	// reference client's: a TransferChecked and a memo need far less.
	DefaultComputeUnitLimit = 20_000
	// MaxMemoBytes is the longest memo a seller may ask for.
	MaxMemoBytes = 256
)

// The timing of a Solana blockhash: a transaction can land only while its blockhash is among
// the last 150 blocks. blockTime is a conservative length of a block (they take about 400
// ms): a longer estimate keeps a refused payment counted longer, never shorter.
const (
	blockhashBlocks = 150
	// heightSlack covers the blocks a blockhash handed out by a server at "processed"
	// commitment may be ahead of the node's "confirmed" one.
	heightSlack = 32
	blockTime   = 600 * time.Millisecond
)

// Exact is the x402 "exact" scheme on Solana: an x402.Scheme to give to x402.NewPayer. It
// pays an offer with a v0 transaction whose fee payer (key 0) is the facilitator named in the
// offer's extra.feePayer, its signature left empty for the facilitator; the payer signs only
// as the authority of a TransferChecked of exactly the offer's amount of its mint, with the
// mint's own program (Token or Token-2022), to the payee's associated token account, after a
// SetComputeUnitLimit and a SetComputeUnitPrice (never above MaxComputeUnitPrice) and before
// a Memo (the seller's extra.memo, else 16 random bytes in hex). It reads the mint's program
// and decimals (known for USDC, else once per mint) and a recent blockhash from its Node. It
// is safe for concurrent use.
type Exact struct {
	signer Signer
	node   *Node
	price  uint64
	limit  uint32
}

// The scheme is an x402.Scheme.
var _ x402.Scheme = (*Exact)(nil)

// ExactOption configures an Exact scheme.
type ExactOption func(*Exact) error

// WithComputeUnitPrice sets the compute unit price a payment offers, in micro-lamports
// (default DefaultComputeUnitPrice, at most MaxComputeUnitPrice).
func WithComputeUnitPrice(microLamports uint64) ExactOption {
	return func(e *Exact) error {
		if microLamports > MaxComputeUnitPrice {
			return invalid("compute unit price", fmt.Sprintf("must be at most %d micro-lamports: the facilitator refuses more", MaxComputeUnitPrice))
		}
		e.price = microLamports
		return nil
	}
}

// NewExact returns the Solana "exact" scheme paying from signer's wallet, reading the chain
// through node. A nil signer or node is a *sdk.ValidationError.
func NewExact(signer Signer, node *Node, opts ...ExactOption) (*Exact, error) {
	switch {
	case signer == nil:
		return nil, invalid("signer", "must not be nil")
	case node == nil:
		return nil, invalid("Solana node", "must not be nil: svm.DialNode(url) reaches one")
	}
	e := &Exact{signer: signer, node: node, price: DefaultComputeUnitPrice, limit: DefaultComputeUnitLimit}
	for _, opt := range opts {
		if err := opt(e); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// Scheme returns "exact".
func (e *Exact) Scheme() string { return SchemeExact }

// Namespace returns "solana", the CAIP-2 namespace of Solana clusters.
func (e *Exact) Namespace() string { return "solana" }

// DefaultNetwork returns NetworkMainnet.
func (e *Exact) DefaultNetwork() string { return NetworkMainnet }

// Payer returns the signer's wallet address.
func (e *Exact) Payer() string { return e.signer.PublicKey().String() }

// Address returns a base58 address as it is; see CanonicalAddress.
func (e *Exact) Address(address string) (string, error) { return CanonicalAddress(address) }

// USDC returns the USDC mint of mainnet or devnet.
func (e *Exact) USDC(network string) (string, bool) { return KnownUSDC(network) }

// Check says why an offer cannot be paid: an asset or a payee that is not a Solana address,
// an amount beyond 64 bits, no extra.feePayer, a fee payer that is the payer's own wallet
// (it would pay the fee and sign the whole transaction), a memo longer than MaxMemoBytes, or
// an extra.recentBlockhash that is not a blockhash.
func (e *Exact) Check(offer *wire.PaymentRequirements) error {
	if _, err := ParseAddress(offer.Asset); err != nil {
		return fmt.Errorf("asset %w", err)
	}
	if _, err := ParseAddress(offer.PayTo); err != nil {
		return fmt.Errorf("payTo %w", err)
	}
	if offer.Amount == nil || !offer.Amount.IsUint64() {
		return errors.New("amount does not fit in a Solana token amount (64 bits)")
	}
	feePayer, err := e.feePayer(offer)
	if err != nil {
		return err
	}
	if feePayer.Equals(e.signer.PublicKey()) {
		return errors.New("extra.feePayer is the payer's own wallet: the facilitator must pay the fee")
	}
	if memo := offer.ExtraString("memo"); len(memo) > MaxMemoBytes {
		return fmt.Errorf("extra.memo is longer than %d bytes", MaxMemoBytes)
	}
	if bh, ok := offer.Extra["recentBlockhash"]; ok {
		if s, _ := bh.(string); s != "" {
			if _, err := solana.HashFromBase58(s); err != nil {
				return errors.New("extra.recentBlockhash is not a base58 blockhash")
			}
		}
	}
	return nil
}

// feePayer returns the offer's extra.feePayer.
func (e *Exact) feePayer(offer *wire.PaymentRequirements) (solana.PublicKey, error) {
	s := offer.ExtraString("feePayer")
	if s == "" {
		return solana.PublicKey{}, errors.New("extra.feePayer (the facilitator that pays the fee) is required")
	}
	pk, err := ParseAddress(s)
	if err != nil {
		return solana.PublicKey{}, fmt.Errorf("extra.feePayer %w", err)
	}
	return pk, nil
}

// Pay builds and signs the transaction of an offer that passed Check (see Exact). Its ID is
// the payer's signature, which is not the transaction's id (the fee payer's signature is),
// and is kept out of errors; its Ref records the blockhash, an upper bound of the last block
// height at which it can land, the payer's token account and the memo, so that a Lookup
// finds it.
func (e *Exact) Pay(ctx context.Context, offer x402.Offer) (*x402.Signed, error) {
	r := &offer.Requirements
	if err := e.Check(r); err != nil {
		return nil, fmt.Errorf("x402: cannot pay this offer: %w", err)
	}
	feePayer, _ := e.feePayer(r)
	mint, _ := ParseAddress(r.Asset)
	payTo, _ := ParseAddress(r.PayTo)
	m, err := e.node.Mint(ctx, mint)
	if err != nil {
		return nil, err
	}
	blockhash, lastValid, err := e.blockhash(ctx, r)
	if err != nil {
		return nil, err
	}
	return e.sign(offer, feePayer, payTo, mint, m, blockhash, lastValid)
}

// sign builds and signs the transaction of a payment of offer once the chain was read: the
// client-side work of a payment, which BenchmarkSign compares with its floor.
func (e *Exact) sign(offer x402.Offer, feePayer, payTo, mint solana.PublicKey, m Mint,
	blockhash solana.Hash, lastValid uint64) (*x402.Signed, error) {
	r := &offer.Requirements
	owner := e.signer.PublicKey()
	source, err := AssociatedTokenAccount(owner, mint, m.Program)
	if err != nil {
		return nil, errors.New("x402: deriving the payer's token account: " + err.Error())
	}
	destination, err := AssociatedTokenAccount(payTo, mint, m.Program)
	if err != nil {
		return nil, errors.New("x402: deriving the payee's token account: " + err.Error())
	}
	memo, err := memoOf(r)
	if err != nil {
		return nil, err
	}
	tx, err := e.transaction(m, r.Amount.Uint64(), source, mint, destination, memo, feePayer, blockhash)
	if err != nil {
		return nil, err
	}
	sig, err := SignAs(tx, e.signer)
	if err != nil {
		return nil, errors.New("x402: " + err.Error())
	}
	wireTx, err := tx.MarshalBinary()
	if err != nil {
		return nil, errors.New("x402: encoding the transaction: " + err.Error())
	}
	b64 := base64.StdEncoding.EncodeToString(wireTx)
	payload, err := json.Marshal(struct {
		Transaction string `json:"transaction"`
	}{b64})
	if err != nil {
		return nil, err
	}
	id := sig.String()
	return &x402.Signed{
		Payload: payload,
		ID:      id,
		Expires: offer.Now.Add(time.Duration(blockhashBlocks+heightSlack+1) * blockTime),
		Ref:     Ref{Blockhash: blockhash, LastValid: lastValid, Source: source, Memo: memo}.String(),
		Secrets: []string{b64, id},
	}, nil
}

// transaction builds the unsigned v0 transaction of a payment and checks its layout: the fee
// payer at key 0, two signers (the fee payer and the payer).
func (e *Exact) transaction(m Mint, amount uint64, source, mint, destination solana.PublicKey, memo []byte,
	feePayer solana.PublicKey, blockhash solana.Hash) (*solana.Transaction, error) {
	transfer, err := TransferChecked(m.Program, amount, m.Decimals, source, mint, destination, e.signer.PublicKey())
	if err != nil {
		return nil, errors.New("x402: " + err.Error())
	}
	ixs := []solana.Instruction{ComputeUnitLimit(e.limit), ComputeUnitPrice(e.price), transfer, Memo(memo)}
	tx, err := compile(feePayer, ixs, blockhash)
	if err != nil {
		return nil, errors.New("x402: building the transaction: " + err.Error())
	}
	tx.Message.SetVersion(solana.MessageVersionV0)
	if h := tx.Message.Header; h.NumRequiredSignatures != 2 || !tx.Message.AccountKeys[0].Equals(feePayer) {
		return nil, errors.New("x402: the transaction must have two signers, the fee payer first")
	}
	return tx, nil
}

// blockhash returns the blockhash a payment of r uses, the offer's extra.recentBlockhash when
// it gives one, and an upper bound of the last block height at which it can land: the node's
// latest blockhash's, plus a slack, or the offer's own extra.lastValidBlockHeight when that is
// higher. A server's word never lowers it, so that no server can have a payment released
// while it could still land.
func (e *Exact) blockhash(ctx context.Context, r *wire.PaymentRequirements) (solana.Hash, uint64, error) {
	latest, lastValid, err := e.node.LatestBlockhash(ctx, rpc.CommitmentConfirmed)
	if err != nil {
		return solana.Hash{}, 0, err
	}
	lastValid += heightSlack
	s := r.ExtraString("recentBlockhash")
	if s == "" {
		return latest, lastValid, nil
	}
	given, _ := solana.HashFromBase58(s) // checked by Check
	if claimed, ok := extraUint(r, "lastValidBlockHeight"); ok && claimed > lastValid {
		lastValid = claimed
	}
	return given, lastValid, nil
}

// extraUint reads a non-negative integer member of extra, sent as a decimal string or a
// number.
func extraUint(r *wire.PaymentRequirements, key string) (uint64, bool) {
	switch v := r.Extra[key].(type) {
	case string:
		n, err := wire.ParseUint256(v)
		if err != nil || !n.IsUint64() {
			return 0, false
		}
		return n.Uint64(), true
	case float64:
		if v < 0 || v > 1<<53 || v != float64(uint64(v)) {
			return 0, false
		}
		return uint64(v), true
	}
	return 0, false
}

// memoOf returns the memo of a payment of r: the seller's extra.memo exactly, else 16 random
// bytes as 32 lower-case hex digits, which make the transaction unique.
func memoOf(r *wire.PaymentRequirements) ([]byte, error) {
	if memo := r.ExtraString("memo"); memo != "" {
		return []byte(memo), nil
	}
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, fmt.Errorf("x402: reading a random memo: %w", err)
	}
	return []byte(hex.EncodeToString(nonce[:])), nil
}
