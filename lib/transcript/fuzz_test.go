package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzStores feeds arbitrary bytes to every JSONL adapter, as one record
// and as a whole store paged to its head with a cursor round trip: no
// input may panic, hang, serve a page past --last, or lose the unknown
// count's meaning (never above the events served).
func FuzzStores(f *testing.F) {
	for _, fx := range fixtures {
		if filepath.Ext(fx.file) != ".jsonl" {
			continue
		}
		b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "transcripts", fx.file))
		if err != nil {
			f.Fatal(err)
		}
		lines := bytes.Split(b, []byte("\n"))
		for i := 0; i < len(lines); i += 7 {
			f.Add(bytes.Join(lines[i:min(i+3, len(lines))], []byte("\n")), uint8(3))
		}
	}
	f.Add([]byte("{}\n\n{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"content\":[1,{}]}]}}\n"), uint8(1))
	f.Add([]byte("{\"$set\":{}}\n{\"type\":\"message\",\"message\":{\"role\":\"toolResult\",\"content\":7}}\nhalf"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, last uint8) {
		n := int(last%8) + 1
		for agent, ad := range adapters {
			ad(data)
			dir := t.TempDir()
			p := filepath.Join(dir, "s.jsonl")
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			src := Source{Agent: agent, Path: p, Root: dir}
			req := Request{Last: n}
			for i := 0; i < 4096; i++ {
				pg, ref := ReadSource(src, req)
				if ref != nil {
					if ref.Code != CodeRecordTooLarge {
						t.Fatalf("%s: refused %v", agent, ref)
					}
					break
				}
				if len(pg.Events) > n || pg.Unknown > len(pg.Events) {
					t.Fatalf("%s: %d events (unknown %d) for --last %d", agent, len(pg.Events), pg.Unknown, n)
				}
				for _, e := range pg.Events {
					if _, ref := ReadSource(src, Request{Event: e.Cursor}); ref != nil {
						t.Fatalf("%s: --event %s of a served event: %v", agent, e.Cursor, ref)
					}
				}
				if pg.Older == "" {
					break
				}
				req.Before = pg.Older
			}
		}
	})
}
