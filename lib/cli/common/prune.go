package common

import (
	"reflect"
	"strings"
	"unicode"
)

// kong builds its whole model before it reads a word: every subcommand's
// flags, their tags parsed and their help interpolated. In tma-view that is
// a third of the process's CPU on a status line, for three subcommands the
// run never uses. prune gives kong a grammar holding only the subcommand the
// words name, so kong still parses, validates and reports everything; it
// only stops building what it cannot select. It declines (ok false, the
// whole grammar is parsed) whenever the words are not plainly root flags
// then a command name: help, no command word, anything unknown.
//
// What a pruned parse leaves unlike a whole one: the unselected
// subcommands' fields keep their zero values, where kong would have reset
// them to their defaults. Nothing reads an unselected command's flags.
func prune(cli any, args []string) (target any, back func(), ok bool) {
	pv := reflect.ValueOf(cli)
	if pv.Kind() != reflect.Pointer || pv.Elem().Kind() != reflect.Struct {
		return nil, nil, false
	}
	// A kong hook on the root is a method a rebuilt type would not have.
	for _, m := range kongHooks {
		if _, has := pv.Type().MethodByName(m); has {
			return nil, nil, false
		}
	}
	v := pv.Elem()
	t := v.Type()
	var cmds []int
	for i := 0; i < t.NumField(); i++ {
		if _, isCmd := t.Field(i).Tag.Lookup("cmd"); isCmd {
			cmds = append(cmds, i)
		}
	}
	if len(cmds) < 2 {
		return nil, nil, false
	}
	word, ok := commandWord(rootFlags(t), args)
	if !ok {
		return nil, nil, false
	}
	sel := -1
	for _, i := range cmds {
		// A word naming a command selects it even where another is the
		// default (kong tries command names first); no word at all, or an
		// argument of the default command, declined above and below.
		f := t.Field(i)
		if commandName(f) == word {
			sel = i
		}
	}
	if sel < 0 {
		return nil, nil, false
	}
	var fields []reflect.StructField
	var from []int
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			return nil, nil, false
		}
		if _, isCmd := f.Tag.Lookup("cmd"); isCmd && i != sel {
			continue
		}
		if f.Anonymous {
			// reflect cannot rebuild an embedded type's methods; kong
			// flattens a named field tagged embed the same way.
			if _, tagged := f.Tag.Lookup("embed"); !tagged {
				f.Tag = reflect.StructTag(strings.TrimSpace(string(f.Tag) + ` embed:""`))
			}
			f.Anonymous = false
		}
		f.Index, f.Offset = nil, 0
		fields = append(fields, f)
		from = append(from, i)
	}
	nv := reflect.New(reflect.StructOf(fields)).Elem()
	back = func() {
		for j, i := range from {
			v.Field(i).Set(nv.Field(j))
		}
	}
	return nv.Addr().Interface(), back, true
}

// kongHooks are the methods kong looks for on a grammar's nodes.
var kongHooks = []string{"BeforeReset", "BeforeResolve", "BeforeApply", "AfterApply", "AfterRun", "Validate", "Help", "Run"}

type rootFlag struct{ takesValue bool }

// rootFlags are the flags of the root node, by every spelling a word can
// use before the command: --name, -s.
func rootFlags(t reflect.Type) map[string]rootFlag {
	out := map[string]rootFlag{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if _, isCmd := f.Tag.Lookup("cmd"); isCmd {
				continue
			}
			if _, isArg := f.Tag.Lookup("arg"); isArg || f.Tag.Get("kong") == "-" {
				continue
			}
			_, embed := f.Tag.Lookup("embed")
			if (f.Anonymous || embed) && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			name := f.Tag.Get("name")
			if name == "" {
				name = kebab(f.Name)
			}
			rf := rootFlag{takesValue: f.Type.Kind() != reflect.Bool}
			out["--"+name] = rf
			if s := f.Tag.Get("short"); s != "" {
				out["-"+s] = rf
			}
		}
	}
	walk(t)
	return out
}

// commandWord is the first word after the root flags, when every word
// before it is a root flag this grammar has (and its value).
func commandWord(flags map[string]rootFlag, args []string) (string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-h" || a == "--help" || a == "--" || a == "-" {
			return "", false
		}
		if !strings.HasPrefix(a, "-") {
			return a, true
		}
		name, _, inline := strings.Cut(a, "=")
		f, known := flags[name]
		if !known {
			return "", false
		}
		if f.takesValue && !inline {
			i++ // its value is the next word
		}
	}
	return "", false
}

func commandName(f reflect.StructField) string {
	if n := f.Tag.Get("name"); n != "" {
		return n
	}
	return kebab(f.Name)
}

// kebab spells a Go field name as kong names it by default: words split at
// case changes, a run of capitals kept as one word, joined by dashes.
func kebab(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if i > 0 && unicode.IsUpper(c) {
			prevLower := unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1])
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if prevLower || (unicode.IsUpper(r[i-1]) && nextLower) {
				b.WriteByte('-')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}
