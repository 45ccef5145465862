package solanafake

import (
	"github.com/gagliardetto/solana-go"
)

// Mint is a token mint of the cluster.
type Mint struct {
	// Address is the mint's account.
	Address solana.PublicKey
	// Program is the token program that owns the mint and its token accounts:
	// solana.TokenProgramID (SPL Token) or solana.Token2022ProgramID (Token-2022).
	Program solana.PublicKey
	// Decimals is the number of decimals of an amount of the token.
	Decimals uint8
}

// isTokenProgram says whether program is one of the two token programs the cluster runs.
func isTokenProgram(program solana.PublicKey) bool {
	return program == solana.TokenProgramID || program == solana.Token2022ProgramID
}

// AddMint adds a mint to the cluster, with no supply and no mint or freeze authority. It
// panics when the program is neither token program or the address is already a mint.
func (c *Cluster) AddMint(m Mint) {
	if !isTokenProgram(m.Program) {
		panic("solanafake: AddMint: " + m.Program.String() + " is not a token program")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.mints[m.Address]; ok {
		panic("solanafake: AddMint: " + m.Address.String() + " is already a mint")
	}
	c.mints[m.Address] = m
}

// Mint returns the mint at address, and whether the cluster has it.
func (c *Cluster) Mint(address solana.PublicKey) (Mint, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.mints[address]
	return m, ok
}

// AssociatedTokenAddress returns the associated token account of wallet for mint under the
// token program: the program address of the seeds wallet, program and mint under the
// associated token account program. The two token programs give a wallet two different
// accounts for one mint.
func AssociatedTokenAddress(wallet, program, mint solana.PublicKey) solana.PublicKey {
	ata, _, err := solana.FindProgramAddress([][]byte{wallet[:], program[:], mint[:]}, solana.SPLAssociatedTokenAccountProgramID)
	if err != nil {
		panic("solanafake: no associated token address: " + err.Error()) // cannot happen: a bump always exists
	}
	return ata
}

// AssociatedAccount returns the associated token account of wallet for mint under the
// mint's program, or under SPL Token for a mint the cluster does not have.
func (c *Cluster) AssociatedAccount(wallet, mint solana.PublicKey) solana.PublicKey {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.associatedAccount(wallet, mint)
}

// associatedAccount is AssociatedAccount for a caller that holds the lock.
func (c *Cluster) associatedAccount(wallet, mint solana.PublicKey) solana.PublicKey {
	return AssociatedTokenAddress(wallet, c.programOf(mint), mint)
}

// programOf returns the token program of mint, SPL Token for a mint the cluster does not
// have.
func (c *Cluster) programOf(mint solana.PublicKey) solana.PublicKey {
	if m, ok := c.mints[mint]; ok {
		return m.Program
	}
	return solana.TokenProgramID
}
