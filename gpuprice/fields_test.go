package gpuprice

import "testing"

// TestEveryFieldHasItsNames checks the table: every field has names, each in
// snake_case (its other forms are read by folding), none repeated within a field.
func TestEveryFieldHasItsNames(t *testing.T) {
	t.Parallel()
	if len(fieldNames) != int(fieldError)+1 {
		t.Fatalf("the table has %d fields; the constants %d", len(fieldNames), int(fieldError)+1)
	}
	for f, names := range fieldNames {
		if len(names) == 0 {
			t.Errorf("field %d has no spelling", f)
		}
		seen := map[string]bool{}
		for _, name := range names {
			folded := fold(name)
			if seen[folded] || snake(name) != name {
				t.Errorf("field %d: %q is repeated or not in snake_case", f, name)
			}
			seen[folded] = true
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"best_price_usd_hr", "bestpriceusdhr"}, {"bestPriceUsdHr", "bestpriceusdhr"}, {"Best-Price-USD-Hr", "bestpriceusdhr"},
		{"h100e", "h100e"}, {"API.Key", "apikey"},
	} {
		if got := fold(tc.in); got != tc.want {
			t.Errorf("fold(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// snake returns name if it is lower-case letters, digits and underscores, else "".
func snake(name string) string {
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return ""
		}
	}
	return name
}
