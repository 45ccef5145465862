package productdata

import (
	"fmt"
	"strconv"

	"github.com/agentapis/sdk/internal/show"
)

// The results print readably: %v and %+v show what an optional field holds, or <nil>, where
// fmt alone prints a pointer's address (see package show).

// Format makes %v and %+v print the values a CallResult points to, not their addresses.
func (r CallResult) Format(f fmt.State, verb rune) { show.Struct(f, verb, r) }

// Format makes %v and %+v print the values a Category points to, not their addresses.
func (c Category) Format(f fmt.State, verb rune) { show.Struct(f, verb, c) }

// Format makes %v and %+v print the values a CategoryRank points to, not their addresses.
func (r CategoryRank) Format(f fmt.State, verb rune) { show.Struct(f, verb, r) }

// Format makes %v and %+v print the values a Keyword points to, not their addresses.
func (k Keyword) Format(f fmt.State, verb rune) { show.Struct(f, verb, k) }

// Format makes %v and %+v print the values a Page points to, not their addresses.
func (p Page) Format(f fmt.State, verb rune) { show.Struct(f, verb, p) }

// Format makes %v and %+v print the values a Point points to, not their addresses.
func (p Point) Format(f fmt.State, verb rune) { show.Struct(f, verb, p) }

// Format makes %v and %+v print the values a Product points to, not their addresses.
func (p Product) Format(f fmt.State, verb rune) { show.Struct(f, verb, p) }

// Format makes %v and %+v print the values a ProductList points to, not their addresses.
func (p ProductList) Format(f fmt.State, verb rune) { show.Struct(f, verb, p) }

// Format makes %v and %+v print the values a ProductTrend points to, not their addresses.
func (t ProductTrend) Format(f fmt.State, verb rune) { show.Struct(f, verb, t) }

// Format makes %v and %+v print the values a Review points to, not their addresses.
func (r Review) Format(f fmt.State, verb rune) { show.Struct(f, verb, r) }

// Format makes %v and %+v print the values a RequestUnits points to, not their addresses.
func (u RequestUnits) Format(f fmt.State, verb rune) { show.Struct(f, verb, u) }

// Format makes %v and %+v print the values a ReviewTask points to, not their addresses.
func (r ReviewTask) Format(f fmt.State, verb rune) { show.Struct(f, verb, r) }

// Format makes %v and %+v print the values a Units points to, not their addresses.
func (u Units) Format(f fmt.State, verb rune) { show.Struct(f, verb, u) }

// String names the state as its constant does ("TaskDone"); a state the package does not
// know prints as TaskStatus(n), its number as the service sent it.
func (s TaskStatus) String() string {
	switch s {
	case TaskPending:
		return "TaskPending"
	case TaskDone:
		return "TaskDone"
	case TaskFailed:
		return "TaskFailed"
	case TaskNoCredit:
		return "TaskNoCredit"
	case TaskNoProduct:
		return "TaskNoProduct"
	}
	return "TaskStatus(" + strconv.Itoa(int(s)) + ")"
}
