package gpuprice

import (
	"fmt"

	"github.com/agentapis/sdk/internal/show"
)

// The results print readably: %v and %+v show what an optional field holds, or <nil>, where
// fmt alone prints a pointer's address (see package show).

// Format makes %v and %+v print the values a Benchmark points to, not their addresses.
func (m Benchmark) Format(f fmt.State, verb rune) { show.Struct(f, verb, m) }

// Format makes %v and %+v print the values a BookLevel points to, not their addresses.
func (l BookLevel) Format(f fmt.State, verb rune) { show.Struct(f, verb, l) }

// Format makes %v and %+v print the values a CheapestList points to, not their addresses.
func (l CheapestList) Format(f fmt.State, verb rune) { show.Struct(f, verb, l) }

// Format makes %v and %+v print the values a CheapestPrice points to, not their addresses.
func (p CheapestPrice) Format(f fmt.State, verb rune) { show.Struct(f, verb, p) }

// Format makes %v and %+v print the values a Component points to, not their addresses.
func (c Component) Format(f fmt.State, verb rune) { show.Struct(f, verb, c) }

// Format makes %v and %+v print the values a FuturesComponents points to, not their addresses.
func (x FuturesComponents) Format(f fmt.State, verb rune) { show.Struct(f, verb, x) }

// Format makes %v and %+v print the values a FuturesIndex points to, not their addresses.
func (x FuturesIndex) Format(f fmt.State, verb rune) { show.Struct(f, verb, x) }

// Format makes %v and %+v print the values a Health points to, not their addresses.
func (h Health) Format(f fmt.State, verb rune) { show.Struct(f, verb, h) }

// Format makes %v and %+v print the values a History points to, not their addresses.
func (h History) Format(f fmt.State, verb rune) { show.Struct(f, verb, h) }

// Format makes %v and %+v print the values a Key points to, not their addresses.
func (k Key) Format(f fmt.State, verb rune) { show.Struct(f, verb, k) }

// Format makes %v and %+v print the values a Match points to, not their addresses.
func (m Match) Format(f fmt.State, verb rune) { show.Struct(f, verb, m) }

// Format makes %v and %+v print the values a OrderBook points to, not their addresses.
func (o OrderBook) Format(f fmt.State, verb rune) { show.Struct(f, verb, o) }

// Format makes %v and %+v print the values a Platform points to, not their addresses.
func (p Platform) Format(f fmt.State, verb rune) { show.Struct(f, verb, p) }

// Format makes %v and %+v print the values a PlatformDirectory points to, not their addresses.
func (d PlatformDirectory) Format(f fmt.State, verb rune) { show.Struct(f, verb, d) }

// Format makes %v and %+v print the values a Price points to, not their addresses.
func (p Price) Format(f fmt.State, verb rune) { show.Struct(f, verb, p) }

// Format makes %v and %+v print the values a PriceTable points to, not their addresses.
func (t PriceTable) Format(f fmt.State, verb rune) { show.Struct(f, verb, t) }

// Format makes %v and %+v print the values a Snapshot points to, not their addresses.
func (s Snapshot) Format(f fmt.State, verb rune) { show.Struct(f, verb, s) }
