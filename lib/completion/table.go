package completion

import (
	"fmt"
	"io"
	"strings"
)

// table writes the lookup function the bash and zsh scripts share (their
// case statements read alike): `_tma_words KIND PATH [FLAG]` sets r to
//
//	children PATH        the subcommands of the command at PATH
//	flags PATH           every flag spelling valid there
//	valued PATH FLAG     1 when FLAG takes a value there
//	values PATH FLAG     FLAG's fixed value set
//	list PATH FLAG       FLAG's value set, for a comma-separated list
//	files PATH FLAG      f (files) or d (directories): FLAG's value is a path
//	args PATH            the fixed values of the command's argument
//
// and to "" for anything else. It spawns nothing: completion runs on
// every Tab.
func table(w io.Writer, ns []node) {
	fmt.Fprintln(w, "_tma_words() {")
	fmt.Fprintln(w, "\tr=")
	fmt.Fprintln(w, "\tcase $1:$2:${3-} in")
	for _, n := range ns {
		if len(n.cmd.Commands) > 0 {
			var names []string
			for _, c := range n.cmd.Commands {
				names = append(names, c.Name)
			}
			row(w, []string{"'children:" + n.path + ":'"}, strings.Join(names, " "))
		}
		var all []string
		for _, f := range n.flags {
			all = append(all, f.names()...)
		}
		row(w, []string{"'flags:" + n.path + ":'"}, strings.Join(all, " "))
		if n.path != "" {
			flagRows(w, n.path, n.own)
		}
		if len(n.cmd.Args) > 0 {
			row(w, []string{"'args:" + n.path + ":'"}, strings.Join(n.cmd.Args, " "))
		}
	}
	// The globals, on every command (the first match wins, and no command
	// flag shares a global's name).
	flagRows(w, "", ns[0].own)
	fmt.Fprintln(w, "\tesac")
	fmt.Fprintln(w, "}")
}

// flagRows are the valued, values, list and files rows of flags on the
// command at path; "" is any command (the globals).
func flagRows(w io.Writer, path string, flags []*Flag) {
	pat := func(kind string, f *Flag) []string {
		var out []string
		for _, s := range f.names() {
			if path == "" {
				out = append(out, "'"+kind+":'*':"+s+"'")
			} else {
				out = append(out, "'"+kind+":"+path+":"+s+"'")
			}
		}
		return out
	}
	var valued []string
	for _, f := range flags {
		if f.Value {
			valued = append(valued, pat("valued", f)...)
		}
	}
	if len(valued) > 0 {
		row(w, valued, "1")
	}
	for _, f := range flags {
		switch {
		case len(f.Values) > 0 && f.List:
			row(w, pat("list", f), strings.Join(f.Values, " "))
		case len(f.Values) > 0:
			row(w, pat("values", f), strings.Join(f.Values, " "))
		case f.Files:
			row(w, pat("files", f), "f")
		case f.Dirs:
			row(w, pat("files", f), "d")
		}
	}
}

// row is one case branch; every word in it is a plain token (nodes checked).
func row(w io.Writer, pats []string, r string) {
	fmt.Fprintf(w, "\t%s) r='%s' ;;\n", strings.Join(pats, " | "), r)
}
