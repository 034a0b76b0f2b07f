// Command fakeagent paints a screen into its terminal and keeps it there,
// repainting whenever the screen file changes. Tests build it under an
// agent's process name (claude, codex, …) so the process walk finds it.
//
// Usage: <name> <screen-file> [<input-log>]
//
// The screen file is a fixture (header, ---, raw bytes) or plain text. A
// header "title" is set as the pane title; a header "width" (the fixture's
// own) lets a line that ends in a background colour run on to the edge, as
// the agent painted it (see pad). An empty file paints nothing.
// With an input log, every byte the terminal delivers is appended to it and
// printable input is echoed where the cursor is, as a composer would show
// it (run it on a raw terminal, `stty raw -echo`, to see keys one by one).
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strconv"
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
	title, body, width := "", b, 0
	if i := bytes.Index(b, []byte("\n---\n")); i >= 0 && bytes.HasPrefix(b, []byte("# ")) {
		for _, l := range strings.Split(string(b[:i]), "\n") {
			if v, ok := strings.CutPrefix(l, "# title: "); ok {
				title = v
			}
			if v, ok := strings.CutPrefix(l, "# width: "); ok {
				width, _ = strconv.Atoi(strings.TrimSpace(v))
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
	for i, l := range bytes.Split(body, []byte("\n")) {
		if i > 0 {
			out.WriteString("\r\n")
		}
		out.Write(l)
		out.WriteString(pad(l, width))
	}
	os.Stdout.Write(out.Bytes())
}

// sgrEnd matches a line that ends by setting a background colour.
var sgrEnd = regexp.MustCompile(`\x1b\[[0-9;:]*\b4[0-8][0-9;:]*m$`)

// pad is the spaces a full-screen agent painted after a line that ends in
// a background colour: its capture ended with that colour's escape, which
// stops capture-pane trimming the spaces before it (OpenCode's /connect
// box pads its rows so). Painted as bare text the row's rest would be
// blank cells, and the replay's capture would lose those spaces. Only with
// the fixture's width (the header's "# width:"), and never past it.
func pad(line []byte, width int) string {
	if width <= 0 || !sgrEnd.Match(line) {
		return ""
	}
	n := 0
	for _, r := range string(csi.ReplaceAll(line, nil)) {
		n++
		if wide(r) {
			n++
		}
	}
	if n >= width {
		return ""
	}
	return strings.Repeat(" ", width-n)
}

var csi = regexp.MustCompile(`\x1b(\[[0-9;:?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\))`)

// wide: the runes a terminal gives two columns (East Asian wide and
// fullwidth forms, and the emoji blocks), enough for the screens replayed.
func wide(r rune) bool {
	return r >= 0x1100 && r <= 0x115f || r >= 0x2e80 && r <= 0xa4cf || r >= 0xac00 && r <= 0xd7a3 ||
		r >= 0xf900 && r <= 0xfaff || r >= 0xfe30 && r <= 0xfe4f || r >= 0xff00 && r <= 0xff60 ||
		r >= 0xffe0 && r <= 0xffe6 || r >= 0x1f300 && r <= 0x1faff || r >= 0x20000 && r <= 0x3fffd
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
