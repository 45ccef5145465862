package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agentapis/sdk/x402/usdc"
)

// Policy is the spending policy of every paid tool, as a configuration file (JSON) or the
// flags give it. Amounts are US dollars paid in USDC, written as "5.00" or "$0.25".
type Policy struct {
	// MaxPerPayment caps one payment, on every rail.
	MaxPerPayment string `json:"max_per_payment,omitempty"`
	// MaxTotal caps everything spent and still held, for the life of the budget: it survives
	// restarts and is shared by the processes on the same budget store.
	MaxTotal string `json:"max_total,omitempty"`
	// Window caps what a rolling window may spend, and how many payments it may make.
	Window *WindowPolicy `json:"window,omitempty"`
	// PerPayee caps what any one payee may receive in all; PayeeLimits caps named payees.
	PerPayee    string            `json:"per_payee,omitempty"`
	PayeeLimits map[string]string `json:"payee_limits,omitempty"`
	// AllowedPayees, when not empty, lists the only addresses that may be paid.
	AllowedPayees []string `json:"allowed_payees,omitempty"`
	// AllowedHosts, when not empty, lists the only hosts (name or name:port) that may be paid
	// or fetched by x402_fetch; a host listed here may be on a loopback or private address.
	AllowedHosts []string `json:"allowed_hosts,omitempty"`
	// ToolCaps caps what a tool may pay in all, by tool name ("reportstore_report": "2.00"),
	// as durably as MaxTotal.
	ToolCaps map[string]string `json:"tool_caps,omitempty"`
	// ApproveAbove is the amount above which a payment asks the person using the MCP client
	// (MCP elicitation); a client that cannot ask refuses such payments. Empty: never ask.
	ApproveAbove string `json:"approve_above,omitempty"`
}

// WindowPolicy caps a rolling window.
type WindowPolicy struct {
	// Length is the window's length, such as "24h".
	Length string `json:"length"`
	// MaxAmount caps what the window spends ("" for no amount cap), MaxPayments how many
	// payments it makes (0 for no count cap).
	MaxAmount   string `json:"max_amount,omitempty"`
	MaxPayments int    `json:"max_payments,omitempty"`
}

// Default policies: a live server spends little unless told otherwise; an offline one has
// enough for every tool of the fakes, a GPU-price Pro key included.
var (
	DefaultPolicy        = Policy{MaxPerPayment: "1.00", MaxTotal: "5.00"}
	DefaultOfflinePolicy = Policy{MaxPerPayment: "20.00", MaxTotal: "50.00"}
)

// LoadPolicy reads a policy from the JSON file at path; unknown fields are refused, so that a
// misspelt limit is not silently ignored.
func LoadPolicy(path string) (Policy, error) {
	var p Policy
	data, err := os.ReadFile(path)
	if err != nil {
		return p, fmt.Errorf("policy file: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("policy file %s: %w", path, err)
	}
	return p, nil
}

// Merge returns p with every field that over sets replacing p's.
func (p Policy) Merge(over Policy) Policy {
	setString := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	setString(&p.MaxPerPayment, over.MaxPerPayment)
	setString(&p.MaxTotal, over.MaxTotal)
	setString(&p.PerPayee, over.PerPayee)
	setString(&p.ApproveAbove, over.ApproveAbove)
	if over.Window != nil {
		p.Window = over.Window
	}
	if len(over.PayeeLimits) > 0 {
		p.PayeeLimits = over.PayeeLimits
	}
	if len(over.AllowedPayees) > 0 {
		p.AllowedPayees = over.AllowedPayees
	}
	if len(over.AllowedHosts) > 0 {
		p.AllowedHosts = over.AllowedHosts
	}
	if len(over.ToolCaps) > 0 {
		p.ToolCaps = over.ToolCaps
	}
	return p
}

// limits is a Policy read into amounts.
type limits struct {
	perPayment, total, perPayee, approveAbove *big.Int
	window                                    time.Duration
	windowAmount                              *big.Int
	windowPayments                            int
	payees, toolCaps                          map[string]*big.Int
	allowedPayees, allowedHosts               []string
}

// parse reads p's amounts, refusing what makes no sense: a missing total, a negative or
// unreadable amount, a window without a length.
func (p Policy) parse() (*limits, error) {
	var errs []error
	amount := func(name, v string, required bool) *big.Int {
		if v == "" {
			if required {
				errs = append(errs, fmt.Errorf("%s: required", name))
			}
			return nil
		}
		n, err := usdc.Parse(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			return nil
		}
		return n
	}
	l := &limits{
		perPayment:   amount("max_per_payment", p.MaxPerPayment, true),
		total:        amount("max_total", p.MaxTotal, true),
		perPayee:     amount("per_payee", p.PerPayee, false),
		approveAbove: amount("approve_above", p.ApproveAbove, false),
		payees:       map[string]*big.Int{},
		toolCaps:     map[string]*big.Int{},
	}
	if w := p.Window; w != nil {
		d, err := time.ParseDuration(w.Length)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("window.length: %q is not a positive duration such as 24h", w.Length))
		}
		if w.MaxPayments < 0 {
			errs = append(errs, errors.New("window.max_payments: negative"))
		}
		l.window, l.windowAmount, l.windowPayments = d, amount("window.max_amount", w.MaxAmount, false), w.MaxPayments
		if l.windowAmount == nil && w.MaxPayments == 0 {
			errs = append(errs, errors.New("window: give max_amount, max_payments or both"))
		}
	}
	for payee, v := range p.PayeeLimits {
		l.payees[payee] = amount("payee_limits."+payee, v, true)
	}
	for tool, v := range p.ToolCaps {
		l.toolCaps[tool] = amount("tool_caps."+tool, v, true)
	}
	for _, h := range p.AllowedHosts {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" || strings.ContainsAny(h, "/@ ") {
			errs = append(errs, fmt.Errorf("allowed_hosts: %q is not a host or host:port", h))
			continue
		}
		l.allowedHosts = append(l.allowedHosts, h)
	}
	for _, a := range p.AllowedPayees {
		if a = strings.TrimSpace(a); a != "" {
			l.allowedPayees = append(l.allowedPayees, a)
		}
	}
	slices.Sort(l.allowedHosts)
	return l, errors.Join(errs...)
}
