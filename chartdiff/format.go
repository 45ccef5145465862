package chartdiff

import (
	"fmt"
	"strconv"

	"github.com/agentapis/sdk/internal/show"
)

// The results print readably: %v and %+v show what an optional field holds, or <nil>, where
// fmt alone prints a pointer's address (see package show).

// Format makes %v and %+v print the values a Analysis points to, not their addresses.
func (a Analysis) Format(f fmt.State, verb rune) { show.Struct(f, verb, a) }

// Format makes %v and %+v print the values a BuildInfo points to, not their addresses.
func (i BuildInfo) Format(f fmt.State, verb rune) { show.Struct(f, verb, i) }

// Format makes %v and %+v print the values a Chart points to, not their addresses.
func (c Chart) Format(f fmt.State, verb rune) { show.Struct(f, verb, c) }

// Format makes %v and %+v print the values a ChartPage points to, not their addresses.
func (p ChartPage) Format(f fmt.State, verb rune) { show.Struct(f, verb, p) }

// Format makes %v and %+v print the values a CharterCharts points to, not their addresses.
func (c CharterCharts) Format(f fmt.State, verb rune) { show.Struct(f, verb, c) }

// Format makes %v and %+v print the values a CreatedKey points to, not their addresses.
func (c CreatedKey) Format(f fmt.State, verb rune) { show.Struct(f, verb, c) }

// Format makes %v and %+v print the values a Key points to, not their addresses.
func (k Key) Format(f fmt.State, verb rune) { show.Struct(f, verb, k) }

// Format makes %v and %+v print the values a KeyList points to, not their addresses.
func (l KeyList) Format(f fmt.State, verb rune) { show.Struct(f, verb, l) }

// Format makes %v and %+v print the values a KeyUsage points to, not their addresses.
func (k KeyUsage) Format(f fmt.State, verb rune) { show.Struct(f, verb, k) }

// Format makes %v and %+v print the values a OpenAPIDocument points to, not their addresses.
func (d OpenAPIDocument) Format(f fmt.State, verb rune) { show.Struct(f, verb, d) }

// Format makes %v and %+v print the values a Player points to, not their addresses.
func (p Player) Format(f fmt.State, verb rune) { show.Struct(f, verb, p) }

// Format makes %v and %+v print the values a PlayerStats points to, not their addresses.
func (s PlayerStats) Format(f fmt.State, verb rune) { show.Struct(f, verb, s) }

// Format makes %v and %+v print the values a RotatedKey points to, not their addresses.
func (r RotatedKey) Format(f fmt.State, verb rune) { show.Struct(f, verb, r) }

// Format makes %v and %+v print the values a Stats points to, not their addresses.
func (s Stats) Format(f fmt.State, verb rune) { show.Struct(f, verb, s) }

// Format makes %v and %+v print the values a Usage points to, not their addresses.
func (u Usage) Format(f fmt.State, verb rune) { show.Struct(f, verb, u) }

// Format makes %v and %+v print the values a UsageLimits points to, not their addresses.
func (l UsageLimits) Format(f fmt.State, verb rune) { show.Struct(f, verb, l) }

// String names the lifetime as its constant does ("Lifetime30Days", "LifetimeNever"); the zero
// Lifetime, "not given", and any other value print as Lifetime(n).
func (l Lifetime) String() string {
	switch l {
	case Lifetime30Days:
		return "Lifetime30Days"
	case Lifetime90Days:
		return "Lifetime90Days"
	case Lifetime365Days:
		return "Lifetime365Days"
	case LifetimeNever:
		return "LifetimeNever"
	}
	return "Lifetime(" + strconv.Itoa(int(l)) + ")"
}
