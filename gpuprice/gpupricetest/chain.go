package gpupricetest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"maps"
	"time"

	"github.com/gagliardetto/solana-go"
)

// USDCMintAddress is the address of the USDC mint on Solana mainnet.
const USDCMintAddress = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"

// USDCMint is the USDC mint, which the fake cluster knows from the start.
var USDCMint = solana.MustPublicKeyFromBase58(USDCMintAddress)

// USDCDecimals is the number of decimals of USDC: one USDC is 1,000,000 atomic units.
const USDCDecimals = 6

// The fake cluster's constants.
const (
	// baseHeight and baseSlot are the block height and slot when the server starts.
	baseHeight = 330_000_000
	baseSlot   = 352_000_000
	// blockTime is how long the cluster takes to produce a block on the fake's clock.
	blockTime = 400 * time.Millisecond
	// blockhashLifetime is how many blocks a blockhash stays usable for.
	blockhashLifetime = 150
	// statusCacheBlocks is how many blocks back getSignatureStatuses looks without
	// searchTransactionHistory.
	statusCacheBlocks = 300
	// Rent-exempt balances of a token account and of a mint, reported by getAccountInfo.
	tokenAccountLamports = 2_039_280
	mintLamports         = 1_461_600
)

// tokenAccount is an SPL token account of the ledger.
type tokenAccount struct {
	mint   solana.PublicKey
	owner  solana.PublicKey
	amount uint64
}

// landedTx is a transaction that landed in a block, successfully or not.
type landedTx struct {
	slot, height uint64
	// err is the transaction's error as a node reports it, nil when it succeeded.
	err *txError
	// queries counts the getSignatureStatuses calls that asked for it.
	queries int
	// confirmed says whether it has been reported confirmed, which redemption requires.
	confirmed bool
	transfers []Transfer
	memos     [][]byte
}

// Transfer is a token transfer the fake cluster applied.
type Transfer struct {
	// Signature is the first signature of its transaction.
	Signature solana.Signature
	// From and To are the source and destination token accounts.
	From, To solana.PublicKey
	// Owner is the wallet that owns From and signed the transfer.
	Owner  solana.PublicKey
	Mint   solana.PublicKey
	Amount uint64
	// Memos holds the data of every Memo instruction of its transaction, exactly as sent.
	Memos [][]byte
}

// Memo is a Memo program instruction of a transaction that landed successfully.
type Memo struct {
	// Signature is the first signature of its transaction.
	Signature solana.Signature
	// Signers are the accounts the instruction named, all of which signed.
	Signers []solana.PublicKey
	// Data is the memo, exactly as sent.
	Data []byte
}

// chain is the fake cluster's state: mints, token accounts, SOL balances, blocks and the
// transactions that landed. Its methods do not lock; the Server's mutex guards it.
type chain struct {
	mints     map[solana.PublicKey]uint8
	tokens    map[solana.PublicKey]tokenAccount
	lamports  map[solana.PublicKey]uint64
	seed      [32]byte
	start     time.Time
	produced  uint64
	hashes    map[solana.Hash]uint64
	landed    map[solana.Signature]*landedTx
	transfers []Transfer
	memos     []Memo
	received  []ReceivedTransaction
}

// newChain returns a cluster at baseHeight at time start, knowing the mints.
func newChain(start time.Time, mints map[solana.PublicKey]uint8) *chain {
	c := &chain{
		mints:    mints,
		tokens:   map[solana.PublicKey]tokenAccount{},
		lamports: map[solana.PublicKey]uint64{},
		start:    start,
		hashes:   map[solana.Hash]uint64{},
		landed:   map[solana.Signature]*landedTx{},
	}
	_, _ = rand.Read(c.seed[:]) // crypto/rand.Read never fails since Go 1.24
	return c
}

// associatedAccount returns the associated token account of wallet for mint.
func associatedAccount(wallet, mint solana.PublicKey) solana.PublicKey {
	ata, _, err := solana.FindAssociatedTokenAddress(wallet, mint)
	if err != nil {
		panic("gpupricetest: no associated token address: " + err.Error()) // cannot happen: a bump always exists
	}
	return ata
}

// fund creates owner's associated token account for mint if it is missing and adds amount
// to it.
func (c *chain) fund(mint, owner solana.PublicKey, amount uint64) {
	ata := associatedAccount(owner, mint)
	acc, ok := c.tokens[ata]
	if !ok {
		acc = tokenAccount{mint: mint, owner: owner}
	}
	acc.amount += amount
	c.tokens[ata] = acc
}

// blocksSince returns the blocks produced between the start and now.
func (c *chain) blocksSince(now time.Time) uint64 {
	return uint64(max(now.Sub(c.start), 0)/blockTime) + c.produced
}

// height returns the current block height.
func (c *chain) height(now time.Time) uint64 { return baseHeight + c.blocksSince(now) }

// slot returns the current slot.
func (c *chain) slot(now time.Time) uint64 { return baseSlot + c.blocksSince(now) }

// latestBlockhash produces a block and returns its blockhash and the last block height at
// which a transaction using it may land.
func (c *chain) latestBlockhash(now time.Time) (solana.Hash, uint64) {
	c.produced++
	h := c.height(now)
	var buf [40]byte
	copy(buf[:], c.seed[:])
	binary.LittleEndian.PutUint64(buf[32:], h)
	hash := solana.Hash(sha256.Sum256(buf[:]))
	c.hashes[hash] = h
	return hash, h + blockhashLifetime
}

// blockhashValid says whether hash was issued and has not expired.
func (c *chain) blockhashValid(hash solana.Hash, now time.Time) bool {
	h, ok := c.hashes[hash]
	return ok && c.height(now) <= h+blockhashLifetime
}

// FundUSDC creates owner's USDC associated token account if it is missing and adds amount
// (atomic units) to its balance. FundUSDC(owner, 0) creates an empty account.
func (s *Server) FundUSDC(owner solana.PublicKey, amount uint64) {
	s.FundToken(USDCMint, owner, amount)
}

// FundToken is FundUSDC for any mint the cluster knows (USDC and those added with
// WithMint); it panics on another mint.
func (s *Server) FundToken(mint, owner solana.PublicKey, amount uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.chain.mints[mint]; !ok {
		panic("gpupricetest: FundToken: unknown mint " + mint.String() + "; add it with WithMint")
	}
	s.chain.fund(mint, owner, amount)
}

// FundSOL adds lamports to the SOL balance of wallet that getBalance reports. A wallet pays
// from it the fees of the transactions it sends and the rent of the token accounts it
// creates, as on a real cluster: a payer needs SOL.
func (s *Server) FundSOL(wallet solana.PublicKey, lamports uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chain.lamports[wallet] += lamports
}

// USDCBalance returns the balance of owner's USDC associated token account in atomic
// units, 0 when it does not exist.
func (s *Server) USDCBalance(owner solana.PublicKey) uint64 {
	return s.TokenBalance(USDCMint, owner)
}

// TokenBalance returns the balance of owner's associated token account for mint, 0 when
// it does not exist.
func (s *Server) TokenBalance(mint, owner solana.PublicKey) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chain.tokens[associatedAccount(owner, mint)].amount
}

// TreasuryATA returns the treasury's USDC associated token account, where key payments
// must go.
func (s *Server) TreasuryATA() solana.PublicKey { return associatedAccount(s.Treasury, USDCMint) }

// TokenAccountExists says whether the token account at address exists.
func (s *Server) TokenAccountExists(address solana.PublicKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.chain.tokens[address]
	return ok
}

// Transfers returns the token transfers applied so far, in order.
func (s *Server) Transfers() []Transfer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Transfer(nil), s.chain.transfers...)
}

// Memos returns the Memo instructions of the transactions that landed successfully, in
// order.
func (s *Server) Memos() []Memo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Memo(nil), s.chain.memos...)
}

// Transactions returns every transaction sendTransaction received, in order, with what the
// node did with it.
func (s *Server) Transactions() []ReceivedTransaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ReceivedTransaction(nil), s.chain.received...)
}

// RPCCalls returns how many times each JSON-RPC method was called.
func (s *Server) RPCCalls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.rpcCalls)
}
