package reportstore

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
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
