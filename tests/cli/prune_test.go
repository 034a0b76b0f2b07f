package cli

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/tmaproject/tma/lib/cli/act"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/cli/daemon"
	"github.com/tmaproject/tma/lib/cli/notify"
	"github.com/tmaproject/tma/lib/cli/pick"
	"github.com/tmaproject/tma/lib/cli/scan"
	"github.com/tmaproject/tma/lib/cli/serve"
	"github.com/tmaproject/tma/lib/cli/setup"
	"github.com/tmaproject/tma/lib/cli/view"
	"github.com/tmaproject/tma/lib/cli/wait"
)

// The grammars common.Parse prunes: every tool with subcommands, and one
// without (scan) that must parse as before.
var grammars = map[string]func() any{
	"tma-act": actcmd.Grammar, "tma-daemon": daemoncmd.Grammar, "tma-notify": notifycmd.Grammar,
	"tma-pick": pickcmd.Grammar, "tma-scan": scancmd.Grammar, "tma-serve": servecmd.Grammar,
	"tma-setup": setupcmd.Grammar, "tma-view": viewcmd.Grammar, "tma-wait": waitcmd.Grammar,
}

type parsed struct {
	code    int
	ok      bool
	command string
	out     string
	cli     any
	model   *kong.Application
}

func parseWith(f func(*common.Env, any, string, []string) (*kong.Context, int, bool), tool string, cli any, argv []string) parsed {
	var out, errb bytes.Buffer
	e := common.NewEnv(tool, nil, &out, &errb)
	kctx, code, ok := f(e, cli, "a tool", argv)
	p := parsed{code: code, ok: ok, out: out.String() + "\x00" + errb.String(), cli: cli}
	if kctx != nil {
		p.command, p.model = kctx.Command(), kctx.Model
	}
	return p
}

// TestPrunedParseIsWhole holds common.Parse, which gives kong only the
// subcommand the words name, to the whole grammar's parse: the same exit,
// the same words said, the same command, and the same values in the root's
// flags and the selected command (the one part a pruned parse leaves
// unlike: unselected commands keep zero values instead of their defaults).
func TestPrunedParseIsWhole(t *testing.T) {
	pruned := 0
	for tool, grammar := range grammars {
		for _, argv := range corpus(t, grammar()) {
			whole := parseWith(common.ParseWhole, tool, grammar(), argv)
			got := parseWith(common.Parse, tool, grammar(), argv)
			name := tool + " " + strings.Join(argv, " ")
			if got.code != whole.code || got.ok != whole.ok || got.command != whole.command {
				t.Errorf("%s: pruned exit %d ok %v command %q; whole exit %d ok %v command %q",
					name, got.code, got.ok, got.command, whole.code, whole.ok, whole.command)
				continue
			}
			if got.out != whole.out {
				t.Errorf("%s: pruned said\n%q\nwhole said\n%q", name, got.out, whole.out)
			}
			if d := diffSelected(got.cli, whole.cli, whole.command); d != "" {
				t.Errorf("%s: %s", name, d)
			}
			if got.model != nil && len(got.model.Children) < len(whole.model.Children) {
				pruned++
			}
		}
	}
	// The point of it: the plain forms a status line and a keystroke run
	// are pruned (a decline is always safe, so only this can notice one).
	for _, c := range []struct {
		tool string
		argv []string
	}{
		{"tma-view", []string{"status", "--format", "plain"}},
		{"tma-view", []string{"--socket-name=s", "ls", "--json"}},
		{"tma-pick", []string{"-L", "s", "jump", "--pane", "%1"}},
		{"tma-setup", []string{"doctor"}},
	} {
		p := parseWith(common.Parse, c.tool, grammars[c.tool](), c.argv)
		if p.model == nil || len(p.model.Children) != 1 {
			t.Errorf("%s %v: not pruned (model %v)", c.tool, c.argv, p.model)
		}
	}
	if pruned == 0 {
		t.Error("no parse of the corpus was pruned")
	}
}

// diffSelected compares the root's non-command fields and the selected
// command's field.
func diffSelected(got, want any, command string) string {
	gv, wv := reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem()
	first, _, _ := strings.Cut(command, " ")
	found := command == ""
	for i := 0; i < wv.NumField(); i++ {
		f := wv.Type().Field(i)
		if _, isCmd := f.Tag.Lookup("cmd"); isCmd {
			name := f.Tag.Get("name")
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			if name != first && !strings.EqualFold(strings.ReplaceAll(first, "-", ""), f.Name) {
				continue
			}
			found = true
		}
		if !reflect.DeepEqual(gv.Field(i).Interface(), wv.Field(i).Interface()) {
			return fmt.Sprintf("field %s: pruned %+v, whole %+v", f.Name, gv.Field(i).Interface(), wv.Field(i).Interface())
		}
	}
	if !found {
		// Else the selected command's values would go uncompared.
		return fmt.Sprintf("no field of %T is the selected command %q", want, first)
	}
	return ""
}

// corpus is argvs drawn from the grammar's own model: each command alone,
// with root flags before it, with each of its flags (and a value), with a
// nested command, with words it does not know; and help.
func corpus(t *testing.T, grammar any) [][]string {
	k, err := kong.New(grammar, kong.Exit(func(int) {}), kong.Vars{"version": common.Version})
	if err != nil {
		t.Fatal(err)
	}
	value := func(f *kong.Flag) []string {
		if f.IsBool() || f.IsCounter() {
			return nil
		}
		if f.Enum != "" {
			return []string{strings.Split(f.Enum, ",")[0]}
		}
		if f.Default != "" {
			return []string{f.Default}
		}
		return []string{"1"}
	}
	out := [][]string{{}, {"--help"}, {"--bogus"}, {"nope"}}
	var add func(prefix []string, n *kong.Node)
	add = func(prefix []string, n *kong.Node) {
		for _, c := range n.Children {
			w := append(append([]string{}, prefix...), c.Name)
			out = append(out, w,
				append(append([]string{}, w...), "--help"),
				append(append([]string{}, w...), "--bogus"),
				append(append([]string{}, w...), "x", "y", "z"),
				append([]string{"-L", "s"}, w...),
				append([]string{"--socket-name=s", "--config", "/nonexistent"}, w...),
				append([]string{"--bogus"}, w...),
				append(append([]string{}, w...), "%5"),
			)
			for _, f := range c.Flags {
				out = append(out, append(append(append([]string{}, w...), "--"+f.Name), value(f)...))
				if f.Short != 0 {
					out = append(out, append(append(append([]string{}, w...), "-"+string(f.Short)), value(f)...))
				}
			}
			add(w, c)
		}
	}
	add(nil, k.Model.Node)
	return out
}
