package evm

import (
	"encoding/binary"
	"errors"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentapis/sdk/x402/wire"
)

// Type hashes of EIP-712, computed once.
var (
	// domainTypeHash is keccak256 of the EIP-712 domain type with all four fields.
	domainTypeHash = crypto.Keccak256Hash([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"))
	// transferTypeHash is keccak256 of EIP-3009's TransferWithAuthorization type.
	transferTypeHash = crypto.Keccak256Hash([]byte("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"))
)

// domainSeparator computes the EIP-712 domain separator of a token:
// hashStruct(EIP712Domain{name, version, chainId, verifyingContract}).
func domainSeparator(name, version string, chainID uint64, contract common.Address) common.Hash {
	var buf [5 * 32]byte
	copy(buf[0:32], domainTypeHash[:])
	copy(buf[32:64], crypto.Keccak256([]byte(name)))
	copy(buf[64:96], crypto.Keccak256([]byte(version)))
	binary.BigEndian.PutUint64(buf[120:128], chainID)
	copy(buf[128+12:160], contract[:])
	return crypto.Keccak256Hash(buf[:])
}

// domainKey identifies an entry's EIP-712 domain by the strings it is made of, so a cached
// separator is found without parsing anything.
type domainKey struct {
	name, version, network, asset string
}

// maxCachedDomains bounds the domain separator cache; a server choosing a new token name for
// every request cannot grow it without limit.
const maxCachedDomains = 256

// separators caches domain separators.
var separators = struct {
	sync.RWMutex
	m map[domainKey]common.Hash
}{m: make(map[domainKey]common.Hash)}

// separatorFor returns the EIP-712 domain separator of an accepts entry: extra.name and
// extra.version, the chain id of the network and the asset as verifying contract. Separators
// are cached.
func separatorFor(r *wire.PaymentRequirements) (common.Hash, error) {
	name, version, ok := TokenDomain(r)
	if !ok {
		return common.Hash{}, errors.New("extra.name and extra.version are required")
	}
	key := domainKey{name: name, version: version, network: r.Network, asset: r.Asset}
	separators.RLock()
	h, ok := separators.m[key]
	separators.RUnlock()
	if ok {
		return h, nil
	}
	id, err := ChainID(r.Network)
	if err != nil {
		return common.Hash{}, errors.New("network " + err.Error())
	}
	asset, err := parseAddress(r.Asset)
	if err != nil {
		return common.Hash{}, errors.New("asset " + err.Error())
	}
	h = domainSeparator(name, version, id, asset)
	separators.Lock()
	if len(separators.m) >= maxCachedDomains {
		clear(separators.m)
	}
	separators.m[key] = h
	separators.Unlock()
	return h, nil
}

// hasher is a Keccak-256 state with scratch space, pooled so that a digest allocates nothing.
type hasher struct {
	state  crypto.KeccakState
	buf    [7 * 32]byte
	digest [2 + 32 + 32]byte
	out    common.Hash
}

// hashers pools hasher values.
var hashers = sync.Pool{New: func() any { return &hasher{state: crypto.NewKeccakState()} }}

// sum returns keccak256(b).
func (h *hasher) sum(b []byte) common.Hash {
	h.state.Reset()
	_, _ = h.state.Write(b)
	_, _ = h.state.Read(h.out[:])
	return h.out
}

// errAuthorizationRange is returned for an authorization whose numbers are not uint256 values.
var errAuthorizationRange = errors.New("authorization value, validAfter and validBefore must be uint256 values")

// authorizationDigest returns the EIP-712 digest of a TransferWithAuthorization under the
// domain separator sep: keccak256(0x19 0x01 ‖ sep ‖ structHash).
func authorizationDigest(sep common.Hash, a *Authorization) ([32]byte, error) {
	from, err := parseAddress(a.From)
	if err != nil {
		return [32]byte{}, errors.New("authorization.from " + err.Error())
	}
	to, err := parseAddress(a.To)
	if err != nil {
		return [32]byte{}, errors.New("authorization.to " + err.Error())
	}
	if !wire.FitsUint256(a.Value) || !wire.FitsUint256(a.ValidAfter) || !wire.FitsUint256(a.ValidBefore) {
		return [32]byte{}, errAuthorizationRange
	}
	h := hashers.Get().(*hasher)
	defer hashers.Put(h)
	buf := &h.buf
	copy(buf[0:32], transferTypeHash[:])
	clear(buf[32 : 32+12])
	copy(buf[32+12:64], from[:])
	clear(buf[64 : 64+12])
	copy(buf[64+12:96], to[:])
	a.Value.FillBytes(buf[96:128])
	a.ValidAfter.FillBytes(buf[128:160])
	a.ValidBefore.FillBytes(buf[160:192])
	copy(buf[192:224], a.Nonce[:])
	structHash := h.sum(buf[:])

	h.digest[0], h.digest[1] = 0x19, 0x01
	copy(h.digest[2:34], sep[:])
	copy(h.digest[34:66], structHash[:])
	return h.sum(h.digest[:]), nil
}

// digestFor returns the EIP-712 digest of a under the domain of entry r.
func digestFor(r *wire.PaymentRequirements, a *Authorization) ([32]byte, error) {
	sep, err := separatorFor(r)
	if err != nil {
		return [32]byte{}, err
	}
	return authorizationDigest(sep, a)
}

// TokenDomain returns the token's EIP-712 domain name and version from an offer's extra, and
// whether both are present and non-empty: without them a signature cannot be checked by the
// token contract.
func TokenDomain(r *wire.PaymentRequirements) (name, version string, ok bool) {
	name, version = r.ExtraString("name"), r.ExtraString("version")
	return name, version, name != "" && version != ""
}
