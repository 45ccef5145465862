package solanafake

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// systemResultWithNegativeLamports is the System program's custom error for a transfer from
// an account short of lamports.
const systemResultWithNegativeLamports = 1

// associatedTokenAccount runs an instruction of the associated token account program: Create
// (data empty or [0]; IllegalOwner when the account exists) or CreateIdempotent ([1]), with
// accounts [payer (writable signer), account (writable), wallet, mint, System program, token
// program]. The account must be the wallet's associated account under the token program
// named, which must be the mint's; the payer funds its rent-exempt balance through the
// System program.
func (x *execution) associatedTokenAccount(accounts solana.AccountMetaSlice, data []byte) *programError {
	idempotent := false
	switch {
	case len(data) == 0 || len(data) == 1 && data[0] == 0:
	case len(data) == 1 && data[0] == 1:
		idempotent = true
	default:
		return failWith("InvalidInstructionData")
	}
	if len(accounts) < 6 {
		return failWith("NotEnoughAccountKeys")
	}
	payer, ata, wallet, mint, system, tokenProgram := accounts[0], accounts[1], accounts[2], accounts[3], accounts[4], accounts[5]
	x.logs = append(x.logs, "Program log: Create")
	switch {
	case system.PublicKey != solana.SystemProgramID || !isTokenProgram(tokenProgram.PublicKey):
		return failWith("IncorrectProgramId")
	case ata.PublicKey != AssociatedTokenAddress(wallet.PublicKey, tokenProgram.PublicKey, mint.PublicKey):
		return failWith("InvalidSeeds")
	case !payer.IsSigner:
		return failWith("MissingRequiredSignature")
	}
	if existing, ok := x.tokens[ata.PublicKey]; ok {
		if idempotent && existing.Owner == wallet.PublicKey && existing.Mint == mint.PublicKey {
			return nil
		}
		return failWith("IllegalOwner")
	}
	m, ok := x.c.mints[mint.PublicKey]
	switch {
	case !ok:
		return customError(tokenInvalidMint)
	case m.Program != tokenProgram.PublicKey:
		return failWith("IncorrectProgramId")
	case !ata.IsWritable || !payer.IsWritable:
		return failWith("ReadonlyDataModified")
	}
	// The System program moves the new account's rent-exempt balance from the payer.
	rent := RentExempt(uint64(tokenAccountSizeOf(m.Program)))
	x.logs = append(x.logs, fmt.Sprintf("Program %s invoke [2]", solana.SystemProgramID))
	if have := x.lamports[payer.PublicKey]; have < rent {
		x.logs = append(x.logs, fmt.Sprintf("Transfer: insufficient lamports %d, need %d", have, rent),
			fmt.Sprintf("Program %s failed: custom program error: 0x%x", solana.SystemProgramID, systemResultWithNegativeLamports))
		return customError(systemResultWithNegativeLamports)
	}
	x.lamports[payer.PublicKey] -= rent
	x.logs = append(x.logs, fmt.Sprintf("Program %s success", solana.SystemProgramID))
	x.tokens[ata.PublicKey] = TokenAccount{Mint: mint.PublicKey, Owner: wallet.PublicKey}
	return nil
}
