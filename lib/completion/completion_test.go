package completion

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tmaproject/tma/lib/testkit"
)

// A grammar shaped like the tools': globals on the application, commands
// with selectors, an enum, a hidden flag and a hidden command.
type sampleCLI struct {
	Socket string `name:"socket-name" short:"L" placeholder:"NAME" help:"tmux server socket name."`
	Config string `name:"config" placeholder:"PATH" help:"config file. More words here."`
	Ls     struct {
		State *string `name:"state" placeholder:"STATES" help:"comma-separated states."`
		JSON  bool    `name:"json" help:"print the schema-1 document."`
	} `cmd:"" help:"list agent rows."`
	Status struct {
		Format string `name:"format" enum:"tmux,plain,json" default:"tmux" help:"tmux, plain or json."`
		Daemon bool   `name:"from-daemon" hidden:"" help:"internal."`
	} `cmd:"" help:"print state counts."`
	Debug struct {
		Explain struct {
			Pane string `arg:"" help:"the pane."`
		} `cmd:"" help:"explain one pane's verdict."`
		Stamp struct{} `cmd:"" hidden:"" help:"internal."`
	} `cmd:"" help:"inspection tools."`
	Shell struct {
		Name string `arg:"" optional:"" enum:"bash,zsh,fish," default:"" help:"the shell."`
		Dir  string `name:"dir" placeholder:"DIR" help:"a directory."`
	} `cmd:"" help:"a command with a fixed argument. It's 'quoted' \\ here."`
}

func sample(t *testing.T) *Command {
	t.Helper()
	root, err := FromKong(&sampleCLI{}, "")
	if err != nil {
		t.Fatal(err)
	}
	root.Find("ls").Flag("state").Values = []string{"idle", "working", "blocked"}
	root.Find("ls").Flag("state").List = true
	return root
}

func TestFromKong(t *testing.T) {
	root := sample(t)
	var paths []string
	root.Walk(func(p string, c *Command) { paths = append(paths, p) })
	if want := []string{"", "ls", "status", "debug", "debug explain", "shell"}; !slices.Equal(paths, want) {
		t.Errorf("commands %q, want %q (hidden ones left out)", paths, want)
	}
	if f := root.Find("status").Flag("format"); f == nil || !f.Value || !slices.Equal(f.Values, []string{"tmux", "plain", "json"}) {
		t.Errorf("--format = %+v", f)
	}
	if root.Find("status").Flag("from-daemon") != nil {
		t.Error("a hidden flag made the tree")
	}
	if f := root.Find("ls").Flag("json"); f == nil || f.Value {
		t.Errorf("--json = %+v", f)
	}
	if f := root.Flag("config"); f == nil || !f.Files || root.Flag("socket-name").Short != 'L' {
		t.Errorf("globals = %+v", root.Flags)
	}
	if got := root.Find("shell").Args; !slices.Equal(got, []string{"bash", "zsh", "fish"}) {
		t.Errorf("shell args = %q", got)
	}
	if root.Flag("help") != nil {
		t.Error("kong's --help made the tree (the scripts add their own)")
	}
	if _, err := FromKong(&sampleCLI{}, "nope"); err == nil {
		t.Error("a missing command path was accepted")
	}
}

func TestUnsafeWordsRefused(t *testing.T) {
	root := sample(t)
	root.Find("status").Flag("format").Values = []string{"json", "a'b"}
	for _, sh := range Shells {
		if err := Write(&strings.Builder{}, sh, root); err == nil || !strings.Contains(err.Error(), "a'b") {
			t.Errorf("%s: a value with a quote was written (%v)", sh, err)
		}
	}
	if err := Write(&strings.Builder{}, "elvish", root); err == nil || !strings.Contains(err.Error(), "bash, zsh, fish") {
		t.Errorf("elvish: %v", err)
	}
}

func script(t *testing.T, shell string, root *Command) string {
	t.Helper()
	var b strings.Builder
	if err := Write(&b, shell, root); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "tma."+shell)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkSyntax runs each shell's own parser on its script (make deps
// provides all three shells).
func checkSyntax(t *testing.T, root *Command) {
	t.Helper()
	checks := map[string][]string{"bash": {"bash", "-n"}, "zsh": {"zsh", "-n"}, "fish": {"fish", "--no-execute"}}
	for _, sh := range Shells {
		argv := checks[sh]
		testkit.Need(t, argv[0])
		p := script(t, sh, root)
		if out, err := exec.Command(argv[0], append(argv[1:], p)...).CombinedOutput(); err != nil {
			t.Errorf("%s rejects its script: %v\n%s", sh, err, out)
		}
	}
}

func TestSyntax(t *testing.T) { checkSyntax(t, sample(t)) }

// bashComplete runs the bash script's function on words (as bash splits
// them, the last one the word under the cursor) and returns its offers.
func bashComplete(t *testing.T, scriptPath string, words ...string) []string {
	t.Helper()
	driver := `source "$1"; shift; COMP_CWORD=$(($# - 1)); COMP_WORDS=("$@"); _tma; printf '%s\n' "${COMPREPLY[@]}"`
	out, err := exec.Command("bash", append([]string{"-c", driver, "bash", scriptPath}, words...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("bash completion of %q: %v\n%s", words, err, out)
	}
	return strings.Fields(string(out))
}

func TestBashOffers(t *testing.T) {
	testkit.Need(t, "bash")
	p := script(t, "bash", sample(t))
	cases := []struct {
		words []string
		want  []string
	}{
		{[]string{"tma", ""}, []string{"ls", "status", "debug", "shell"}},
		{[]string{"tma", "st"}, []string{"status"}},
		{[]string{"tma", "debug", ""}, []string{"explain"}},
		{[]string{"tma", "-L", "sock", "debug", ""}, []string{"explain"}},
		{[]string{"tma", "--config", "debug", "ls", ""}, nil}, // "debug" was --config's value; ls has no subcommands
		{[]string{"tma", "status", "--"}, []string{"--format", "--socket-name", "--config", "--help"}},
		{[]string{"tma", "status", "--format", ""}, []string{"tmux", "plain", "json"}},
		{[]string{"tma", "status", "--format", "=", "j"}, []string{"json"}},
		{[]string{"tma", "status", "--format=p"}, []string{"--format=plain"}},
		{[]string{"tma", "ls", "--state", "idle,w"}, []string{"idle,working"}},
		{[]string{"tma", "ls", "--json", ""}, nil},
		{[]string{"tma", "shell", ""}, []string{"bash", "zsh", "fish"}},
		{[]string{"tma", "ls", "-L", ""}, nil}, // a socket name is the user's: nothing offered
	}
	for _, c := range cases {
		got := bashComplete(t, p, c.words...)
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.words, got, c.want)
		}
	}
}

// fishComplete asks fish itself what it completes for a command line.
func fishComplete(t *testing.T, scriptPath, line string) []string {
	t.Helper()
	out, err := exec.Command("fish", "--no-config", "-c", "source $argv[1]; complete -C $argv[2]", scriptPath, line).CombinedOutput()
	if err != nil {
		t.Fatalf("fish completion of %q: %v\n%s", line, err, out)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if w, _, _ := strings.Cut(l, "\t"); w != "" {
			got = append(got, w)
		}
	}
	return got
}

func TestFishOffers(t *testing.T) {
	testkit.Need(t, "fish")
	p := script(t, "fish", sample(t))
	cases := map[string][]string{
		"tma ":                  {"debug", "ls", "shell", "status"},
		"tma debug ":            {"explain"},
		"tma -L x debug ":       {"explain"},
		"tma status --format ":  {"json", "plain", "tmux"},
		"tma ls --state idle,w": {"idle,working"},
		"tma shell ":            {"bash", "fish", "zsh"},
	}
	for line, want := range cases {
		got := fishComplete(t, p, line)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", line, got, want)
		}
	}
	if got := fishComplete(t, p, "tma status --f"); !slices.Contains(got, "--format") || slices.Contains(got, "--from-daemon") {
		t.Errorf("status flags = %q", got)
	}
}

func TestLocations(t *testing.T) {
	var b strings.Builder
	if err := WriteLocations(&b); err != nil {
		t.Fatal(err)
	}
	for _, l := range Locations {
		if !strings.Contains(b.String(), "~/"+l.Dir+"/"+l.File) {
			t.Errorf("%s's location missing:\n%s", l.Shell, b.String())
		}
	}
	if !strings.Contains(b.String(), "fpath=(~/.local/share/zsh/site-functions $fpath)") {
		t.Errorf("zsh's fpath line missing:\n%s", b.String())
	}
}
