package chartdiff

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzResponseParsing feeds untrusted bodies to the chart decoder and headers to the
// allowed-sort parser: neither may panic, and a decoded value is nil exactly when its field is
// absent or null.
func FuzzResponseParsing(f *testing.F) {
	f.Add([]byte(`{"chart_id":1,"analyzed":true,"ref_const":0,"notes":0}`), "100", "0", "1800")
	f.Add([]byte(`{"chart_id":4,"analyzed":false,"ref_const":null}`), "", "", "1767225600")
	f.Add([]byte(`{"chart_id":"x"}`), "-1", "abc", "99999999999999999999")
	f.Fuzz(func(t *testing.T, body []byte, limit, remaining, reset string) {
		var ch Chart
		if err := json.Unmarshal(body, &ch); err == nil {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatalf("a chart decoded from a body that is not an object: %v", err)
			}
			watched := []string{"ref_const", "ref_official", "ps_score", "nps", "notes", "difficulty", "chart_id", "analyzed"}
			for k := range m {
				for _, w := range watched {
					if k != w && strings.EqualFold(k, w) {
						// encoding/json also fills a field from a key spelled in another case
						// ("noTes"), so presence by exact key says nothing for this body.
						return
					}
				}
			}
			present := func(k string) bool { v, ok := m[k]; return ok && string(v) != "null" }
			for key, isNil := range map[string]bool{
				"ref_const": ch.RefConst == nil, "ref_official": ch.RefOfficial == nil, "ps_score": ch.PSScore == nil,
				"nps": ch.NPS == nil, "notes": ch.Notes == nil, "difficulty": ch.Difficulty == nil,
			} {
				if present(key) == isNil {
					t.Fatalf("%s: present=%t but nil=%t", key, present(key), isNil)
				}
			}
			if !present("chart_id") || !present("analyzed") {
				t.Fatal("a chart without chart_id or analyzed decoded")
			}
		}

		_ = parseAllowedSort(limit + "," + remaining)
	})
}
