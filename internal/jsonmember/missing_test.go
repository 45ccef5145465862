package jsonmember

import "testing"

// TestMissing names the value and the member.
func TestMissing(t *testing.T) {
	if got, want := Missing("cheapest price", "model").Error(), `cheapest price: field "model" is missing`; got != want {
		t.Fatalf("Missing = %q; want %q", got, want)
	}
}
