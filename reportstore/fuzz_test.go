package reportstore

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func FuzzParsePrice(f *testing.F) {
	for _, s := range []string{"0.130000", "$0.13", "1.3e-1", "0.1234567", "9223372036854.775807", "-1", "1e30", ".", "$"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePrice(s)
		if err != nil {
			return
		}
		if p.Atomic() < 0 {
			t.Fatalf("%q parsed to a negative price", s)
		}
		for _, form := range []string{p.String(), p.Decimal()} {
			q, err := ParsePrice(form)
			if err != nil || q != p {
				t.Fatalf("%q: %q does not round-trip: %v %v", s, form, q, err)
			}
		}
	})
}

// addFixtures seeds f with every JSON file of testdata.
func addFixtures(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"products": [{"price": {"usd": {"usd": "1"}}}]}`))
	f.Add([]byte(`[]`))
}

func FuzzLenientBodies(f *testing.F) {
	addFixtures(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if ps, err := parseCatalog(b); err == nil {
			for _, p := range ps {
				if p.Price != nil && p.Price.Atomic() < 0 {
					t.Fatal("negative price")
				}
			}
		}
		if p, err := parsePreview(b); err == nil && p.Rows == nil {
			t.Fatal("a decoded preview has a non-nil row list")
		}
		_, _ = parseStart(b)
		_, _ = parsePayload(b)
	})
}

func FuzzScanRecords(f *testing.F) {
	f.Add([]byte("economy,year,indicator,value\nUS,2015,X,1.5\nUS,2016,X,\n"))
	f.Add([]byte("Country_Code,Year,Series,Value\n\"US\",2015,X,..\n"))
	f.Add([]byte("economy,year\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		errs := 0
		for rec, err := range ScanRecords(bytes.NewReader(b)) {
			if err != nil {
				errs++
				continue
			}
			if rec.Economy == "" || rec.Indicator == "" {
				t.Fatal("a record without economy or indicator")
			}
		}
		if errs > 1 {
			t.Fatal("more than one error yielded")
		}
	})
}

// scalarTextReference is scalarText as encoding/json alone reads it: the oracle of
// FuzzScalarText.
func scalarTextReference(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return "", false
	}
	return n.String(), true
}

// FuzzScalarText checks that the scalar reader's shortcuts for plain numbers and strings give
// exactly what encoding/json gives, for any bytes.
func FuzzScalarText(f *testing.F) {
	for _, seed := range []string{`"US"`, `12.5`, `-0`, `1e400`, `"a\"b"`, `"\u00e9"`, "\"\xff\"", `"`, `""`, ` 7 `, `-`, `01`, `"tab	"`, `true`, `null`, `"\/"`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := scalarText(raw)
		want, wantOK := scalarTextReference(raw)
		if got != want || ok != wantOK {
			t.Fatalf("scalarText(%q) = %q, %t; encoding/json reads %q, %t", raw, got, ok, want, wantOK)
		}
	})
}

// FuzzLookupsMatchEncodingJSON checks the lookups the lenient decoding rests on against an
// object decoded by encoding/json, for any valid JSON: each normalised key finds the value of
// the key that folds to it (the exact key first), and valueMap gives the map encoding/json
// gives; checkJSON refuses what encoding/json refuses.
func FuzzLookupsMatchEncodingJSON(f *testing.F) {
	addFixtures(f)
	for _, seed := range []string{
		`{"a":1,"A":2,"a":3}`, `{"Year":1,"YEAR":2}`, `{"year":1,"Year":2}`, `{"y\u0065ar":[1],"Year":2}`,
		"{\"\xff\":1,\"\\ud800\":2}", `{ }`, `[1]`, `{"a":{"b":1},"a":2}`,
		`{"values":{"X":"1.5","Y":"..","X":2}}`, `{"a":1}x`, `{"a" 1}`, `{"Price_USD":1,"priceUsd":2}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			if checkJSON(b) == nil {
				t.Fatalf("checkJSON accepts %q", b)
			}
			return
		}
		if err := checkJSON(b); err != nil {
			t.Fatalf("checkJSON(%q) = %v", b, err)
		}
		var want map[string]json.RawMessage
		isObject := bytes.TrimSpace(b)[0] == '{' && json.Unmarshal(b, &want) == nil
		got, ok := objectFields(b)
		if ok != isObject {
			t.Fatalf("objectFields(%q) ok = %t, encoding/json reads an object: %t", b, ok, isObject)
		}
		if ok {
			byNorm := map[string][]string{}
			for k := range want {
				byNorm[normKey(k)] = append(byNorm[normKey(k)], k)
			}
			for norm, keys := range byNorm {
				v := got.value(norm)
				switch exact, hasExact := want[norm]; {
				case hasExact:
					if !bytes.Equal(v, exact) {
						t.Fatalf("value(%q) of %q = %s, want the exact key's %s", norm, b, v, exact)
					}
				case len(keys) == 1:
					if !bytes.Equal(v, want[keys[0]]) {
						t.Fatalf("value(%q) of %q = %s, want %s", norm, b, v, want[keys[0]])
					}
				default:
					if !slices.ContainsFunc(keys, func(k string) bool { return bytes.Equal(v, want[k]) }) {
						t.Fatalf("value(%q) of %q = %s, the value of none of %q", norm, b, v, keys)
					}
				}
			}
			values := valueMap(got)
			if len(values) != len(want) {
				t.Fatalf("valueMap(%q): %d entries, want %d", b, len(values), len(want))
			}
			for k, raw := range want {
				n, isNum := number(raw)
				v, present := values[k]
				if !present || (v != nil) != isNum || isNum && *v != n && !(math.IsNaN(n) && math.IsNaN(*v)) {
					t.Fatalf("valueMap(%q)[%q] = %v, want %v (%t)", b, k, v, n, isNum)
				}
			}
		}
	})
}
