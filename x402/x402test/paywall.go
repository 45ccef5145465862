package x402test

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/agentapis/sdk/internal/addr"
	"github.com/agentapis/sdk/internal/fakeserver"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/svm"
	"github.com/agentapis/sdk/x402/wire"
)

// PaywallConfig describes what a paywall charges and how.
type PaywallConfig struct {
	// PayTo is the recipient address (required): an EVM address, or a Solana wallet for a
	// Solana network, whose USDC account the paywall opens on the facilitator's ledger.
	PayTo string
	// Network is the network to be paid on: CAIP-2 in v2 (default evm.NetworkBase; Solana is
	// svm.NetworkMainnet), a v1 name in v1 (default "base").
	Network string
	// Asset is the token: a contract, a mint (default: the USDC of Network).
	Asset string
	// Memo is the seller's memo of a Solana offer (its extra.memo), which the payment's
	// transaction must carry exactly.
	Memo string
	// Offers, when set, are the ways the paywall lets a client pay, in its order of
	// preference, instead of the one PayTo, Network, Asset, Name, Version and Memo describe:
	// for a server that takes payments on EVM and on Solana. Each is priced as every request
	// is (Amount or Price); its zero fields take the same defaults.
	Offers []Offer
	// Amount is the price of every request, in atomic units.
	Amount *big.Int
	// Price, when set, prices each request instead of Amount, so a store can charge per path;
	// a nil price lets the request through free.
	Price func(*http.Request) *big.Int
	// Name and Version are the token's EIP-712 domain sent in extra (default "USD Coin" and
	// "2", the domain of USDC on Base mainnet).
	Name, Version string
	// MaxTimeoutSeconds is the validity the server asks for (default 60).
	MaxTimeoutSeconds int
	// Description and MimeType describe the resource in the challenge.
	Description, MimeType string
	// ProtocolVersion is the x402 version spoken: 2 (default) sends the challenge in
	// PAYMENT-REQUIRED and reads PAYMENT-SIGNATURE; 1 sends it as the JSON body and reads
	// X-PAYMENT.
	ProtocolVersion int
	// Fault, when set, decides for each request carrying a payment whether the paywall fails
	// around settling it, to test clients against what networks and servers do.
	Fault func(r *http.Request) SettlementFault
	// Settled, when set, is called once the payment of r settled, with the encoded receipt,
	// before any Fault: a store books the sale there, whether or not the client hears of it.
	Settled func(r *http.Request, receipt string)
}

// Offer is one of the ways a paywall lets a client pay (PaywallConfig.Offers).
type Offer struct {
	// PayTo, Network, Asset, Name, Version and Memo are as in PaywallConfig.
	PayTo, Network, Asset, Name, Version, Memo string
}

// SettlementFault is a failure of the paywall around the settlement of a paid request.
type SettlementFault int

// The faults a PaywallConfig.Fault can ask for.
const (
	// NoFault answers the paid request normally.
	NoFault SettlementFault = iota
	// FaultErrorBeforeSettle answers 503 without verifying or settling: no money moves.
	FaultErrorBeforeSettle
	// FaultErrorAfterSettle settles the payment, then answers 500 without a receipt.
	FaultErrorAfterSettle
	// FaultDropAfterSettle settles the payment, then closes the connection without an
	// answer.
	FaultDropAfterSettle
	// FaultChallengeAfterSettle settles the payment, then answers 402 with a fresh challenge
	// and no receipt, as if it had refused it.
	FaultChallengeAfterSettle
	// FaultStallAfterSettle settles the payment, then holds the request until the client
	// gives up, the request's context ends (Server.Close ends it) or MaxStall passes, and
	// closes the connection without an answer.
	FaultStallAfterSettle
)

// MaxStall bounds FaultStallAfterSettle, so that a paywall served by a server whose Close
// does not end its requests' contexts still lets Close return.
const MaxStall = 30 * time.Second

// Challenge reasons the paywall sends in the error field of its 402, besides the
// facilitator's codes.
const (
	// ReasonPaymentRequired is sent when the request carries no payment.
	ReasonPaymentRequired = "Payment required"
	// ReasonNoMatch is sent when the payment is for other requirements than the current ones
	// (for example, after the price changed).
	ReasonNoMatch = "No matching payment requirements"
	// ReasonInvalidPayload is sent when the payment header cannot be decoded.
	ReasonInvalidPayload = "invalid_payload"
	// ReasonInvalidVersion is sent when the payment's x402Version is not the paywall's.
	ReasonInvalidVersion = "invalid_x402_version"
)

// paywall is the http.Handler returned by NewPaywall.
type paywall struct {
	f      *Facilitator
	cfg    PaywallConfig
	offers []Offer // normalised: every field set that its chain family uses
	next   http.Handler
	header string // payment header read
	resp   string // receipt header written
}

// NewPaywall returns a handler that charges for every request to next through f, as a
// reference x402 resource server does: an unpaid request gets a 402 challenge; a paid one is
// verified with f, served by next into a buffer, and settled with f when next answered below
// 400, with the receipt in PAYMENT-RESPONSE. A refused payment gets a new 402 whose error field
// holds the reason (and, when settling failed, a receipt with Success false).
//
// It panics when cfg is unusable (no PayTo, no price, an unknown network without Asset), as
// a test helper should.
func NewPaywall(f *Facilitator, cfg PaywallConfig, next http.Handler) http.Handler {
	if f == nil || next == nil {
		panic("x402test: NewPaywall needs a facilitator and a next handler")
	}
	if cfg.Amount == nil && cfg.Price == nil {
		panic("x402test: PaywallConfig needs Amount or Price")
	}
	pw := &paywall{f: f, next: next, header: wire.HeaderPaymentSignature, resp: wire.HeaderPaymentResponse}
	switch cfg.ProtocolVersion {
	case 0, 2:
		cfg.ProtocolVersion = 2
	case 1:
		pw.header, pw.resp = wire.HeaderPaymentV1, wire.HeaderPaymentResponseV1
	default:
		panic("x402test: PaywallConfig.ProtocolVersion must be 1 or 2")
	}
	if cfg.MaxTimeoutSeconds == 0 {
		cfg.MaxTimeoutSeconds = 60
	}
	offers := cfg.Offers
	if len(offers) == 0 {
		offers = []Offer{{PayTo: cfg.PayTo, Network: cfg.Network, Asset: cfg.Asset, Name: cfg.Name, Version: cfg.Version, Memo: cfg.Memo}}
	}
	for _, o := range offers {
		pw.offers = append(pw.offers, pw.normalise(o, cfg.ProtocolVersion))
	}
	pw.cfg = cfg
	return pw
}

// normalise fills in the defaults of offer o and checks it, opening the payee's token account
// on the facilitator's Solana ledger for a Solana offer.
func (pw *paywall) normalise(o Offer, version int) Offer {
	if o.Network == "" {
		o.Network = evm.NetworkBase
		if version == 1 {
			o.Network = "base"
		}
	}
	switch wire.Namespace(o.Network) {
	case "solana":
		if !isSolana(o.PayTo) {
			panic("x402test: the PayTo of a Solana offer must be a base58 Solana address")
		}
		if o.Asset == "" {
			usdc, ok := svm.KnownUSDC(o.Network)
			if !ok {
				panic(fmt.Sprintf("x402test: no known USDC on %s: set the Asset", o.Network))
			}
			o.Asset = usdc
		}
		pw.f.FundToken(o.Asset, o.PayTo, 0)
	default:
		if _, err := hex.DecodeString(strings.TrimPrefix(o.PayTo, "0x")); err != nil || len(o.PayTo) != 42 {
			panic("x402test: the PayTo of an EVM offer must be a 0x-prefixed hex address")
		}
		if o.Asset == "" {
			usdc, ok := evm.KnownUSDC(o.Network)
			if !ok {
				panic(fmt.Sprintf("x402test: no known USDC on %s: set the Asset", o.Network))
			}
			o.Asset = usdc
		}
		o.Name, o.Version = cmp.Or(o.Name, "USD Coin"), cmp.Or(o.Version, "2")
	}
	return o
}

// ServeHTTP charges for the request, then serves it.
func (pw *paywall) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	price := pw.cfg.Amount
	if pw.cfg.Price != nil {
		price = pw.cfg.Price(r)
	}
	if price == nil {
		pw.next.ServeHTTP(w, r)
		return
	}
	reqs := pw.requirements(r, price)
	value := r.Header.Get(pw.header)
	if value == "" {
		pw.challenge(w, r, reqs, ReasonPaymentRequired)
		return
	}
	fault := NoFault
	if pw.cfg.Fault != nil {
		fault = pw.cfg.Fault(r)
	}
	if fault == FaultErrorBeforeSettle {
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	p, err := wire.DecodePaymentPayload(value)
	var req wire.PaymentRequirements
	switch {
	case err != nil:
		pw.challenge(w, r, reqs, ReasonInvalidPayload)
		return
	case p.X402Version != pw.cfg.ProtocolVersion:
		pw.challenge(w, r, reqs, ReasonInvalidVersion)
		return
	}
	if i := slices.IndexFunc(reqs, func(req wire.PaymentRequirements) bool { return matches(p, &req) }); i >= 0 {
		req = reqs[i]
	} else {
		pw.challenge(w, r, reqs, ReasonNoMatch)
		return
	}
	if _, err := pw.f.Verify(p, req); err != nil {
		pw.challenge(w, r, reqs, reasonOf(err))
		return
	}
	rec := &recorder{header: make(http.Header)}
	pw.next.ServeHTTP(rec, r)
	if rec.status >= 400 {
		rec.flush(w)
		return
	}
	receipt, err := pw.f.Settle(p, req)
	enc, encErr := wire.EncodeSettleResponse(receipt)
	if err == nil && pw.cfg.Settled != nil {
		pw.cfg.Settled(r, enc)
	}
	if err == nil && fault != NoFault {
		pw.fail(w, r, reqs, fault)
		return
	}
	if encErr == nil {
		w.Header().Set(pw.resp, enc)
	}
	if err != nil {
		pw.challenge(w, r, reqs, reasonOf(err))
		return
	}
	rec.flush(w)
}

// fail answers a paid request whose payment settled as fault says.
func (pw *paywall) fail(w http.ResponseWriter, r *http.Request, reqs []wire.PaymentRequirements, fault SettlementFault) {
	switch fault {
	case FaultErrorAfterSettle:
		http.Error(w, "internal error", http.StatusInternalServerError)
	case FaultDropAfterSettle:
		fakeserver.HangUp(w)
	case FaultChallengeAfterSettle:
		pw.challenge(w, r, reqs, ReasonPaymentRequired)
	case FaultStallAfterSettle:
		fakeserver.Wait(r.Context(), MaxStall)
		fakeserver.HangUp(w) // a stall never ends in an answer
	}
}

// requirements returns what the paywall asks for r at price: one entry per offer.
func (pw *paywall) requirements(r *http.Request, price *big.Int) []wire.PaymentRequirements {
	reqs := make([]wire.PaymentRequirements, len(pw.offers))
	for i, o := range pw.offers {
		req := wire.PaymentRequirements{
			Scheme:            evm.SchemeExact,
			Network:           o.Network,
			Amount:            price,
			Asset:             o.Asset,
			PayTo:             o.PayTo,
			MaxTimeoutSeconds: pw.cfg.MaxTimeoutSeconds,
		}
		if wire.Namespace(o.Network) == "solana" {
			req.Extra = map[string]any{"feePayer": pw.f.FeePayer()}
			if o.Memo != "" {
				req.Extra["memo"] = o.Memo
			}
		} else {
			req.Extra = map[string]any{"name": o.Name, "version": o.Version}
		}
		if pw.cfg.ProtocolVersion == 1 {
			req.Resource, req.Description, req.MimeType = resourceURL(r), pw.cfg.Description, pw.cfg.MimeType
		}
		reqs[i] = req
	}
	return reqs
}

// challenge answers 402 with the requirements and reason: in PAYMENT-REQUIRED for v2, as the
// JSON body for v1.
func (pw *paywall) challenge(w http.ResponseWriter, r *http.Request, reqs []wire.PaymentRequirements, reason string) {
	pr := &wire.PaymentRequired{X402Version: pw.cfg.ProtocolVersion, Error: reason, Accepts: reqs}
	w.Header().Set("Content-Type", "application/json")
	if pw.cfg.ProtocolVersion == 1 {
		body, err := json.Marshal(pr)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusPaymentRequired)
		_, _ = w.Write(body)
		return
	}
	pr.Resource = &wire.ResourceInfo{URL: resourceURL(r), Description: pw.cfg.Description, MimeType: pw.cfg.MimeType}
	enc, err := wire.EncodePaymentRequired(pr)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set(wire.HeaderPaymentRequired, enc)
	w.WriteHeader(http.StatusPaymentRequired)
	_, _ = w.Write([]byte("{}"))
}

// matches reports whether the payment is for req, comparing what the reference Go server
// compares: scheme and network, and in v2 also amount, asset and recipient (EVM addresses in
// any letter case, Solana ones exactly).
func matches(p *wire.PaymentPayload, req *wire.PaymentRequirements) bool {
	if p.X402Version == 1 {
		return p.Scheme == req.Scheme && p.Network == req.Network
	}
	a := &p.Accepted
	return a.Scheme == req.Scheme && a.Network == req.Network && a.Amount != nil &&
		a.Amount.Cmp(req.Amount) == 0 && addr.Same(a.Asset, req.Asset) && addr.Same(a.PayTo, req.PayTo)
}

// reasonOf returns the code of a verification or settlement failure.
func reasonOf(err error) string {
	var ve *wire.VerifyError
	if errors.As(err, &ve) {
		return ve.Reason
	}
	return "unexpected_verify_error"
}

// resourceURL returns the absolute URL of r without its query.
func resourceURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + r.URL.EscapedPath()
}

// recorder buffers a response until the payment is settled.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

// Header returns the buffered header.
func (rec *recorder) Header() http.Header { return rec.header }

// WriteHeader records the first status written.
func (rec *recorder) WriteHeader(code int) {
	if rec.status == 0 {
		rec.status = code
	}
}

// Write buffers the body.
func (rec *recorder) Write(b []byte) (int, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return rec.body.Write(b)
}

// flush writes the buffered response to w.
func (rec *recorder) flush(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range rec.header {
		h[k] = v
	}
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body.Bytes())
}
