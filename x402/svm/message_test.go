package svm

import (
	"math/rand/v2"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/require"
)

// rawInstruction is an instruction of any program with any accounts.
type rawInstruction struct {
	program  solana.PublicKey
	accounts []*solana.AccountMeta
	data     []byte
}

func (r rawInstruction) ProgramID() solana.PublicKey     { return r.program }
func (r rawInstruction) Accounts() []*solana.AccountMeta { return r.accounts }
func (r rawInstruction) Data() ([]byte, error)           { return r.data, nil }

// requireCompiledAsSolanaGo checks that compile lays out the instructions made exactly as
// solana.NewTransaction does: the same message, byte for byte. Each is given instructions
// of its own: solana.NewTransaction changes the account metas it is given.
func requireCompiledAsSolanaGo(t *testing.T, feePayer solana.PublicKey, build func() []solana.Instruction) {
	t.Helper()
	blockhash := solana.Hash{7, 7, 7}
	want, err := solana.NewTransaction(build(), blockhash, solana.TransactionPayer(feePayer))
	require.NoError(t, err)
	got, err := compile(feePayer, build(), blockhash)
	require.NoError(t, err)
	for _, v := range []solana.MessageVersion{solana.MessageVersionLegacy, solana.MessageVersionV0} {
		want.Message.SetVersion(v)
		got.Message.SetVersion(v)
		wantBytes, err := want.Message.MarshalBinary()
		require.NoError(t, err)
		gotBytes, err := got.Message.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, wantBytes, gotBytes, "version %d", v)
	}
}

func TestCompileLaysOutPaymentsAsSolanaGo(t *testing.T) {
	owner, payTo, feePayer := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	mint := solana.NewWallet().PublicKey()
	for _, program := range []solana.PublicKey{solana.TokenProgramID, solana.Token2022ProgramID} {
		source, err := AssociatedTokenAccount(owner, mint, program)
		require.NoError(t, err)
		destination, err := AssociatedTokenAccount(payTo, mint, program)
		require.NoError(t, err)
		transfer := func(to solana.PublicKey) solana.Instruction {
			ix, err := TransferChecked(program, 10_000, 6, source, mint, to, owner)
			require.NoError(t, err)
			return ix
		}
		for name, build := range map[string]func() []solana.Instruction{
			"x402 exact": func() []solana.Instruction {
				return []solana.Instruction{ComputeUnitLimit(20_000), ComputeUnitPrice(1), transfer(destination), Memo([]byte("a memo"))}
			},
			"x402 exact to the payer": func() []solana.Instruction {
				return []solana.Instruction{ComputeUnitLimit(20_000), ComputeUnitPrice(1), transfer(source), Memo([]byte("a memo"))}
			},
			"fee payer among accounts": func() []solana.Instruction {
				return []solana.Instruction{transfer(destination), Memo([]byte("m"), feePayer)}
			},
			"key purchase": func() []solana.Instruction {
				return []solana.Instruction{CreateAssociatedTokenAccount(owner, destination, payTo, mint, program),
					transfer(destination), Memo([]byte("API-PRO"), owner)}
			},
		} {
			t.Run(program.String()[:5]+" "+name, func(t *testing.T) {
				requireCompiledAsSolanaGo(t, feePayer, build)
				requireCompiledAsSolanaGo(t, owner, build)
			})
		}
	}
}

func TestCompileLaysOutAnyInstructionsAsSolanaGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pool := make([]solana.PublicKey, 10)
	for i := range pool {
		pool[i] = solana.NewWallet().PublicKey()
	}
	for range 500 {
		spec := make([]rawInstruction, 1+rng.IntN(5))
		for i := range spec {
			spec[i] = rawInstruction{program: pool[rng.IntN(len(pool))], data: []byte{byte(i)}}
			for range rng.IntN(6) {
				spec[i].accounts = append(spec[i].accounts, &solana.AccountMeta{
					PublicKey: pool[rng.IntN(len(pool))], IsSigner: rng.IntN(3) == 0, IsWritable: rng.IntN(2) == 0})
			}
		}
		fresh := func() []solana.Instruction {
			ixs := make([]solana.Instruction, len(spec))
			for i, r := range spec {
				c := rawInstruction{program: r.program, data: r.data}
				for _, m := range r.accounts {
					copied := *m
					c.accounts = append(c.accounts, &copied)
				}
				ixs[i] = c
			}
			return ixs
		}
		requireCompiledAsSolanaGo(t, pool[rng.IntN(len(pool))], fresh)
	}
}
