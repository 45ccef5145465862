package solanafake

import (
	"encoding/binary"
	"math/big"

	"github.com/gagliardetto/solana-go"
)

// The SPL Token instructions and custom errors the fake knows; Token-2022 shares them.
const (
	transferCheckedInstruction = 12
	tokenInsufficientFunds     = 1
	tokenInvalidMint           = 2
	tokenMintMismatch          = 3
	tokenOwnerMismatch         = 4
	tokenOverflow              = 14
	tokenMintDecimalsMismatch  = 18
)

// token runs an instruction of a token program (SPL Token or Token-2022): TransferChecked
// only, data 12, the amount (u64 LE) and the decimals, accounts [source (writable), mint,
// destination (writable), authority (signer)]. Its checks come in the program's order; an
// account of the other token program fails with IncorrectProgramId.
func (x *execution) token(program solana.PublicKey, accounts solana.AccountMetaSlice, data []byte) *programError {
	if len(data) < 10 || data[0] != transferCheckedInstruction {
		return failWith("InvalidInstructionData")
	}
	if len(accounts) < 4 {
		return failWith("NotEnoughAccountKeys")
	}
	amount, decimals := binary.LittleEndian.Uint64(data[1:9]), data[9]
	x.logs = append(x.logs, "Program log: Instruction: TransferChecked")
	srcMeta, mintMeta, dstMeta, authority := accounts[0], accounts[1], accounts[2], accounts[3]
	src, okSrc := x.tokens[srcMeta.PublicKey]
	dst, okDst := x.tokens[dstMeta.PublicKey]
	switch {
	case !okSrc || !okDst:
		return failWith("InvalidAccountData")
	case x.c.programOf(src.Mint) != program || x.c.programOf(dst.Mint) != program:
		return failWith("IncorrectProgramId")
	case src.Amount < amount:
		x.logs = append(x.logs, "Program log: Error: insufficient funds")
		return customError(tokenInsufficientFunds)
	case src.Mint != dst.Mint || mintMeta.PublicKey != src.Mint:
		return customError(tokenMintMismatch)
	}
	mint, ok := x.c.mints[mintMeta.PublicKey]
	switch {
	case !ok:
		return failWith("InvalidAccountData")
	case decimals != mint.Decimals:
		return customError(tokenMintDecimalsMismatch)
	case src.Owner != authority.PublicKey:
		return customError(tokenOwnerMismatch)
	case !authority.IsSigner:
		return failWith("MissingRequiredSignature")
	case !srcMeta.IsWritable || !dstMeta.IsWritable:
		return failWith("ReadonlyDataModified")
	}
	src.Amount -= amount
	x.tokens[srcMeta.PublicKey] = src
	dst = x.tokens[dstMeta.PublicKey] // the source itself when both are one account
	if dst.Amount+amount < dst.Amount {
		return customError(tokenOverflow)
	}
	dst.Amount += amount
	x.tokens[dstMeta.PublicKey] = dst
	x.transfers = append(x.transfers, Transfer{
		Signature: x.signature,
		From:      srcMeta.PublicKey,
		To:        dstMeta.PublicKey,
		Owner:     authority.PublicKey,
		Mint:      mintMeta.PublicKey,
		Amount:    new(big.Int).SetUint64(amount),
	})
	return nil
}
