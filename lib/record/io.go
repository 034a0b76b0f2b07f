package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Reader reads NDJSON records one line at a time. Lines have no length limit
// (a captured screen with escapes easily exceeds bufio.Scanner's 64 KiB).
type Reader struct {
	r    *bufio.Reader
	line int
}

// NewReader wraps r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 64<<10)} }

// Line is the number of the line last returned.
func (r *Reader) Line() int { return r.line }

// Next returns the next non-blank line, its decoded head and record (nil for a
// kind this package does not know). It returns io.EOF at the end. A malformed
// line is an error naming its line number.
func (r *Reader) Next() ([]byte, Head, any, error) {
	for {
		b, err := r.r.ReadBytes('\n')
		if len(b) == 0 && err != nil {
			return nil, Head{}, nil, err
		}
		r.line++
		b = bytes.TrimRight(b, "\r\n")
		if len(bytes.TrimSpace(b)) == 0 {
			if err != nil {
				return nil, Head{}, nil, err
			}
			continue
		}
		h, v, derr := Unmarshal(b)
		if derr != nil {
			return b, h, nil, fmt.Errorf("line %d: malformed record: %v", r.line, derr)
		}
		return b, h, v, nil
	}
}

// Writer writes records as NDJSON lines.
type Writer struct {
	w   *bufio.Writer
	err error
}

// NewWriter wraps w. Call Flush at the end of every cycle.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriterSize(w, 64<<10)} }

// Write encodes one record; it sets the head so callers cannot forget it.
func (w *Writer) Write(v any) error {
	if w.err != nil {
		return w.err
	}
	switch r := v.(type) {
	case *Cycle:
		r.Head = Head{Version, KindCycle}
	case *End:
		r.Head = Head{Version, KindEnd}
	case *Error:
		r.Head = Head{Version, KindError}
	case *Pane:
		r.Head = Head{Version, KindPane}
	case *Row:
		r.Head = Head{Version, KindRow}
	}
	// The hand codec appends straight into the buffer's free space.
	if b, ok := appendFast(w.w.AvailableBuffer(), v); ok {
		return w.WriteRaw(b)
	}
	b, err := json.Marshal(v)
	if err != nil {
		w.err = err
		return err
	}
	return w.WriteRaw(b)
}

// WriteRaw passes a line through unchanged (a kind this filter does not handle).
func (w *Writer) WriteRaw(line []byte) error {
	if w.err != nil {
		return w.err
	}
	if _, err := w.w.Write(line); err != nil {
		w.err = err
		return err
	}
	if err := w.w.WriteByte('\n'); err != nil {
		w.err = err
	}
	return w.err
}

// Flush pushes buffered records to the underlying writer.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	w.err = w.w.Flush()
	return w.err
}
