package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"syscall"
)

// The per-call budgets. MaxRead counts every byte read from disk (the
// head, the records, the probes a cursor check makes); MaxHeaders the
// JSON of the headers served (bodies are not counted: they are bounded by
// MaxRead).
const (
	MaxRead    = 1 << 20
	MaxHeaders = 32 << 10

	headLen  = 4 << 10  // what a cursor's head hash covers
	metaLen  = 64 << 10 // the longest first record read for the session
	chunkLen = 64 << 10 // one backward read
)

// DefaultLast is --last's default.
const DefaultLast = 20

// Request is one call: a page (Last events before Before, or from the
// end) or, with Event set, one event with its body.
type Request struct {
	Last    int
	Before  string
	Event   string
	Headers bool
}

// adapter turns one record into its events, oldest first, and says what
// the record tells of the session. It never fails: a record it does not
// know is one Unknown event.
type adapter func(line []byte) ([]Event, Session)

var errBudget = errors.New("read budget spent")

// reader reads one file within the read budget.
type reader struct {
	f    *os.File
	size int64
	read int64
}

func (r *reader) at(off int64, n int) ([]byte, error) {
	if r.read+int64(n) > MaxRead {
		return nil, errBudget
	}
	buf := make([]byte, n)
	got, err := r.f.ReadAt(buf, off)
	r.read += int64(got)
	if err != nil && !(errors.Is(err, io.EOF) && got == n) {
		if errors.Is(err, io.EOF) {
			return buf[:got], nil
		}
		return nil, err
	}
	return buf, nil
}

// backward yields the records of [0, end) last first. A record is a line
// without its newline; blank lines are skipped by the caller.
type backward struct {
	r        *reader
	bufStart int64
	buf      []byte // bytes [bufStart, bufStart+len(buf))
	end      int64  // where the next record to yield ends (its newline excluded)
}

func newBackward(r *reader, end int64) *backward {
	return &backward{r: r, bufStart: end, end: end}
}

// prev returns the record that ends at b.end. ok is false at the head.
func (b *backward) prev() (start int64, line []byte, ok bool, err error) {
	for {
		if b.end <= 0 {
			return 0, nil, false, nil
		}
		local := int(b.end - b.bufStart)
		if i := bytes.LastIndexByte(b.buf[:local], '\n'); i >= 0 {
			start = b.bufStart + int64(i) + 1
			line = b.buf[i+1 : local]
			b.end = start - 1 // the newline before this record ends the next one
			return start, line, true, nil
		}
		if b.bufStart == 0 {
			line = b.buf[:local]
			b.end = -1
			return 0, line, true, nil
		}
		n := int64(chunkLen)
		if grow := int64(len(b.buf)); grow > n {
			n = grow // a long record: double what is held instead of crawling
		}
		if n > b.bufStart {
			n = b.bufStart
		}
		more, err := b.r.at(b.bufStart-n, int(n))
		if err != nil {
			return 0, nil, false, err
		}
		b.buf = append(more, b.buf[:local]...)
		b.bufStart -= n
	}
}

// forward reads the record that starts at off.
func (r *reader) forward(off int64) ([]byte, error) {
	var acc []byte
	for pos := off; pos < r.size; {
		n := int64(chunkLen)
		if pos+n > r.size {
			n = r.size - pos
		}
		b, err := r.at(pos, int(n))
		if err != nil {
			return nil, err
		}
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			return append(acc, b[:i]...), nil
		}
		acc = append(acc, b...)
		pos += n
	}
	return nil, io.ErrUnexpectedEOF // no newline: the record is still being written
}

// jsonlFile is one opened store file and its identity.
type jsonlFile struct {
	r     *reader
	inode uint64
	head  []byte // the first min(size, metaLen) bytes
}

func openJSONL(path string) (*jsonlFile, *Refusal) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ioRefusal(path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, ioRefusal(path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, refuse(CodeIOError, "%s is not a regular file", path)
	}
	jf := &jsonlFile{r: &reader{f: f, size: fi.Size()}}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		jf.inode = uint64(st.Ino)
	}
	n := fi.Size()
	if n > metaLen {
		n = metaLen
	}
	if jf.head, err = jf.r.at(0, int(n)); err != nil {
		f.Close()
		return nil, ioRefusal(path, err)
	}
	return jf, nil
}

func (jf *jsonlFile) close() { jf.r.f.Close() }

func headHash(head []byte, size int64) uint32 {
	n := int64(len(head))
	if size < n {
		n = size
	}
	if n > headLen {
		n = headLen
	}
	return crc32.ChecksumIEEE(head[:n])
}

func (jf *jsonlFile) cursor(off int64, idx int) string {
	return fileCursor{Inode: jf.inode, Head: headHash(jf.head, jf.r.size), Size: jf.r.size, Offset: off, Index: idx}.String()
}

// check refuses a cursor minted against another file than this one.
func (jf *jsonlFile) check(s string) (fileCursor, *Refusal) {
	c, err := parseFileCursor(s)
	if err != nil {
		return c, refuse(CodeCursorInvalid, "%v", err)
	}
	switch {
	case c.Inode != jf.inode:
		return c, refuse(CodeCursorInvalid, "the transcript was replaced since the cursor was minted (another file now stands at its path); re-request without --before")
	case c.Size > jf.r.size:
		return c, refuse(CodeCursorInvalid, "the transcript shrank since the cursor was minted (%d bytes then, %d now: truncated or compacted); re-request without --before", c.Size, jf.r.size)
	case headHash(jf.head, c.Size) != c.Head:
		return c, refuse(CodeCursorInvalid, "the transcript was rewritten since the cursor was minted; re-request without --before")
	}
	if c.Offset > 0 {
		b, err := jf.r.at(c.Offset-1, 1)
		if err != nil || len(b) != 1 || b[0] != '\n' {
			return c, refuse(CodeCursorInvalid, "the cursor does not address a record of this transcript")
		}
	}
	return c, nil
}

// jsonlPage serves one page or one event of a JSONL store.
func jsonlPage(path string, ad adapter, req Request) (*Page, *Refusal) {
	jf, ref := openJSONL(path)
	if ref != nil {
		return nil, ref
	}
	defer jf.close()
	p := &Page{Path: path}
	defer func() { p.ReadBytes = jf.r.read }()
	if req.Event != "" {
		return jsonlEvent(jf, p, ad, req)
	}
	last := req.Last
	if last <= 0 {
		last = DefaultLast
	}
	g := &pager{p: p, last: last, headers: req.Headers}
	// take adds the events of the record at start below index below,
	// newest first; it reports a full page.
	take := func(start int64, evs []Event, below int) bool {
		for j := below - 1; j >= 0; j-- {
			if g.add(evs[j], jf.cursor(start, j), j > 0 || start > 0) {
				return true
			}
		}
		return false
	}
	end := jf.r.size
	// A last record with no newline yet is one the agent is still
	// writing: it is left for a later call rather than read half-written.
	skipTail := end > 0 && !endsInNewline(jf)
	if req.Before != "" {
		c, ref := jf.check(req.Before)
		if ref != nil {
			return nil, ref
		}
		skipTail = false
		end = c.Offset - 1 // the newline that ends the record before it
		if c.Index > 0 {
			line, err := jf.r.forward(c.Offset)
			if err != nil {
				return nil, readRefusal(path, c.Offset, err)
			}
			evs, meta := ad(line)
			p.Session.fill(meta)
			if c.Index > len(evs) {
				return nil, refuse(CodeCursorInvalid, "the cursor names event %d of a record that yields %d", c.Index, len(evs))
			}
			if take(c.Offset, evs, c.Index) {
				return finishJSONL(jf, p, ad), nil
			}
		}
	}
	if end < 0 {
		end = 0
	}
	bw := newBackward(jf.r, end)
	var consumed int64 = -1
	for {
		start, line, ok, err := bw.prev()
		if errors.Is(err, errBudget) {
			p.BudgetTruncated = true
			switch {
			case len(p.Events) > 0:
				p.Older = p.Events[len(p.Events)-1].Cursor
			case consumed >= 0:
				p.Older = jf.cursor(consumed, 0)
			default:
				return nil, refuse(CodeRecordTooLarge, "%s: the record ending at byte %d is larger than the %d-byte read budget", path, bw.end, MaxRead)
			}
			break
		}
		if err != nil {
			return nil, ioRefusal(path, err)
		}
		if !ok {
			break
		}
		if skipTail {
			skipTail = false
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		consumed = start
		evs, meta := ad(line)
		p.Session.fill(meta)
		if take(start, evs, len(evs)) {
			break
		}
	}
	return finishJSONL(jf, p, ad), nil
}

func endsInNewline(jf *jsonlFile) bool {
	b, err := jf.r.at(jf.r.size-1, 1)
	return err == nil && len(b) == 1 && b[0] == '\n'
}

// finishJSONL fills what the page's records left of the session from the
// store's first record.
func finishJSONL(jf *jsonlFile, p *Page, ad adapter) *Page {
	// The head is already in memory: its records fill what the page's
	// did not say (claude's first records carry no cwd or version).
	rest := jf.head
	for !p.Session.complete() {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		if line := rest[:i]; len(bytes.TrimSpace(line)) > 0 {
			_, meta := ad(line)
			p.Session.fill(meta)
		}
		rest = rest[i+1:]
	}
	return p
}

func jsonlEvent(jf *jsonlFile, p *Page, ad adapter, req Request) (*Page, *Refusal) {
	c, ref := jf.check(req.Event)
	if ref != nil {
		return nil, ref
	}
	line, err := jf.r.forward(c.Offset)
	if err != nil {
		return nil, readRefusal(p.Path, c.Offset, err)
	}
	evs, meta := ad(line)
	p.Session.fill(meta)
	if c.Index >= len(evs) {
		return nil, refuse(CodeCursorInvalid, "the cursor names event %d of a record that yields %d", c.Index, len(evs))
	}
	e := evs[c.Index]
	e.Cursor = jf.cursor(c.Offset, c.Index)
	e.NoBody = req.Headers
	e.finish()
	if e.Kind == Unknown {
		p.Unknown = 1
	}
	p.Events = []Event{e}
	return finishJSONL(jf, p, ad), nil
}

func ioRefusal(path string, err error) *Refusal {
	if errors.Is(err, os.ErrNotExist) {
		return refuse(CodeNoTranscript, "%s does not exist", path)
	}
	return refuse(CodeIOError, "%v", err)
}

func readRefusal(path string, off int64, err error) *Refusal {
	switch {
	case errors.Is(err, errBudget):
		return refuse(CodeRecordTooLarge, "%s: the record at byte %d is larger than the %d-byte read budget", path, off, MaxRead)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return refuse(CodeCursorInvalid, "%s: the record at byte %d has no end", path, off)
	}
	return refuse(CodeIOError, "%s: %v", path, fmt.Sprint(err))
}
