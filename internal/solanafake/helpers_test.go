package solanafake_test

import (
	"encoding/base64"
	"encoding/binary"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/solanafake"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
)

// t0 is the time the tests' clocks start at.
var t0 = time.Date(2026, 3, 14, 15, 30, 0, 0, time.UTC)

// The tests' mints: USDC on SPL Token, a Token-2022 dollar and a 9-decimal SPL Token.
var (
	usdc    = solana.MustPublicKeyFromBase58("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")
	dollar  = solana.MustPublicKeyFromBase58("2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo")
	nineDec = solana.MustPublicKeyFromBase58("So11111111111111111111111111111111111111112")
)

// fixture is a cluster on a test clock, its node served over HTTP, and a solana-go client of
// the node.
type fixture struct {
	clock   *sdktest.Clock
	cluster *solanafake.Cluster
	node    *rpc.Client
	url     string
}

// newFixture starts a cluster at t0 with the three mints, configured by cfg (its Clock is
// replaced by the fixture's).
func newFixture(t testing.TB, cfg solanafake.Config) *fixture {
	t.Helper()
	clock := sdktest.NewClock(t0)
	cfg.Clock = clock.Now
	c := solanafake.New(cfg)
	c.AddMint(solanafake.Mint{Address: usdc, Program: solana.TokenProgramID, Decimals: 6})
	c.AddMint(solanafake.Mint{Address: dollar, Program: solana.Token2022ProgramID, Decimals: 6})
	c.AddMint(solanafake.Mint{Address: nineDec, Program: solana.TokenProgramID, Decimals: 9})
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	return &fixture{clock: clock, cluster: c, node: rpc.New(srv.URL), url: srv.URL}
}

// start is newFixture with the default configuration.
func start(t testing.TB) *fixture {
	t.Helper()
	return newFixture(t, solanafake.Config{})
}

// wallet returns a fresh key pair whose wallet holds lamports of SOL on f's cluster.
func (f *fixture) wallet(lamports uint64) solana.PrivateKey {
	key := solana.NewWallet().PrivateKey
	if lamports > 0 {
		f.cluster.FundSOL(key.PublicKey(), lamports)
	}
	return key
}

// programOf returns the token program of a test mint.
func programOf(mint solana.PublicKey) solana.PublicKey {
	if mint == dollar {
		return solana.Token2022ProgramID
	}
	return solana.TokenProgramID
}

// ata returns wallet's associated token account for a test mint, under the mint's program.
func ata(wallet, mint solana.PublicKey) solana.PublicKey {
	return solanafake.AssociatedTokenAddress(wallet, programOf(mint), mint)
}

// transferChecked is a TransferChecked of the program from source to destination, signed by
// authority.
func transferChecked(program, source, mint, destination, authority solana.PublicKey, amount uint64, decimals uint8) solana.Instruction {
	data := make([]byte, 10)
	data[0] = 12
	binary.LittleEndian.PutUint64(data[1:9], amount)
	data[9] = decimals
	return solana.NewInstruction(program, solana.AccountMetaSlice{
		solana.Meta(source).WRITE(), solana.Meta(mint), solana.Meta(destination).WRITE(), solana.Meta(authority).SIGNER(),
	}, data)
}

// pay is a TransferChecked of amount of a test mint, 6 decimals unless the mint has 9, from
// owner's associated account to wallet to's, by the mint's program.
func pay(owner, to, mint solana.PublicKey, amount uint64) solana.Instruction {
	decimals := uint8(6)
	if mint == nineDec {
		decimals = 9
	}
	return transferChecked(programOf(mint), ata(owner, mint), mint, ata(to, mint), owner, amount, decimals)
}

// memo is a Memo instruction carrying text exactly, naming signers.
func memo(text string, signers ...solana.PublicKey) solana.Instruction {
	metas := solana.AccountMetaSlice{}
	for _, s := range signers {
		metas = append(metas, solana.Meta(s).SIGNER())
	}
	return solana.NewInstruction(solana.MemoProgramID, metas, []byte(text))
}

// computeUnitLimit is SetComputeUnitLimit.
func computeUnitLimit(units uint32) solana.Instruction {
	data := binary.LittleEndian.AppendUint32([]byte{2}, units)
	return solana.NewInstruction(solana.ComputeBudget, solana.AccountMetaSlice{}, data)
}

// computeUnitPrice is SetComputeUnitPrice, in micro-lamports.
func computeUnitPrice(microLamports uint64) solana.Instruction {
	data := binary.LittleEndian.AppendUint64([]byte{3}, microLamports)
	return solana.NewInstruction(solana.ComputeBudget, solana.AccountMetaSlice{}, data)
}

// createATA is the associated token account program's Create (or CreateIdempotent) of
// wallet's account for mint under program, paid by payer.
func createATA(payer, wallet, mint, program solana.PublicKey, idempotent bool) solana.Instruction {
	var data []byte
	if idempotent {
		data = []byte{1}
	}
	return solana.NewInstruction(solana.SPLAssociatedTokenAccountProgramID, solana.AccountMetaSlice{
		solana.Meta(payer).WRITE().SIGNER(),
		solana.Meta(solanafake.AssociatedTokenAddress(wallet, program, mint)).WRITE(),
		solana.Meta(wallet),
		solana.Meta(mint),
		solana.Meta(solana.SystemProgramID),
		solana.Meta(program),
	}, data)
}

// build returns a legacy transaction of ixs on a fresh blockhash, paid by feePayer and
// signed by those of signers it names (a signer it names that is missing keeps a zero
// signature).
func (f *fixture) build(t testing.TB, feePayer solana.PublicKey, signers []solana.PrivateKey, ixs ...solana.Instruction) *solana.Transaction {
	t.Helper()
	return f.buildVersion(t, solana.MessageVersionLegacy, feePayer, signers, ixs...)
}

// buildV0 is build with a v0 message.
func (f *fixture) buildV0(t testing.TB, feePayer solana.PublicKey, signers []solana.PrivateKey, ixs ...solana.Instruction) *solana.Transaction {
	t.Helper()
	return f.buildVersion(t, solana.MessageVersionV0, feePayer, signers, ixs...)
}

// buildVersion is build with a message of the version.
func (f *fixture) buildVersion(t testing.TB, version solana.MessageVersion, feePayer solana.PublicKey, signers []solana.PrivateKey, ixs ...solana.Instruction) *solana.Transaction {
	t.Helper()
	hash, _ := f.cluster.LatestBlockhash()
	tx, err := solana.NewTransaction(ixs, hash, solana.TransactionPayer(feePayer))
	require.NoError(t, err)
	tx.Message.SetVersion(version)
	sign(t, tx, signers...)
	return tx
}

// sign signs tx with those of keys it names.
func sign(t testing.TB, tx *solana.Transaction, keys ...solana.PrivateKey) {
	t.Helper()
	_, err := tx.PartialSign(func(k solana.PublicKey) *solana.PrivateKey {
		for i := range keys {
			if keys[i].PublicKey() == k {
				return &keys[i]
			}
		}
		return nil
	})
	require.NoError(t, err)
}

// submit submits tx with preflight, requires it to land and returns its signature.
func (f *fixture) submit(t testing.TB, tx *solana.Transaction) solana.Signature {
	t.Helper()
	sig, err := f.cluster.Submit(tx, solanafake.SendOptions{})
	require.NoError(t, err)
	return sig
}

// refusal submits tx with preflight and returns the node's error.
func (f *fixture) refusal(t testing.TB, tx *solana.Transaction) *solanafake.Error {
	t.Helper()
	_, err := f.cluster.Submit(tx, solanafake.SendOptions{})
	return errAs(t, err)
}

// rpcError returns err as the solana-go client's JSON-RPC error.
func rpcError(t testing.TB, err error) *jsonrpc.RPCError {
	t.Helper()
	return testkit.As[*jsonrpc.RPCError](t, err)
}

// errJSON returns the transaction error of a node's error as JSON text.
func errJSON(t testing.TB, e *solanafake.Error) string {
	t.Helper()
	require.NotNil(t, e.Err, "a transaction error in %v", e)
	return string(e.Err.Value)
}

// encode returns b in standard base64.
func encode(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// errAs returns err as the node's error.
func errAs(t testing.TB, err error) *solanafake.Error {
	t.Helper()
	return testkit.As[*solanafake.Error](t, err)
}
