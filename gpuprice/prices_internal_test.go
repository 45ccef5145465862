package gpuprice

import (
	"reflect"
	"testing"
)

// FuzzCheapestDecodeIsStrict checks that the one-pass decoding of a cheapest price gives what
// the decoding with every member behind a pointer gives: the same price, or the same error.
func FuzzCheapestDecodeIsStrict(f *testing.F) {
	for _, seed := range []string{
		`{"model":"H100","best_platform":"lambda","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6,"all_on_demand":{"lambda":2.84}}`,
		`{"model":"","best_platform":"","best_price_usd_hr":0,"saving_pct_vs_dearest":0,"all_on_demand":{}}`,
		`{"model":"H100","best_platform":"lambda","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6,"all_on_demand":{},"model":null}`,
		`{"model":null,"best_platform":"lambda","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6,"all_on_demand":{},"model":"A"}`,
		`{"model":"H100","best_platform":"lambda","best_price_usd_hr":1,"best_price_usd_hr":null,"saving_pct_vs_dearest":50.6,"all_on_demand":{}}`,
		`{"model":"H100","best_platform":"lambda","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6,"all_on_demand":{"a":1},"all_on_demand":null}`,
		`{"model":"H100","best_platform":"lambda","best_price_usd_hr":"2.84","saving_pct_vs_dearest":50.6,"all_on_demand":{}}`,
		`{"MODEL":"H100","Best_Platform":"lambda","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6,"all_on_demand":{}}`,
		`{"best_platform":"lambda","best_price_usd_hr":2.84,"saving_pct_vs_dearest":50.6,"all_on_demand":{}}`,
		`{"model":"H100","best_platform":7}`, `null`, `[]`, `{}`, `{`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var fast, strict CheapestPrice
		errFast, errStrict := fast.decode(b), strict.decodeStrict(b)
		if (errFast == nil) != (errStrict == nil) || (errFast != nil && errFast.Error() != errStrict.Error()) {
			t.Fatalf("decode(%q) = %v; decodeStrict gives %v", b, errFast, errStrict)
		}
		if !reflect.DeepEqual(fast, strict) {
			t.Fatalf("decode(%q) = %+v; decodeStrict gives %+v", b, fast, strict)
		}
	})
}
