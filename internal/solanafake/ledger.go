package solanafake

import (
	"github.com/gagliardetto/solana-go"
)

// TokenAccount is a token account of the ledger. Its program is its mint's.
type TokenAccount struct {
	Mint solana.PublicKey
	// Owner is the wallet that may move the account's tokens.
	Owner  solana.PublicKey
	Amount uint64
}

// FundSOL adds lamports to wallet's SOL balance. A fee payer pays from it the fees of the
// transactions it sends and the rent of the token accounts it creates, as on a real
// cluster: a wallet that never received SOL is unknown to the runtime.
func (c *Cluster) FundSOL(wallet solana.PublicKey, lamports uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lamports[wallet] += lamports
}

// FundToken creates wallet's associated token account for mint (under the mint's program)
// if it is missing, adds amount to it, and returns its address. FundToken(mint, wallet, 0)
// creates an empty account. It panics on a mint the cluster does not have.
func (c *Cluster) FundToken(mint, wallet solana.PublicKey, amount uint64) solana.PublicKey {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.mints[mint]; !ok {
		panic("solanafake: FundToken: unknown mint " + mint.String())
	}
	ata := c.associatedAccount(wallet, mint)
	acc, ok := c.tokens[ata]
	if !ok {
		acc = TokenAccount{Mint: mint, Owner: wallet}
	}
	acc.Amount += amount
	c.tokens[ata] = acc
	return ata
}

// SOLBalance returns the lamports of the account at address, as getBalance answers: a
// wallet's SOL, or the rent-exempt balance a token account or a mint holds.
func (c *Cluster) SOLBalance(address solana.PublicKey) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lamportsOf(address, c.tokens, c.lamports)
}

// TokenBalance returns the balance of wallet's associated token account for mint, 0 when
// it does not exist.
func (c *Cluster) TokenBalance(mint, wallet solana.PublicKey) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tokens[c.associatedAccount(wallet, mint)].Amount
}

// TokenAccount returns the token account at address, and whether it exists.
func (c *Cluster) TokenAccount(address solana.PublicKey) (TokenAccount, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	acc, ok := c.tokens[address]
	return acc, ok
}

// lamportsOf returns the lamports of the account at address in a ledger of tokens and
// lamports: a token account and a mint hold their rent-exempt minimum.
func (c *Cluster) lamportsOf(address solana.PublicKey, tokens map[solana.PublicKey]TokenAccount, lamports map[solana.PublicKey]uint64) uint64 {
	if acc, ok := tokens[address]; ok {
		return RentExempt(uint64(tokenAccountSizeOf(c.programOf(acc.Mint))))
	}
	if _, ok := c.mints[address]; ok {
		return RentExempt(mintSize)
	}
	return lamports[address]
}

// supply returns the tokens of mint held in all accounts.
func (c *Cluster) supply(mint solana.PublicKey) uint64 {
	var total uint64
	for _, acc := range c.tokens {
		if acc.Mint == mint {
			total += acc.Amount
		}
	}
	return total
}
