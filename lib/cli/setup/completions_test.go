package setupcmd

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/cli/act"
	"github.com/tmaproject/tma/lib/cli/daemon"
	"github.com/tmaproject/tma/lib/cli/notify"
	"github.com/tmaproject/tma/lib/cli/pick"
	"github.com/tmaproject/tma/lib/cli/serve"
	"github.com/tmaproject/tma/lib/cli/transcript"
	"github.com/tmaproject/tma/lib/cli/view"
	"github.com/tmaproject/tma/lib/cli/wait"
	"github.com/tmaproject/tma/lib/completion"
	"github.com/tmaproject/tma/lib/testkit"
)

// scripts writes each shell's script for the real tree.
func scripts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, sh := range completion.Shells {
		var b, e strings.Builder
		if code := Run([]string{"completions", sh}, strings.NewReader(""), &b, &e); code != 0 {
			t.Fatalf("tma completions %s exited %d: %s", sh, code, e.String())
		}
		out[sh] = b.String()
	}
	return out
}

// The commands shell/tma's usage lists: every one is in the tree and in
// every script, and the internal verbs are in none.
func TestCompletionsCoverTheDispatchersCommands(t *testing.T) {
	src, err := os.ReadFile("../../../shell/tma")
	if err != nil {
		t.Fatal(err)
	}
	usage := string(src)
	usage = usage[strings.Index(usage, "\nCommands:\n")+len("\nCommands:\n"):]
	usage = usage[:strings.Index(usage, "\n\n")]
	var cmds []string
	for _, l := range strings.Split(usage, "\n") {
		col, _, _ := strings.Cut(strings.TrimPrefix(l, "  "), "  ")
		if strings.HasPrefix(l, "   ") || col == "" {
			continue // a continuation line
		}
		for _, alt := range strings.Split(col, " | ") {
			var words []string
			for _, w := range strings.Fields(alt) {
				if strings.HasPrefix(w, "<") || strings.HasPrefix(w, "-") {
					break
				}
				words = append(words, w)
			}
			if p := strings.Join(words, " "); !slices.Contains(cmds, p) {
				cmds = append(cmds, p)
			}
		}
	}
	if len(cmds) < 20 || !slices.Contains(cmds, "debug explain") || !slices.Contains(cmds, "completions") {
		t.Fatalf("read %d commands from shell/tma's usage: %q", len(cmds), cmds)
	}
	root, err := CompletionTree()
	if err != nil {
		t.Fatal(err)
	}
	sc := scripts(t)
	for _, p := range cmds {
		if root.Find(p) == nil {
			t.Errorf("%q is in tma's usage but not in the completion tree", p)
		}
		parent, name := "", p
		if i := strings.LastIndexByte(p, ' '); i >= 0 {
			parent, name = p[:i], p[i+1:]
		}
		if !regexp.MustCompile(`'children:` + parent + `:'\) r='([^']* )?` + name + `( [^']*)?'`).MatchString(sc["bash"]) {
			t.Errorf("bash offers no %q under %q", name, parent)
		}
		if !strings.Contains(sc["zsh"], "'"+name+":") {
			t.Errorf("zsh offers no %q", name)
		}
		if !strings.Contains(sc["fish"], "-n '__tma_at \\'"+parent+"\\'' -a "+name+" ") {
			t.Errorf("fish offers no %q under %q", name, parent)
		}
	}
	for _, internal := range []string{"event", "clear-attention", "supervise", "pick", "preview", "feed", "explain-stamp"} {
		if root.Find(internal) != nil || root.Find("debug "+internal) != nil {
			t.Errorf("internal verb %q is offered", internal)
		}
	}
}

// Every flag each tool's own --help prints for a public command (kong's
// rendering of the same grammar, read independently of the tree) is in
// the tree and in every script; the hidden ones are in none.
func TestCompletionsCoverEveryFlag(t *testing.T) {
	runs := map[string]func([]string, io.Reader, io.Writer, io.Writer) int{}
	for _, r := range routes {
		switch r.name {
		case "ls", "status", "debug explain", "version":
			runs[r.name] = viewcmd.Run
		case "debug notify-test":
			runs[r.name] = notifycmd.Run
		case "debug transitions", "daemon":
			runs[r.name] = daemoncmd.Run
		case "jump", "attach", "watch":
			runs[r.name] = pickcmd.Run
		case "act", "receipts", "mute":
			runs[r.name] = actcmd.Run
		case "wait", "subscribe":
			runs[r.name] = waitcmd.Run
		case "serve":
			runs[r.name] = servecmd.Run
		case "transcript":
			runs[r.name] = transcriptcmd.Run
		default:
			runs[r.name] = Run
		}
	}
	root, err := CompletionTree()
	if err != nil {
		t.Fatal(err)
	}
	sc := scripts(t)
	// A flag starts kong's flag column; a help line's wrap is indented further.
	flagRE := regexp.MustCompile(`(?m)^  (?:-\w, |    )--([a-z0-9-]+)`)
	total := 0
	for _, r := range routes {
		var out strings.Builder
		args := append(strings.Fields(r.path), "--help")
		if r.path == "daemon" {
			args = []string{"--help"} // tma-daemon's default command
		}
		if code := runs[r.name](args, strings.NewReader(""), &out, io.Discard); code != 0 {
			t.Fatalf("%s --help exited %d", r.name, code)
		}
		c := root.Find(r.name)
		for _, m := range flagRE.FindAllStringSubmatch(out.String(), -1) {
			flag := m[1]
			if flag == "help" {
				continue
			}
			total++
			if c.Flag(flag) == nil && root.Flag(flag) == nil {
				t.Errorf("tma %s --help lists --%s; the completion tree has not", r.name, flag)
			}
			if !regexp.MustCompile(`'flags:` + r.name + `:'\) r='[^']*--` + flag + `[ ']`).MatchString(sc["bash"]) {
				t.Errorf("bash does not offer --%s on %s", flag, r.name)
			}
			if !strings.Contains(sc["fish"], "-n '__tma_at \\'"+r.name+"\\'' -l "+flag+" ") {
				t.Errorf("fish does not offer --%s on %s", flag, r.name)
			}
			if !regexp.MustCompile(`'flags:` + r.name + `'\) reply=\([^\n]*'--` + flag + `:`).MatchString(sc["zsh"]) {
				t.Errorf("zsh does not offer --%s on %s", flag, r.name)
			}
		}
	}
	if total < 80 {
		t.Errorf("only %d flags read from the tools' help", total)
	}
	for _, h := range [][2]string{{"status", "from-daemon"}, {"daemon", "detached"}, {"daemon", "upgrade"}, {"watch", "print"}, {"watch", "in-session"}, {"watch", "origin"}} {
		if root.Find(h[0]).Flag(h[1]) != nil {
			t.Errorf("the hidden --%s of %s is in the tree", h[1], h[0])
		}
		if regexp.MustCompile(`'flags:`+h[0]+`:'\) r='[^']*--`+h[1]+`[ ']`).MatchString(sc["bash"]) ||
			strings.Contains(sc["fish"], "-n '__tma_at \\'"+h[0]+"\\'' -l "+h[1]+" ") ||
			regexp.MustCompile(`'flags:`+h[0]+`'\) reply=\([^\n]*'--`+h[1]+`:`).MatchString(sc["zsh"]) {
			t.Errorf("a script offers the hidden --%s of %s", h[1], h[0])
		}
	}
}

// The fixed value sets the manual names are offered.
func TestCompletionsValueSets(t *testing.T) {
	b := scripts(t)["bash"]
	for _, want := range []string{
		"'list:ls:--state') r='idle working blocked unknown done'",
		"'list:wait:--until') r='idle working blocked unknown done'",
		"'values:install-hooks:--wrapper-ref') r='bare absolute'",
		"'values:status:--format') r='tmux plain json prom'",
		"'args:completions:') r='bash zsh fish'",
	} {
		if !strings.Contains(b, want) {
			t.Errorf("bash script lacks %s", want)
		}
	}
	for _, runtime := range []string{"'values:ls:--agent'", "'values:ls:--session'", "'args:act:'", "'args:install-hooks:'"} {
		if strings.Contains(b, runtime) {
			t.Errorf("a runtime value is offered: %s", runtime)
		}
	}
}

// Each shell parses its script (bash always, zsh and fish where
// installed) and offers what a user expects at a few cursors.
func TestCompletionsWork(t *testing.T) {
	testkit.Need(t, "bash")
	dir := t.TempDir()
	files := map[string]string{}
	for sh, s := range scripts(t) {
		files[sh] = filepath.Join(dir, "tma."+sh)
		if err := os.WriteFile(files[sh], []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		words []string // the last is the word under the cursor
		want  []string
	}{
		{[]string{"tma", "debug", ""}, []string{"explain", "notify-test", "transitions"}},
		{[]string{"tma", "-L", "work", "status", "--format", ""}, []string{"tmux", "plain", "json", "prom"}},
		{[]string{"tma", "wait", "--until", "idle,bl"}, []string{"idle,blocked"}},
		{[]string{"tma", "install-hooks", "--wrapper-ref", ""}, []string{"bare", "absolute"}},
		{[]string{"tma", "completions", ""}, []string{"bash", "zsh", "fish"}},
		{[]string{"tma", "ls", "--agent", ""}, nil},
	}
	check := func(sh string, got, want []string, words []string) {
		t.Helper()
		got, want = slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
		if !slices.Equal(got, want) {
			t.Errorf("%s: %q offers %q, want %q", sh, words, got, want)
		}
	}
	checks := map[string][]string{"bash": {"bash", "-n"}, "zsh": {"zsh", "-n"}, "fish": {"fish", "--no-execute"}}
	for _, sh := range completion.Shells {
		argv := checks[sh]
		if _, err := exec.LookPath(argv[0]); err != nil {
			t.Logf("%s is not installed: its script was not checked", sh)
			continue
		}
		if out, err := exec.Command(argv[0], append(argv[1:], files[sh])...).CombinedOutput(); err != nil {
			t.Fatalf("%s rejects its script: %v\n%s", sh, err, out)
		}
		for _, c := range cases {
			var cmd *exec.Cmd
			switch sh {
			case "bash":
				cmd = exec.Command("bash", append([]string{"-c", `source "$1"; shift; COMP_CWORD=$(($# - 1)); COMP_WORDS=("$@"); _tma; printf '%s\n' "${COMPREPLY[@]}"`, "bash", files[sh]}, c.words...)...)
			case "zsh":
				cmd = exec.Command("zsh", append([]string{"-f", "-c", zshDriver, "zsh", files[sh]}, c.words...)...)
			case "fish":
				line := strings.Join(c.words, " ")
				cmd = exec.Command("fish", "--no-config", "-c", "source $argv[1]; complete -C $argv[2] | string replace -r '\\t.*' ''; true", files[sh], line)
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s %q: %v\n%s", sh, c.words, err, out)
			}
			check(sh, strings.Fields(string(out)), c.want, c.words)
		}
	}
}

// zshDriver runs the zsh script's _tma outside a completion widget, with
// the compsys builtins it calls standing in as printers.
const zshDriver = `
compdef() {}
compadd() { while [[ $1 == -* && $1 != -- ]]; do [[ $1 == -S ]] && shift; shift; done; [[ $1 == -- ]] && shift; print -rl -- "$@"; }
_describe() { local -a items; items=("${(@P)${@[-1]}}"); print -rl -- "${items[@]%%:*}"; }
compset() { [[ $1 == -P && $2 == '*,' && $words[CURRENT] == *,* ]] || return 1; print -r -- "${words[CURRENT]%,*},"; }
_files() { print -r -- files; }
source $1; shift
words=("$@"); CURRENT=$#
# compsys filters by what is typed; the stand-ins do not, so filter here.
cur=${words[CURRENT]} pre=
_tma | while read -r l; do if [[ $l == *, ]]; then pre=$l; elif [[ $pre$l == $cur* ]]; then print -r -- $pre$l; fi; done
`
