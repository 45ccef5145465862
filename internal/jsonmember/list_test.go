package jsonmember

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestList reads a list under two spellings with a count beside it, as the services send it.
func TestList(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []int // nil: an error
	}{
		{"found", `{"items":[1,2]}`, []int{1, 2}},
		{"found under the second name", `{"data":[3]}`, []int{3}},
		{"found empty", `{"items":[]}`, []int{}},
		{"found despite a count", `{"items":[1],"count":5}`, []int{1}},
		{"absent with a count of 0", `{"count":0}`, []int{}},
		{"null with a count of 0", `{"items":null,"count":0}`, []int{}},
		{"absent with a count above 0", `{"count":3}`, nil},
		{"null with a count above 0", `{"items":null,"count":3}`, nil},
		{"null without a count", `{"items":null}`, nil},
		{"renamed, without a count", `{"rows":[1]}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w struct {
				Items Tracked[[]int] `json:"items"`
				Data  Tracked[[]int] `json:"data"`
				Count Optional[int]  `json:"count"`
			}
			if err := json.Unmarshal([]byte(tt.body), &w); err != nil {
				t.Fatal(err)
			}
			items, found := FirstTracked(w.Items, w.Data)
			got, err := List("rows", items, found, w.Count.Ptr(), "items", "data")
			if tt.want == nil {
				if err == nil || !strings.HasPrefix(err.Error(), "rows: ") || !strings.Contains(err.Error(), "items, data") {
					t.Fatalf("List = %v, %v; want an error naming the value and the spellings", got, err)
				}
				return
			}
			if err != nil || got == nil || len(got) != len(tt.want) {
				t.Fatalf("List = %#v, %v; want %v", got, err, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("List = %v; want %v", got, tt.want)
				}
			}
		})
	}
}
