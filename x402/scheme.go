package x402

import (
	"context"
	"encoding/json"
	"time"

	"github.com/agentapis/sdk/x402/wire"
)

// Scheme pays the x402 offers of one payment scheme on one family of chains: packages evm
// (EIP-3009 "exact" on EVM chains) and svm ("exact" on Solana) provide the SDK's, and any
// other can be plugged in by implementing this interface. A Payer takes any number of
// schemes (NewPayer) and chooses among every offer they can pay.
//
// The payer core does what is the same for every scheme: it reads the challenge, chooses an
// offer, applies the Policy, reserves the amount in the Budget, asks Policy.Approve, records
// what Pay returns in the budget before the payment leaves, sends it, and books the outcome.
// A scheme only says which offers it can pay and produces the signed payment.
type Scheme interface {
	// Scheme returns the name of the scheme it pays, such as "exact".
	Scheme() string
	// Namespace returns the CAIP-2 namespace of the chains it pays on, such as "eip155" or
	// "solana".
	Namespace() string
	// DefaultNetwork returns the network (CAIP-2) a Policy without Networks allows for this
	// scheme: its chain family's mainnet.
	DefaultNetwork() string
	// Payer returns the address that pays, as its chains write it.
	Payer() string
	// Address checks an address of its chains and returns its canonical form, in which two
	// addresses of the same account are equal strings: EVM hex in lower case, Solana base58
	// exactly as written. The Policy's PayTo and Assets and the budget's payees compare it.
	Address(address string) (string, error)
	// USDC returns the USDC token of network (a contract, a mint) when the scheme knows it:
	// what a Policy without Assets allows there.
	USDC(network string) (asset string, ok bool)
	// Check says why the scheme cannot pay offer, or nil when it can: what its chains need
	// that package wire's generic checks do not see (an EVM token's EIP-712 domain, a Solana
	// fee payer that is not the payer's own key). The offer's network is CAIP-2.
	Check(offer *wire.PaymentRequirements) error
	// Pay builds and signs the payment of an offer that passed Check and the policy, and
	// returns it with what identifies it on its chain. It applies no policy; its amount is
	// already reserved. ctx bounds what it reads from the network (a Solana blockhash).
	Pay(ctx context.Context, offer Offer) (*Signed, error)
}

// Offer is an accepts entry the payer chose and the policy allowed, as a Scheme's Pay gets it.
type Offer struct {
	// Requirements is the entry (the scheme's own copy). Its Network may be a v1 name;
	// Network is its CAIP-2 form.
	Requirements wire.PaymentRequirements
	// Network is the entry's network in CAIP-2 form.
	Network string
	// X402Version is the challenge's protocol version, 1 or 2.
	X402Version int
	// Validity is how long the payment may stay valid: the entry's maxTimeoutSeconds, at
	// most Policy.MaxValidity.
	Validity time.Duration
	// Now is the payer's clock when it signs.
	Now time.Time
}

// Signed is a payment a Scheme produced: the scheme's payload, and what the budget records
// of it before it leaves so that a reconciler can find it on its chain later.
type Signed struct {
	// Payload is the payload member of the PaymentPayload, a JSON object (an EIP-3009
	// authorization and its signature; a base64 Solana transaction).
	Payload json.RawMessage
	// ID identifies the payment on its chain: an EIP-3009 nonce (0x hex), the payer's
	// signature of a Solana transaction.
	ID string
	// Expires is when the payment can no longer settle: validBefore, the end of a Solana
	// blockhash's life (an upper bound).
	Expires time.Time
	// Ref is what else the scheme's lookup needs, in its own notation.
	Ref string
	// Secrets are the forms of the payment that must never appear in an error or a log line
	// (a signature, a signed transaction); the header that carries the payment is scrubbed
	// too. When ID is one of them, errors do not name it.
	Secrets []string
}
