// Command fakeagent paints a screen into its terminal and keeps it there,
// repainting whenever the screen file changes. Tests build it under an
// agent's process name (claude, codex, …) so the process walk finds it.
//
// Usage: <name> <screen-file>
//
// The screen file is a fixture (header, ---, raw bytes) or plain text. A
// header "title" is set as the pane title. An empty file paints nothing.
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
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fakeagent <screen-file>")
		os.Exit(2)
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
