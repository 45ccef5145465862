package mcpserver

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
)

// DefaultFetchMaxBytes is the most of a body x402_fetch returns by default.
const DefaultFetchMaxBytes = 256 << 10

// FetchRules say what x402_fetch may reach.
type FetchRules struct {
	// AllowHTTP lets it fetch http URLs; by default only https.
	AllowHTTP bool
	// AllowPrivate lets it reach loopback, private, link-local and cloud metadata addresses;
	// by default only public ones (a host in the policy's allowed_hosts may be private).
	AllowPrivate bool
	// MaxBytes is the most of a body returned (DefaultFetchMaxBytes when zero).
	MaxBytes int
}

// fetcher fetches URLs for x402_fetch under its rules.
type fetcher struct {
	rules FetchRules
	// allowed are the policy's allowed hosts: when not empty, the only ones fetched, and
	// reachable on private addresses; trusted are the offline fakes, reachable over http.
	allowed, trusted []string
	// transport dials only the addresses the rules allow, whatever a name resolves to.
	transport *http.Transport
}

// newFetcher returns a fetcher with rules, and the policy's allowed hosts and the trusted ones.
func newFetcher(rules FetchRules, allowed, trusted []string) *fetcher {
	if rules.MaxBytes <= 0 {
		rules.MaxBytes = DefaultFetchMaxBytes
	}
	f := &fetcher{rules: rules, allowed: allowed, trusted: trusted}
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	f.transport = &http.Transport{
		Proxy: nil, // a proxy would reach what the dialer refuses
		DialContext: func(ctx context.Context, network, address string) (net.Conn, error) {
			return f.dial(ctx, dialer, network, address)
		},
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		MaxIdleConnsPerHost:   4,
		ForceAttemptHTTP2:     true,
	}
	return f
}

// listed reports whether host (name or name:port, lower case) is in hosts, by itself or
// with its port.
func listed(hosts []string, hostport string) bool {
	hostport = strings.ToLower(hostport)
	name, _, err := net.SplitHostPort(hostport)
	if err != nil {
		name = hostport
	}
	return slices.Contains(hosts, hostport) || slices.Contains(hosts, name)
}

// checkURL applies the rules that need no address: the scheme and the allowed hosts.
func (f *fetcher) checkURL(u *url.URL) error {
	if u.User != nil {
		return errors.New("x402_fetch: URLs with credentials are refused")
	}
	trusted := listed(f.trusted, u.Host)
	switch u.Scheme {
	case "https":
	case "http":
		if !f.rules.AllowHTTP && !trusted && !listed(f.allowed, u.Host) {
			return fmt.Errorf("x402_fetch: %s is not https (the server allows http only with -fetch-allow-http or for a host in allowed_hosts)", u.Redacted())
		}
	default:
		return fmt.Errorf("x402_fetch: only http and https URLs are fetched, not %q", u.Scheme)
	}
	if len(f.allowed) > 0 && !trusted && !listed(f.allowed, u.Host) {
		return fmt.Errorf("x402_fetch: %s is not in allowed_hosts", u.Hostname())
	}
	return nil
}

// dial connects to address after checking every address it resolves to: loopback, private,
// link-local (cloud metadata included), shared, multicast and unspecified addresses are
// refused unless the rules or the host lists allow them.
func (f *fetcher) dial(ctx context.Context, d *net.Dialer, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	if f.rules.AllowPrivate || listed(f.trusted, address) || listed(f.allowed, address) {
		return d.DialContext(ctx, network, address)
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, fmt.Errorf("x402_fetch: resolving %s: %w", host, err)
	}
	for _, a := range addrs {
		if reason := notPublic(a); reason != "" {
			return nil, fmt.Errorf("x402_fetch: %s resolves to %s, a %s address: refused (allow it with -fetch-allow-private or allowed_hosts)", host, a, reason)
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("x402_fetch: %s has no address", host)
	}
	return d.DialContext(ctx, network, net.JoinHostPort(addrs[0].String(), port))
}

// sharedSpace is the carrier-grade NAT range (RFC 6598), where some clouds put their
// metadata service.
var sharedSpace = netip.MustParsePrefix("100.64.0.0/10")

// notPublic says what kind of non-public address a is, or "" for a public one.
func notPublic(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "link-local (cloud metadata)"
	case a.IsPrivate():
		return "private"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	case sharedSpace.Contains(a):
		return "shared (carrier-grade NAT)"
	case !a.IsGlobalUnicast():
		return "non-global"
	}
	return ""
}

// FetchIn is the input of x402_fetch.
type FetchIn struct {
	URL       string `json:"url" bounds:"min=8,max=2048" jsonschema:"the URL to GET: https, on a public address"`
	MaxAmount string `json:"max_amount,omitempty" bounds:"max=20" pattern:"^\\$?[0-9]{1,9}(\\.[0-9]{1,6})?$" jsonschema:"the most this call may pay in dollars, such as 0.10; the policy's limits apply too"`
}

// Paid describes a payment a tool made.
type Paid struct {
	Amount      Money  `json:"amount"`
	PayTo       string `json:"pay_to"`
	Network     string `json:"network"`
	Transaction string `json:"transaction,omitempty" jsonschema:"the settlement's transaction, from the receipt"`
}

// FetchOut is what x402_fetch returns.
type FetchOut struct {
	URL         string `json:"url"`
	Status      int    `json:"status"`
	ContentType string `json:"content_type" jsonschema:"the body's media type, as the server said"`
	// Text is the body when it is text (UTF-8); Base64 otherwise.
	Text      string `json:"text,omitempty"`
	Base64    string `json:"base64,omitempty"`
	Bytes     int    `json:"bytes" jsonschema:"how many bytes of the body are returned"`
	Truncated bool   `json:"truncated" jsonschema:"the body was longer than the server's limit and was cut"`
	Paid      *Paid  `json:"paid,omitempty" jsonschema:"the payment made for this answer; absent when it was free"`
}

// addFetchTool registers x402_fetch.
func (s *Server) addFetchTool() {
	desc := fmt.Sprintf("GETs a URL and returns its body (at most %d bytes; text as text, anything else as base64) with its content type. "+
		"When the server asks for an x402 payment, pays it within the spending policy and max_amount, and says what was paid. "+
		"Only https URLs on public addresses unless the server's configuration allows more.", s.fetch.rules.MaxBytes)
	if s.demoURL != "" {
		desc += " Offline demo: a paid resource at " + s.demoURL + " ($0.01)."
	}
	addTool(s, &mcp.Tool{Name: "x402_fetch", Description: desc, Annotations: paid}, s.x402Fetch)
}

// x402Fetch fetches in.URL, paying within the policy.
func (s *Server) x402Fetch(ctx context.Context, _ *mcp.CallToolRequest, in FetchIn) (FetchOut, string, error) {
	u, err := url.Parse(in.URL)
	if err != nil || u.Host == "" {
		return FetchOut{}, "", errors.New("x402_fetch: url is not an absolute URL")
	}
	if err := s.fetch.checkURL(u); err != nil {
		return FetchOut{}, "", err
	}
	if ctx, err = withMax(ctx, in.MaxAmount); err != nil {
		return FetchOut{}, "", err
	}
	var rt http.RoundTripper = s.fetch.transport
	if s.payer != nil {
		rt = s.payer.RoundTripper(rt)
	}
	hc := &http.Client{Transport: rt, Timeout: 90 * time.Second, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("x402_fetch: more than 5 redirects")
		}
		return s.fetch.checkURL(req.URL)
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return FetchOut{}, "", err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return FetchOut{}, "", paymentError(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(s.fetch.rules.MaxBytes)+1))
	if err != nil {
		return FetchOut{}, "", fmt.Errorf("x402_fetch: reading the body: %w", err)
	}
	out := FetchOut{URL: u.Redacted(), Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
	if len(body) > s.fetch.rules.MaxBytes {
		body, out.Truncated = body[:s.fetch.rules.MaxBytes], true
	}
	out.Bytes = len(body)
	if isText(out.ContentType) && utf8.Valid(body) {
		out.Text = string(body)
	} else {
		out.Base64 = base64.StdEncoding.EncodeToString(body)
	}
	if p, ok := x402.PaymentFrom(resp); ok {
		transaction := ""
		if r, ok := x402.ReceiptFrom(resp); ok {
			transaction = r.Transaction
		}
		out.Paid = paidFrom(p, transaction)
	}
	if resp.StatusCode == http.StatusPaymentRequired && s.payer == nil {
		return FetchOut{}, "", errNoWallet
	}
	text := fmt.Sprintf("%d %s, %d bytes of %s", resp.StatusCode, http.StatusText(resp.StatusCode), out.Bytes, out.ContentType)
	if out.Truncated {
		text += " (truncated)"
	}
	if out.Paid != nil {
		text += fmt.Sprintf("; paid %s to %s", out.Paid.Amount.Dollars, out.Paid.PayTo)
	}
	return out, text, nil
}

// isText reports whether a media type is text a model can read.
func isText(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		mt == "application/xml" || strings.HasSuffix(mt, "+xml") || mt == "application/javascript"
}

// paymentError returns err, saying first what happened to the money when a payment failed.
func paymentError(err error) error {
	var (
		pol       *x402.PolicyError
		rejected  *x402.PaymentRejectedError
		unconfirm *x402.PaymentUnconfirmedError
		settled   *x402.PaymentSettledError
	)
	switch {
	case errors.As(err, &pol):
		return fmt.Errorf("payment refused, nothing was paid: %w", err)
	case errors.As(err, &rejected):
		return fmt.Errorf("payment rejected by the server; nothing moved, the amount stays counted until the authorization expires: %w", err)
	case errors.As(err, &unconfirm):
		return fmt.Errorf("payment outcome unknown; it stays counted until budget_reconcile finds out: %w", err)
	case errors.As(err, &settled):
		return fmt.Errorf("paid, but nothing was delivered: %w", err)
	}
	return err
}

// setupPayer builds the x402 payer from EVM_PRIVATE_KEY, drawing on the server's budget and
// applying the server's rules before every signature.
func (s *Server) setupPayer() error {
	key := s.env(EnvEVMPrivateKey)
	if key == "" {
		return nil
	}
	s.secrets.add(key, strings.TrimPrefix(key, "0x"))
	signer, err := evm.NewPrivateKeySigner(key)
	if err != nil {
		return fmt.Errorf("%s is not a hex secp256k1 private key", EnvEVMPrivateKey)
	}
	scheme, err := evm.NewExact(signer)
	if err != nil {
		return err
	}
	policy := x402.Policy{MaxPerPayment: s.limits.perPayment, Approve: func(ctx context.Context, q x402.Quote) error {
		what, host := "a resource", ""
		if q.URL != nil {
			host = q.URL.Host
			what = q.URL.Scheme + "://" + q.URL.Host + q.URL.Path
		}
		return s.approve(ctx, payment{amount: q.Requirements.Amount, payTo: q.Requirements.PayTo, host: host, what: what})
	}}
	s.payer, err = x402.NewPayer(policy, []x402.Scheme{scheme}, x402.WithBudget(s.budget))
	return err
}

// paidFrom describes the payment of a paid answer.
func paidFrom(p *x402.Payment, transaction string) *Paid {
	if p == nil {
		return nil
	}
	return &Paid{Amount: money(p.Amount), PayTo: p.PayTo, Network: p.Network, Transaction: transaction}
}
