package x402

import (
	"net/http"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
)

// DigestFor exposes the EIP-712 digest of an authorization under an entry's domain to the
// external tests and benchmarks.
var DigestFor = digestFor

// DomainSeparator exposes the EIP-712 domain separator computation.
func DomainSeparator(name, version string, chainID uint64, contract string) common.Hash {
	return domainSeparator(name, version, chainID, common.HexToAddress(contract))
}

// PayOffline runs the client's side of one paid request without a server, as RoundTrip does
// it: read the challenge of the 402 answer, choose and check an entry, reserve the amount,
// sign, encode the payment into a copy of req, read the receipt and commit. It returns the
// paid request.
func (p *Payer) PayOffline(req *http.Request, challenge *http.Response, receipt string) (*http.Request, error) {
	pr, err := ParsePaymentRequired(challenge)
	if err != nil {
		return nil, err
	}
	pay, err := p.prepare(req.Context(), req, pr, false)
	if err != nil {
		return nil, err
	}
	var writes atomic.Int32
	paid, err := paidRequest(req, pay, &writes)
	if err != nil {
		pay.hold.discard(req.Context())
		return nil, err
	}
	if _, err := ParseSettleResponse(receipt); err != nil {
		_ = pay.hold.InDoubt(req.Context())
		return nil, err
	}
	return paid, pay.hold.Commit(req.Context())
}
