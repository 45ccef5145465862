package hostingtest

import (
	"encoding/binary"
	"hash/fnv"
	"net/http"
)

// writeFailure decides whether the attempt-th write (counting from 1) of path in repository
// repo fails under a failure share and seed, and with which status. The draw hashes the
// seed, the repository, the path and the attempt number, so it does not depend on the order
// in which concurrent writes arrive, and a write sent again gets a fresh draw.
func writeFailure(share float64, seed uint64, repo, path string, attempt int) (status int, fails bool) {
	if share <= 0 {
		return 0, false
	}
	h := fnv.New64a()
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], seed)
	_, _ = h.Write(buf[:])
	_, _ = h.Write([]byte(repo))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write([]byte(path))
	_, _ = h.Write([]byte{0})
	binary.LittleEndian.PutUint64(buf[:], uint64(attempt))
	_, _ = h.Write(buf[:])
	x := mix64(h.Sum64())
	if float64(x>>11)/(1<<53) >= share {
		return 0, false
	}
	if mix64(x)&1 == 0 {
		return http.StatusInternalServerError, true
	}
	return http.StatusServiceUnavailable, true
}

// mix64 is the SplitMix64 finalizer: it spreads the bits of a hash evenly.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
