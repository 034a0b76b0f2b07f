package record

import (
	"bytes"
	"encoding/json"
	"testing"
)

// benchLine is the first real pane line that carries a capture and a
// verdict (what tma-stamp decodes per agent pane), or the first row.
func benchLine(b *testing.B, kind string) []byte {
	for _, line := range streamLines(b) {
		if kind == KindPane && bytes.Contains(line, []byte(`"kind":"pane"`)) && bytes.Contains(line, []byte(`"text":`)) &&
			bytes.Contains(line, []byte(`"verdict":`)) && !bytes.Contains(line, []byte(`"rules":`)) {
			return line
		}
		if kind == KindRow && bytes.Contains(line, []byte(`"kind":"row"`)) {
			return line
		}
	}
	b.Fatalf("no %s line", kind)
	return nil
}

func benchDecode(b *testing.B, kind string) {
	line := benchLine(b, kind)
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		b.ReportAllocs()
		for b.Loop() {
			if _, _, ok := unmarshalFast(line); !ok {
				b.Fatal("refused")
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := unmarshalJSON(line); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func benchEncode(b *testing.B, kind string) {
	line := benchLine(b, kind)
	_, v, err := unmarshalJSON(line)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		b.ReportAllocs()
		buf := make([]byte, 0, 64<<10) // the Writer's buffer
		for b.Loop() {
			if _, ok := appendFast(buf[:0], v); !ok {
				b.Fatal("declined")
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkDecodePane(b *testing.B) { benchDecode(b, KindPane) }
func BenchmarkDecodeRow(b *testing.B)  { benchDecode(b, KindRow) }
func BenchmarkEncodePane(b *testing.B) { benchEncode(b, KindPane) }
func BenchmarkEncodeRow(b *testing.B)  { benchEncode(b, KindRow) }
