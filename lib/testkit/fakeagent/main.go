// Command fakeagent paints a screen into its terminal and keeps it there,
// repainting whenever the screen file changes. Tests build it under an
// agent's process name (claude, codex, …) so the process walk finds it.
//
// Usage: <name> <screen-file> [<input-log>]
//
// The screen file is a fixture (header, ---, raw bytes) or plain text. A
// header "title" is set as the pane title. An empty file paints nothing.
// With an input log, every byte the terminal delivers is appended to it and
// printable input is echoed where the cursor is, as a composer would show
// it (run it on a raw terminal, `stty raw -echo`, to see keys one by one).
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) != 2 && len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: fakeagent <screen-file> [<input-log>]")
		os.Exit(2)
	}
	if len(os.Args) == 3 {
		go record(os.Args[2])
	}
	// ^C is the agent's to handle (it does not die of it); a hangup, as when
	// the server goes, ends it like any program on a closed terminal.
	signal.Ignore(syscall.SIGINT)
	path := os.Args[1]
	var last []byte
	// SIGUSR2 repaints at once (benchmarks time from the change itself);
	// otherwise the file is polled every 50 ms.
	now := make(chan os.Signal, 1)
	signal.Notify(now, syscall.SIGUSR2)
	parent := os.Getppid()
	for {
		if os.Getppid() != parent {
			return // orphaned: the pane (and its server) went away
		}
		b, err := os.ReadFile(path)
		if err == nil && !bytes.Equal(b, last) {
			last = b
			paint(b)
		}
		select {
		case <-now:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func paint(b []byte) {
	title, body := "", b
	if i := bytes.Index(b, []byte("\n---\n")); i >= 0 && bytes.HasPrefix(b, []byte("# ")) {
		for _, l := range strings.Split(string(b[:i]), "\n") {
			if v, ok := strings.CutPrefix(l, "# title: "); ok {
				title = v
			}
		}
		body = b[i+5:]
	}
	var out bytes.Buffer
	out.WriteString("\x1b[H\x1b[2J")
	if title != "" {
		fmt.Fprintf(&out, "\x1b]2;%s\x1b\\", title)
	}
	body = bytes.TrimRight(body, "\n")
	out.Write(bytes.ReplaceAll(body, []byte("\n"), []byte("\r\n")))
	os.Stdout.Write(out.Bytes())
}

// record appends every input byte to log and echoes the printable ones.
func record(log string) {
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	buf := make([]byte, 4096)
	for {
		n, err := os.Stdin.Read(buf)
		if n > 0 {
			f.Write(buf[:n])
			var echo []byte
			for _, c := range buf[:n] {
				if c >= 0x20 && c != 0x7f {
					echo = append(echo, c)
				}
			}
			os.Stdout.Write(echo)
		}
		if err != nil {
			return
		}
	}
}
