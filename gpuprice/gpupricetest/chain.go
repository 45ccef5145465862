package gpupricetest

import (
	"math/big"

	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/internal/solanafake"
)

// USDCMintAddress is the address of the USDC mint on Solana mainnet.
const USDCMintAddress = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"

// USDCMint is the USDC mint, which the fake cluster knows from the start.
var USDCMint = solana.MustPublicKeyFromBase58(USDCMintAddress)

// Transfer is a token transfer the fake cluster applied.
type Transfer struct {
	Signature   solana.Signature // the first signature of its transaction
	From, To    solana.PublicKey // the source and destination token accounts
	Owner, Mint solana.PublicKey // the wallet that owns From and signed, and the token
	Amount      *big.Int         // in the mint's atomic units (package usdc's for USDC)
	Memos       [][]byte         // every Memo instruction's data in its transaction, as sent
}

// Memo is a Memo program instruction of a transaction that landed successfully.
type Memo struct {
	Signature solana.Signature   // the first signature of its transaction
	Signers   []solana.PublicKey // the accounts the instruction named, all of which signed
	Data      []byte             // the memo, exactly as sent
}

// newCluster returns the fake's cluster on its clock, knowing the configured mints (all of
// the SPL Token program), its landed transactions confirmed as WithConfirmAfter says, and
// the treasury's USDC account when WithTreasuryATA says it exists.
func (s *Server) newCluster() *solanafake.Cluster {
	c := solanafake.New(solanafake.Config{Clock: s.Now, Stage: confirmAfter(s.cfg.confirmAfter)})
	for mint, decimals := range s.cfg.mints {
		c.AddMint(solanafake.Mint{Address: mint, Program: solana.TokenProgramID, Decimals: decimals})
	}
	if s.cfg.treasuryATA {
		c.FundToken(USDCMint, s.Treasury, 0)
	}
	return c
}

// FundUSDC creates owner's USDC associated token account if it is missing and adds amount
// (atomic units of package usdc, such as usdc.Dollars(5)) to its balance; FundUSDC(owner,
// new(big.Int)) creates an empty account.
func (s *Server) FundUSDC(owner solana.PublicKey, amount *big.Int) {
	s.FundToken(USDCMint, owner, amount)
}

// FundToken is FundUSDC for any mint the cluster knows (USDC and those added with
// WithMint); it panics on another mint, and on an amount a token account cannot hold (negative,
// or 2⁶⁴ atomic units or more).
func (s *Server) FundToken(mint, owner solana.PublicKey, amount *big.Int) {
	if _, ok := s.cluster.Mint(mint); !ok {
		panic("gpupricetest: FundToken: unknown mint " + mint.String() + "; add it with WithMint")
	}
	if !amount.IsUint64() {
		panic("gpupricetest: FundToken: " + amount.String() + " atomic units do not fit a token account")
	}
	s.cluster.FundToken(mint, owner, amount.Uint64())
}

// FundSOL adds lamports to the SOL balance of wallet that getBalance reports. A wallet pays
// from it the fees of the transactions it sends and the rent of the token accounts it
// creates, as on a real cluster: a payer needs SOL.
func (s *Server) FundSOL(wallet solana.PublicKey, lamports uint64) {
	s.cluster.FundSOL(wallet, lamports)
}

// USDCBalance returns the balance of owner's USDC associated token account in atomic
// units, 0 when it does not exist.
func (s *Server) USDCBalance(owner solana.PublicKey) *big.Int {
	return s.TokenBalance(USDCMint, owner)
}

// TokenBalance returns the balance of owner's associated token account for mint, 0 when
// it does not exist.
func (s *Server) TokenBalance(mint, owner solana.PublicKey) *big.Int {
	return new(big.Int).SetUint64(s.cluster.TokenBalance(mint, owner))
}

// TreasuryATA returns the treasury's USDC associated token account, where key payments
// must go.
func (s *Server) TreasuryATA() solana.PublicKey {
	return solanafake.AssociatedTokenAddress(s.Treasury, solana.TokenProgramID, USDCMint)
}

// TokenAccountExists says whether the token account at address exists.
func (s *Server) TokenAccountExists(address solana.PublicKey) bool {
	_, ok := s.cluster.TokenAccount(address)
	return ok
}

// Transfers returns the token transfers applied so far, in order.
func (s *Server) Transfers() []Transfer {
	var out []Transfer
	for _, t := range s.cluster.Transfers() {
		out = append(out, Transfer(t))
	}
	return out
}

// Memos returns the Memo instructions of the transactions that landed successfully, in
// order.
func (s *Server) Memos() []Memo {
	var out []Memo
	for _, m := range s.cluster.Memos() {
		out = append(out, Memo(m))
	}
	return out
}
