package solanafake

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// The sizes of the token programs' accounts, in bytes.
const (
	// tokenAccountSize is an SPL Token account, and the base of a Token-2022 one.
	tokenAccountSize = 165
	// token2022AccountSize is a Token-2022 account as the associated token account program
	// creates it: the base, the account type, and the ImmutableOwner extension's header.
	token2022AccountSize = tokenAccountSize + 1 + 4
	// mintSize is a mint of either program without extensions.
	mintSize = 82
)

// The Token-2022 tags of the token account the associated token account program creates.
const (
	accountTypeAccount          = 2 // AccountType::Account
	extensionTypeImmutableOwner = 7 // ExtensionType::ImmutableOwner
)

// The runtime's rent, as a Solana cluster charges it.
const (
	// rentPerByte is what an account pays per byte, its accountOverhead bytes included, to
	// be rent-exempt (two years of rent at 3,480 lamports a byte-year).
	rentPerByte     = 6_960
	accountOverhead = 128
)

// RentExempt returns the rent-exempt minimum balance of an account of size bytes, as
// getMinimumBalanceForRentExemption answers it: 890,880 lamports for a wallet (0 bytes),
// 1,461,600 for a mint, 2,039,280 for an SPL Token account.
func RentExempt(size uint64) uint64 { return (accountOverhead + size) * rentPerByte }

// tokenAccountSizeOf returns the size of a token account of the program.
func tokenAccountSizeOf(program solana.PublicKey) int {
	if program == solana.Token2022ProgramID {
		return token2022AccountSize
	}
	return tokenAccountSize
}

// tokenAccountData returns acc, an account of the program, in its layout: mint, owner,
// amount, no delegate, initialized, not native, nothing delegated, no close authority, and
// for Token-2022 the account type and an ImmutableOwner extension.
func tokenAccountData(acc TokenAccount, program solana.PublicKey) []byte {
	b := make([]byte, tokenAccountSizeOf(program))
	copy(b[0:32], acc.Mint[:])
	copy(b[32:64], acc.Owner[:])
	binary.LittleEndian.PutUint64(b[64:72], acc.Amount)
	b[108] = 1 // AccountState::Initialized
	if program == solana.Token2022ProgramID {
		b[tokenAccountSize] = accountTypeAccount
		binary.LittleEndian.PutUint16(b[tokenAccountSize+1:], extensionTypeImmutableOwner) // and a length of 0
	}
	return b
}

// mintData returns a mint in the layout both programs share: no mint authority, the
// supply, the decimals, initialized, no freeze authority.
func mintData(supply uint64, decimals uint8) []byte {
	b := make([]byte, mintSize)
	binary.LittleEndian.PutUint64(b[36:44], supply)
	b[44] = decimals
	b[45] = 1 // is_initialized
	return b
}
