package reportstore

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

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
				if p.Price != nil && p.Price.Sign() < 0 {
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

// FuzzFieldLookup checks the lookup of members by normalised name against the rule it
// documents, for any JSON object encoding/json decodes: the member whose name is already
// normalised, else the first name in byte order of those that fold to it.
func FuzzFieldLookup(f *testing.F) {
	addFixtures(f)
	for _, seed := range []string{
		`{"a":1,"A":2,"a":3}`, `{"Year":1,"YEAR":2}`, `{"year":1,"Year":2}`, `{"y\u0065ar":[1],"Year":2}`,
		"{\"\xff\":1,\"\\ud800\":2}", `{ }`, `{"Price_USD":1,"priceUsd":2,"price usd":3}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil || m == nil {
			return
		}
		got, ok := objectFields(b)
		if !ok {
			t.Fatalf("objectFields(%q) refuses an object", b)
		}
		keys := slices.Sorted(maps.Keys(m))
		want := map[string]string{}
		for _, k := range keys {
			n := normKey(k)
			if cur, seen := want[n]; !seen || k == n && cur != n {
				want[n] = k
			}
		}
		if len(got) != len(want) {
			t.Fatalf("objectFields(%q): %d names, want %d", b, len(got), len(want))
		}
		for n, k := range want {
			if v := got[n]; !bytes.Equal(v, m[k]) {
				t.Fatalf("value(%q) of %q = %s, want the value of %q, %s", n, b, v, k, m[k])
			}
		}
	})
}
