package solanafake

import (
	"crypto/sha256"
	"encoding/binary"
	"time"

	"github.com/gagliardetto/solana-go"
)

// The cluster's clockwork.
const (
	// BlockInterval is how long the cluster takes to produce a block on its clock.
	BlockInterval = 400 * time.Millisecond
	// BlockhashWindow is how many blocks a blockhash stays usable for: a transaction may
	// land up to the block height lastValidBlockHeight, the blockhash's height plus this.
	BlockhashWindow = 150
	// FinalityDepth is how many blocks the finalized commitment trails the confirmed one.
	FinalityDepth = 32
	// baseHeight and baseSlot are the block height and slot of a new cluster.
	baseHeight = 330_000_000
	baseSlot   = 352_000_000
	// statusCacheBlocks is how many blocks back getSignatureStatuses looks without
	// searchTransactionHistory.
	statusCacheBlocks = 300
)

// commitment is how settled the state a node answers from must be.
type commitment string

// The commitments.
const (
	// commitmentProcessed answers from the newest block.
	commitmentProcessed commitment = "processed"
	// commitmentConfirmed answers from the newest block a supermajority voted on; the fake
	// confirms every block as it is produced.
	commitmentConfirmed commitment = "confirmed"
	// commitmentFinalized answers from the block FinalityDepth blocks behind, the default of
	// every method.
	commitmentFinalized commitment = "finalized"
)

// lag returns how many blocks the commitment trails the newest block.
func (cm commitment) lag() uint64 {
	if cm == commitmentFinalized {
		return FinalityDepth
	}
	return 0
}

// blocks returns how many blocks the cluster has produced by now: one per BlockInterval
// since it started, and one per blockhash it gave out.
func (c *Cluster) blocks(now time.Time) uint64 {
	return uint64(max(now.Sub(c.start), 0)/BlockInterval) + c.produced
}

// height returns the block height at the commitment.
func (c *Cluster) height(now time.Time, cm commitment) uint64 {
	return baseHeight + c.blocks(now) - cm.lag()
}

// slot returns the slot at the commitment.
func (c *Cluster) slot(now time.Time, cm commitment) uint64 {
	return baseSlot + c.blocks(now) - cm.lag()
}

// blockhashAt returns the blockhash of the block at height.
func (c *Cluster) blockhashAt(height uint64) solana.Hash {
	var buf [40]byte
	copy(buf[:], c.seed[:])
	binary.LittleEndian.PutUint64(buf[32:], height)
	return solana.Hash(sha256.Sum256(buf[:]))
}

// issueBlockhash returns the blockhash of the block at height, now usable, and the last
// block height at which a transaction using it may land.
func (c *Cluster) issueBlockhash(height uint64) (solana.Hash, uint64) {
	hash := c.blockhashAt(height)
	c.hashes[hash] = height
	return hash, height + BlockhashWindow
}

// latestBlockhash produces a block, so that every call gives a fresh blockhash even on a
// clock that stands still, and returns the blockhash at the commitment.
func (c *Cluster) latestBlockhash(now time.Time, cm commitment) (solana.Hash, uint64) {
	c.produced++
	return c.issueBlockhash(c.height(now, cm))
}

// blockhashValid says whether hash was given out and has not expired.
func (c *Cluster) blockhashValid(hash solana.Hash, now time.Time) bool {
	h, ok := c.hashes[hash]
	return ok && c.height(now, commitmentProcessed) <= h+BlockhashWindow
}

// LatestBlockhash produces a block and returns its blockhash and the last block height at
// which a transaction using it may land, as getLatestBlockhash answers at commitment
// confirmed.
func (c *Cluster) LatestBlockhash() (solana.Hash, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.latestBlockhash(c.clock(), commitmentConfirmed)
}

// BlockHeight returns the block height at commitment confirmed.
func (c *Cluster) BlockHeight() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.height(c.clock(), commitmentConfirmed)
}
