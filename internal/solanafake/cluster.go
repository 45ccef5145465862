package solanafake

import (
	"crypto/rand"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
)

// Cluster is an in-memory Solana cluster: a ledger of SOL balances, mints and token
// accounts, a runtime that executes transactions against it, and a JSON-RPC node serving
// both (ServeHTTP). It is safe for concurrent use.
type Cluster struct {
	clock func() time.Time
	stage StageRule

	mu       sync.Mutex
	seed     [32]byte
	start    time.Time
	produced uint64
	// hashes holds the height of every blockhash the cluster gave out.
	hashes   map[solana.Hash]uint64
	mints    map[solana.PublicKey]Mint
	tokens   map[solana.PublicKey]TokenAccount
	lamports map[solana.PublicKey]uint64
	// processed is the status cache: the hashes of the messages that landed.
	processed map[[sha256.Size]byte]bool
	landed    map[solana.Signature]*landedTx
	history   []*landedTx
	transfers []Transfer
	memos     []Memo
	received  []Received
	calls     map[string]int
	faults    []*pendingFault
}

// Config configures a Cluster.
type Config struct {
	// Clock is the cluster's time: a block is produced per BlockInterval of it, and it
	// stamps the blocks transactions land in. Nil means time.Now. The cluster calls it while
	// it holds its lock, so the clock must not call the cluster.
	Clock func() time.Time
	// Stage decides how far a landed transaction is confirmed; nil means ByAge.
	Stage StageRule
}

// New returns a cluster at its first block at the clock's present time, without mints,
// accounts or transactions.
func New(cfg Config) *Cluster {
	c := &Cluster{
		clock:     cfg.Clock,
		stage:     cfg.Stage,
		hashes:    map[solana.Hash]uint64{},
		mints:     map[solana.PublicKey]Mint{},
		tokens:    map[solana.PublicKey]TokenAccount{},
		lamports:  map[solana.PublicKey]uint64{},
		processed: map[[sha256.Size]byte]bool{},
		landed:    map[solana.Signature]*landedTx{},
		calls:     map[string]int{},
	}
	if c.clock == nil {
		c.clock = time.Now
	}
	if c.stage == nil {
		c.stage = ByAge
	}
	c.start = c.clock()
	_, _ = rand.Read(c.seed[:]) // crypto/rand.Read never fails since Go 1.24
	return c
}
