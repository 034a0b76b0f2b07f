package serve

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// MaxLog is the size at which the log is rotated to <log>.1 (one old file
// kept), so the daemon never holds more than twice this on disk.
const MaxLog = 1 << 20

// Log is the daemon's log: timestamped lines appended to a 0600 file,
// rotated at MaxLog, and echoed to a writer in the foreground.
type Log struct {
	mu   sync.Mutex
	path string
	f    *os.File
	size int64
	echo io.Writer
}

// OpenLog opens (creating 0600) the log at path; echo may be nil.
func OpenLog(path string, echo io.Writer) (*Log, error) {
	l := &Log{path: path, echo: echo}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Log) open() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	// A file made by an older run under a looser umask is made private.
	_ = f.Chmod(0o600)
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	l.f, l.size = f, st.Size()
	return nil
}

// Printf writes one line.
func (l *Log) Printf(format string, a ...any) {
	line := time.Now().Format("2006-01-02T15:04:05.000Z07:00") + " " + fmt.Sprintf(format, a...)
	line = string(bytes.TrimRight([]byte(line), "\n")) + "\n"
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.echo != nil {
		_, _ = io.WriteString(l.echo, line)
	}
	if l.f == nil {
		return
	}
	if l.size+int64(len(line)) > MaxLog {
		_ = l.f.Close()
		_ = os.Rename(l.path, l.path+".1")
		if err := l.open(); err != nil {
			l.f = nil
			return
		}
	}
	n, _ := l.f.WriteString(line)
	l.size += int64(n)
}

// Close closes the file.
func (l *Log) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
}

// lineWriter turns a stage's stderr into log lines with its name.
type lineWriter struct {
	log  *Log
	name string
	buf  []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		if line := bytes.TrimSpace(w.buf[:i]); len(line) > 0 {
			w.log.Printf("%s: %s", w.name, line)
		}
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > 4096 { // a line that never ends is still logged, in pieces
		w.log.Printf("%s: %s", w.name, w.buf)
		w.buf = w.buf[:0]
	}
	return len(p), nil
}
