package ledger

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"time"
)

// limitsForm is the canonical form of Limits that durable stores record: amounts as decimal
// strings, windows in order, payees sorted (encoding/json sorts map keys).
type limitsForm struct {
	Total      *string           `json:"total,omitempty"`
	PerPayment *string           `json:"per_payment,omitempty"`
	PerPayee   *string           `json:"per_payee,omitempty"`
	Payees     map[string]string `json:"payees,omitempty"`
	Windows    []windowForm      `json:"windows,omitempty"`
}

// windowForm is one window of a limitsForm.
type windowForm struct {
	Length int64   `json:"length_ns"`
	Amount *string `json:"amount,omitempty"`
	Count  int     `json:"count,omitempty"`
}

// decimal returns v in decimal, or nil.
func decimal(v *big.Int) *string {
	if v == nil {
		return nil
	}
	s := v.String()
	return &s
}

// MarshalJSON writes l in its canonical form, which a durable store records with its
// budget: two Limits that enforce the same limits (payees in any order) are written alike.
func (l Limits) MarshalJSON() ([]byte, error) {
	f := limitsForm{Total: decimal(l.Total), PerPayment: decimal(l.PerPayment), PerPayee: decimal(l.PerPayee)}
	if len(l.Payees) > 0 {
		f.Payees = make(map[string]string, len(l.Payees))
		for k, v := range l.Payees {
			f.Payees[k] = v.String()
		}
	}
	for _, w := range l.Windows {
		f.Windows = append(f.Windows, windowForm{Length: int64(w.Length), Amount: decimal(w.Amount), Count: w.Count})
	}
	return json.Marshal(f)
}

// UnmarshalJSON reads the canonical form MarshalJSON writes.
func (l *Limits) UnmarshalJSON(b []byte) error {
	var f limitsForm
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	var r Limits
	var err error
	read := func(field string, s *string) *big.Int {
		if s == nil || err != nil {
			return nil
		}
		v, ok := new(big.Int).SetString(*s, 10)
		if !ok {
			err = fmt.Errorf("ledger: limits: %s %q is not an integer", field, *s)
		}
		return v
	}
	r.Total, r.PerPayment, r.PerPayee = read("total", f.Total), read("per_payment", f.PerPayment), read("per_payee", f.PerPayee)
	if f.Payees != nil {
		r.Payees = make(map[string]*big.Int, len(f.Payees))
		for k, v := range f.Payees {
			r.Payees[k] = read("payee "+k, &v)
		}
	}
	for _, w := range f.Windows {
		r.Windows = append(r.Windows, Window{Length: time.Duration(w.Length), Amount: read("window amount", w.Amount), Count: w.Count})
	}
	if err != nil {
		return err
	}
	*l = r
	return nil
}

// Equal reports whether l and o enforce the same limits: the same amounts, the same windows
// in the same order, the same payees in any order.
func (l Limits) Equal(o Limits) bool {
	a, _ := l.MarshalJSON() // strings and numbers only: it cannot fail
	b, _ := o.MarshalJSON()
	return string(a) == string(b)
}

// String describes the limits for a person: "total 1000, per payment 100, payee 0xaa 70,
// window 1h0m0s: amount 500 10 payments", or "no limits".
func (l Limits) String() string {
	var parts []string
	add := func(name string, v *big.Int) {
		if v != nil {
			parts = append(parts, name+" "+v.String())
		}
	}
	add("total", l.Total)
	add("per payment", l.PerPayment)
	add("per payee", l.PerPayee)
	for _, p := range slices.Sorted(maps.Keys(l.Payees)) {
		add("payee "+p, l.Payees[p])
	}
	for _, w := range l.Windows {
		part := "window " + w.Length.String() + ":"
		if w.Amount != nil {
			part += " amount " + w.Amount.String()
		}
		if w.Count > 0 {
			part += fmt.Sprintf(" %d payments", w.Count)
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return "no limits"
	}
	return strings.Join(parts, ", ")
}

// LimitsError reports a Configure whose limits differ from those a durable store recorded,
// naming both; it matches ErrLimitsDiffer (errors.Is).
type LimitsError struct {
	// Recorded are the limits the store recorded; Asked, those Configure was given.
	Recorded, Asked Limits
}

// Error says both sets of limits.
func (e *LimitsError) Error() string {
	return ErrLimitsDiffer.Error() + ": it has " + e.Recorded.String() + "; this process asked for " + e.Asked.String()
}

// Is reports whether target is ErrLimitsDiffer.
func (e *LimitsError) Is(target error) bool { return target == ErrLimitsDiffer }
