package show

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/agentapis/sdk"
)

// state is a named integer that prints its name, as the SDK's enums do.
type state int

func (s state) String() string { return [...]string{"idle", "busy"}[s] }

// inner is a struct without a Format method of its own.
type inner struct {
	N *int
	S []string
}

// result stands for a result type: optional values as pointers, a nested struct, a list of
// results, the raw answer, values that format themselves, and bookkeeping.
type result struct {
	Price   *float64
	Missing *float64
	OK      *bool
	When    *time.Time
	Amount  *big.Int
	State   state
	Key     sdk.Secret
	Inner   inner
	Ptr     *inner
	Rows    []row
	Counts  map[string]int
	Raw     json.RawMessage
	Any     any
	hidden  *int
}

// row is a nested result with its own Format method.
type row struct{ V *int }

func (r row) Format(f fmt.State, verb rune)    { Struct(f, verb, r) }
func (r result) Format(f fmt.State, verb rune) { Struct(f, verb, r) }

func ptr[T any](v T) *T { return &v }

func TestStructPrintsValuesNotAddresses(t *testing.T) {
	t.Parallel()
	when := time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC)
	r := result{
		Price: ptr(2.49), OK: ptr(true), When: &when, Amount: big.NewInt(50000), State: 1,
		Key: sdk.NewSecret("sk-live-0123456789abcdef"), Inner: inner{N: ptr(3), S: []string{"a", "b"}},
		Ptr: &inner{N: ptr(4)}, Rows: []row{{V: ptr(5)}, {}}, Counts: map[string]int{"b": 2, "a": 1},
		Raw: json.RawMessage(`{"price":2.49}`), Any: ptr(6), hidden: ptr(7),
	}
	plus := fmt.Sprintf("%+v", r)
	assert.Equal(t, `{Price:2.49 Missing:<nil> OK:true When:2026-01-31 12:00:00 +0000 UTC Amount:50000 State:busy `+
		`Key:`+r.Key.String()+` Inner:{N:3 S:[a b]} Ptr:{N:4 S:[]} Rows:[{V:5} {V:<nil>}] Counts:map[a:1 b:2] `+
		`Raw:{"price":2.49} Any:6}`, plus)
	assert.NotContains(t, plus, "0x")
	assert.NotContains(t, plus, "0123456789", "a secret keeps its mask")

	assert.Equal(t, `{2.49 <nil> true 2026-01-31 12:00:00 +0000 UTC 50000 busy `+r.Key.String()+` {3 [a b]} {4 []} [{5} {<nil>}] map[a:1 b:2] {"price":2.49} 6}`,
		fmt.Sprintf("%v", r))
	assert.Equal(t, fmt.Sprintf("%+v", r), fmt.Sprintf("%+v", &r), "a pointer to a result prints the result")
	assert.Equal(t, plus, String(r), "String is %+v, for a type that cannot have a Format method")
	assert.Equal(t, "<nil>", fmt.Sprintf("%v", (*row)(nil)))
}

// plainResult is result without its methods: fmt alone prints it.
type plainResult result

func TestStructKeepsGoSyntax(t *testing.T) {
	t.Parallel()
	for _, r := range []result{{}, {Price: ptr(2.5), Amount: big.NewInt(7), Key: sdk.NewSecret("sk-live-0123456789abcdef"),
		Rows: []row{{V: ptr(1)}}, Raw: json.RawMessage(`{}`), Any: 3, hidden: ptr(4)}} {
		want := strings.Replace(fmt.Sprintf("%#v", plainResult(r)), "show.plainResult{", "show.result{", 1)
		assert.Equal(t, want, fmt.Sprintf("%#v", r), "%#v writes what fmt writes, addresses included")
	}
}
