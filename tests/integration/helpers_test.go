package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

func fakeAgentBin(t *testing.T, name string) string { return testkit.FakeAgent(t, name) }

func writeScreen(t *testing.T, e *env, screen string) string {
	f := filepath.Join(t.TempDir(), "screen")
	if err := os.WriteFile(f, []byte(screen), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// orderedKeys lists a JSON object's top-level keys in document order.
func orderedKeys(t *testing.T, doc string) string {
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
