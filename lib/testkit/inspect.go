package testkit

import (
	"encoding/json"
	"strings"
	"testing"
)

// KeyOrder lists a JSON object's top-level keys in document order, space
// separated: what the exact-key-set contract tests compare.
func KeyOrder(t testing.TB, doc string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(doc))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %q", doc)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return strings.Join(keys, " ")
}

// SGRAttrs lists the SGR parameters a drawn line sets, 38/48 colours
// skipped: "4" is the underline, "7" the reverse.
func SGRAttrs(line string) map[string]bool {
	out := map[string]bool{}
	for _, seq := range strings.Split(line, "\x1b[")[1:] {
		end := strings.IndexByte(seq, 'm')
		if end < 0 {
			continue
		}
		ps := strings.Split(seq[:end], ";")
		for i := 0; i < len(ps); i++ {
			if (ps[i] == "38" || ps[i] == "48") && i+1 < len(ps) {
				if ps[i+1] == "5" {
					i += 2
				} else {
					i += 4
				}
				continue
			}
			out[ps[i]] = true
		}
	}
	return out
}
