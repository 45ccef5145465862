package reportstore

import (
	"fmt"

	"github.com/agentapis/sdk/internal/show"
)

// The results print readably: %v and %+v show what an optional field holds, or <nil>, where
// fmt alone prints a pointer's address (see package show).

// Format makes %v and %+v print the values a Catalog points to, not their addresses.
func (c Catalog) Format(f fmt.State, verb rune) { show.Struct(f, verb, c) }

// Format makes %v and %+v print the values a KnownReport points to, not their addresses.
func (k KnownReport) Format(f fmt.State, verb rune) { show.Struct(f, verb, k) }

// Format makes %v and %+v print the values a Preview points to, not their addresses.
func (p Preview) Format(f fmt.State, verb rune) { show.Struct(f, verb, p) }

// Format makes %v and %+v print the values a PreviewRow points to, not their addresses.
func (p PreviewRow) Format(f fmt.State, verb rune) { show.Struct(f, verb, p) }

// Format makes %v and %+v print the values a Product points to, not their addresses.
func (p Product) Format(f fmt.State, verb rune) { show.Struct(f, verb, p) }

// Format makes %v and %+v print the values a Record points to, not their addresses.
func (r Record) Format(f fmt.State, verb rune) { show.Struct(f, verb, r) }

// Format makes %v and %+v print the values a ReportPayload points to, not their addresses.
func (r ReportPayload) Format(f fmt.State, verb rune) { show.Struct(f, verb, r) }

// Format makes %v and %+v print the values a FirstPurchase points to, not their addresses.
func (s FirstPurchase) Format(f fmt.State, verb rune) { show.Struct(f, verb, s) }

// String prints the Quote as %+v would, with the values it points to, not their addresses:
// its field Format rules out a Format method.
func (q Quote) String() string { return show.String(q) }

// String prints the Report as %+v would, with the values it points to, not their addresses:
// its field Format rules out a Format method.
func (r Report) String() string { return show.String(r) }

// String prints the ReportStream as %+v would, with the values it points to, not their addresses:
// its field Format rules out a Format method.
func (s ReportStream) String() string { return show.String(s) }
