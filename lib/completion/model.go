package completion

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/kong"
)

// Command is one node of the tree a script completes: a command's name,
// its flags, the fixed values its positional argument takes, and its
// subcommands.
type Command struct {
	Name     string
	Help     string
	Flags    []*Flag
	Args     []string // fixed values of its positional argument; nil when free (or none)
	Commands []*Command
}

// Flag is one flag of a command.
type Flag struct {
	Long  string
	Short rune // 0 for none
	Help  string
	Value bool // the flag takes a value
	// Values is the flag's fixed value set, nil when free; List says the
	// value is a comma-separated list of them (--state idle,blocked).
	Values []string
	List   bool
	// Files and Dirs: the value is a path; the shell offers files or
	// directories.
	Files, Dirs bool
}

// FromKong builds the node of a kong grammar (a tool's command-line
// struct) at path, the space-separated names of its command ("" for the
// application itself). Hidden commands and flags are left out, and so is
// kong's own --help (a script adds -h/--help to every node).
func FromKong(grammar any, path string, opts ...kong.Option) (*Command, error) {
	k, err := kong.New(grammar, append([]kong.Option{kong.Name("tma"), kong.Exit(func(int) {})}, opts...)...)
	if err != nil {
		return nil, err
	}
	n := k.Model.Node
	for _, name := range strings.Fields(path) {
		var next *kong.Node
		for _, c := range n.Children {
			if c.Name == name || slices.Contains(c.Aliases, name) {
				next = c
			}
		}
		if next == nil {
			return nil, fmt.Errorf("no command %q in the %s grammar", path, k.Model.Name)
		}
		n = next
	}
	return fromNode(n), nil
}

func fromNode(n *kong.Node) *Command {
	c := &Command{Name: n.Name, Help: n.Help}
	for _, f := range n.Flags {
		if f.Hidden || f.Name == "help" {
			continue
		}
		c.Flags = append(c.Flags, fromFlag(f))
	}
	for _, p := range n.Positional {
		if p.Enum != "" {
			c.Args = append(c.Args, enum(p.Enum)...)
		}
	}
	for _, ch := range n.Children {
		if ch.Hidden || ch.Type != kong.CommandNode {
			continue
		}
		c.Commands = append(c.Commands, fromNode(ch))
	}
	return c
}

func fromFlag(f *kong.Flag) *Flag {
	out := &Flag{Long: f.Name, Short: f.Short, Help: f.Help, Value: !f.IsBool() && !f.IsCounter()}
	if f.Enum != "" {
		out.Values = enum(f.Enum)
	}
	switch f.PlaceHolder {
	case "PATH", "FILE":
		out.Files = true
	case "DIR":
		out.Dirs = true
	}
	return out
}

// enum is kong's enum tag as a value set; an empty member (a flag whose
// default is "no choice") is not a value anyone types.
func enum(tag string) []string {
	var out []string
	for _, v := range strings.Split(tag, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Find returns the subcommand at path (space-separated names), nil when none.
func (c *Command) Find(path string) *Command {
	for _, name := range strings.Fields(path) {
		var next *Command
		for _, ch := range c.Commands {
			if ch.Name == name {
				next = ch
			}
		}
		if next == nil {
			return nil
		}
		c = next
	}
	return c
}

// Flag returns c's flag called long, nil when none.
func (c *Command) Flag(long string) *Flag {
	for _, f := range c.Flags {
		if f.Long == long {
			return f
		}
	}
	return nil
}

// Walk calls fn for c and every command under it, parents first, with the
// path of names below the root ("" for the root).
func (c *Command) Walk(fn func(path string, c *Command)) {
	var walk func(string, *Command)
	walk = func(p string, c *Command) {
		fn(p, c)
		for _, ch := range c.Commands {
			walk(strings.TrimSpace(p+" "+ch.Name), ch)
		}
	}
	walk("", c)
}

// node is one command as a script sees it: the root's flags hold on every
// command (tma's global options go anywhere on the line), and -h/--help.
type node struct {
	path  string
	cmd   *Command
	flags []*Flag // every flag valid here
	own   []*Flag // the command's own (the root's are the globals)
}

var help = &Flag{Long: "help", Short: 'h', Help: "show help"}

// nodes flattens the tree and checks every word a script will hold
// unquoted (names, flags, values) is a plain token, so no quoting in any
// shell can go wrong.
func nodes(root *Command) ([]node, error) {
	var out []node
	var err error
	root.Walk(func(p string, c *Command) {
		fl := append([]*Flag{}, c.Flags...)
		if c != root {
			fl = append(fl, root.Flags...)
		}
		fl = append(fl, help)
		seen := map[string]bool{}
		for _, f := range fl {
			for _, w := range append([]string{f.Long}, f.Values...) {
				if !token(w) && err == nil {
					err = fmt.Errorf("%q in %q is not a plain word", w, "tma "+p)
				}
			}
			if f.Short != 0 && !token(string(f.Short)) && err == nil {
				err = fmt.Errorf("short flag %q in %q is not a plain letter", f.Short, "tma "+p)
			}
			if seen[f.Long] && err == nil {
				err = fmt.Errorf("flag --%s twice on %q", f.Long, "tma "+p)
			}
			seen[f.Long] = true
		}
		for _, a := range c.Args {
			if !token(a) && err == nil {
				err = fmt.Errorf("argument %q of %q is not a plain word", a, "tma "+p)
			}
		}
		for _, ch := range c.Commands {
			if !token(ch.Name) && err == nil {
				err = fmt.Errorf("command %q is not a plain word", ch.Name)
			}
		}
		out = append(out, node{path: p, cmd: c, flags: fl, own: c.Flags})
	})
	return out, err
}

func token(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// names are a flag's spellings: --long, and -s when it has a short one.
func (f *Flag) names() []string {
	n := []string{"--" + f.Long}
	if f.Short != 0 {
		n = append(n, "-"+string(f.Short))
	}
	return n
}

// summary is a help line short enough for a completion menu: the first
// clause, no trailing period, at most 72 runes cut at a word.
func summary(h string) string {
	h = strings.TrimSpace(strings.Join(strings.Fields(h), " "))
	if i := strings.Index(h, ". "); i >= 0 {
		h = h[:i]
	}
	h = strings.TrimSuffix(h, ".")
	if utf8.RuneCountInString(h) <= 72 {
		return h
	}
	r := []rune(h)[:72]
	if i := strings.LastIndexByte(string(r), ' '); i > 40 {
		return string(r)[:i] + "…"
	}
	return string(r) + "…"
}
