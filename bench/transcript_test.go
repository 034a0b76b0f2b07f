package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tmaproject/tma/lib/transcript"
)

// BenchmarkTranscriptFirstPage reads the first page (--last 20) of a claude
// transcript of 4 KiB, 1 MB and 50 MB, built from the lab's real transcript's
// records: the store is read from its end, so the two should cost the
// same (docs/performance.md, "tma transcript"). Each call opens the file,
// reads the head and the tail within the budgets, and renders the page.
func BenchmarkTranscriptFirstPage(b *testing.B) {
	rec, err := os.ReadFile(filepath.Join("..", "fixtures", "transcripts", "claude", "7e438f55-8363-469e-b23d-3921c641f85b.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range []struct {
		name string
		n    int
	}{{"4KiB", 4 << 10}, {"1MB", 1_000_000}, {"50MB", 50_000_000}} {
		b.Run(size.name, func(b *testing.B) {
			var buf bytes.Buffer
			for buf.Len() < size.n {
				buf.Write(rec)
			}
			data := buf.Bytes()
			if size.n < len(rec) {
				// Whole records only: cut after the last newline under the size.
				data = data[:bytes.LastIndexByte(data[:size.n], '\n')+1]
			}
			p := filepath.Join(b.TempDir(), "s.jsonl")
			if err := os.WriteFile(p, data, 0o644); err != nil {
				b.Fatal(err)
			}
			src := transcript.Source{Agent: "claude", Path: p, Root: filepath.Dir(p)}
			var read int64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				page, ref := transcript.ReadSource(src, transcript.Request{Last: 20})
				if ref != nil {
					b.Fatal(ref)
				}
				if _, err := (transcript.Document{Pane: "%0", Agent: "claude", Page: page}).MarshalJSON(); err != nil {
					b.Fatal(err)
				}
				read = page.ReadBytes
			}
			b.ReportMetric(float64(read), "read-B/op")
			b.ReportMetric(float64(len(data)), "file-B")
		})
	}
}
