package manifest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MatchKind names a node of a match tree.
type MatchKind string

// The match kinds.
const (
	MatchContains  MatchKind = "contains"   // a plain substring of the region text
	MatchRegex     MatchKind = "regex"      // a regex over the region text, multi-line mode on
	MatchLineRegex MatchKind = "line_regex" // a regex tried on each line; true if any line matches
	MatchAny       MatchKind = "any"        // true if any child matches
	MatchAll       MatchKind = "all"        // true if every child matches
	MatchNot       MatchKind = "not"        // true if the child does not match
)

// Match is one compiled node of a rule's match tree.
type Match struct {
	Kind     MatchKind
	Text     string   // the substring or the regex source, for leaves
	Re       *Regex   // for regex and line_regex
	Children []*Match // for any, all and not (exactly one child)
}

func compileMatch(path string, m matchT) (*Match, error) {
	var set []string
	if m.Contains != nil {
		set = append(set, string(MatchContains))
	}
	if m.Regex != nil {
		set = append(set, string(MatchRegex))
	}
	if m.LineRegex != nil {
		set = append(set, string(MatchLineRegex))
	}
	if m.Any != nil {
		set = append(set, string(MatchAny))
	}
	if m.All != nil {
		set = append(set, string(MatchAll))
	}
	if m.Not != nil {
		set = append(set, string(MatchNot))
	}
	switch len(set) {
	case 0:
		return nil, fmt.Errorf("%s: needs one of contains, regex, line_regex, any, all, not", path)
	case 1:
	default:
		return nil, fmt.Errorf("%s: has %s; a match node takes exactly one", path, strings.Join(set, " and "))
	}
	switch {
	case m.Contains != nil:
		if *m.Contains == "" {
			return nil, fmt.Errorf("%s.contains: empty string matches everything", path)
		}
		return &Match{Kind: MatchContains, Text: *m.Contains}, nil
	case m.Regex != nil:
		re, err := checkRegex("(?m)" + *m.Regex)
		if err != nil {
			return nil, fmt.Errorf("%s.regex: bad regex: %w", path, err)
		}
		return &Match{Kind: MatchRegex, Text: *m.Regex, Re: re}, nil
	case m.LineRegex != nil:
		re, err := checkRegex(*m.LineRegex)
		if err != nil {
			return nil, fmt.Errorf("%s.line_regex: bad regex: %w", path, err)
		}
		return &Match{Kind: MatchLineRegex, Text: *m.LineRegex, Re: re}, nil
	case m.Not != nil:
		c, err := compileMatch(path+".not", *m.Not)
		if err != nil {
			return nil, err
		}
		return &Match{Kind: MatchNot, Children: []*Match{c}}, nil
	}
	kind, kids := MatchAny, m.Any
	if m.All != nil {
		kind, kids = MatchAll, m.All
	}
	if len(kids) == 0 {
		return nil, fmt.Errorf("%s.%s: needs at least one element", path, kind)
	}
	out := &Match{Kind: kind}
	for i, k := range kids {
		c, err := compileMatch(path+"."+string(kind)+"["+strconv.Itoa(i)+"]", k)
		if err != nil {
			return nil, err
		}
		out.Children = append(out.Children, c)
	}
	return out, nil
}

// String renders the tree in the manifest's own notation, for explain output.
func (m *Match) String() string {
	switch m.Kind {
	case MatchContains, MatchRegex, MatchLineRegex:
		return fmt.Sprintf("{ %s = %s }", m.Kind, strconv.Quote(m.Text))
	case MatchNot:
		return fmt.Sprintf("{ not = %s }", m.Children[0])
	}
	parts := make([]string, len(m.Children))
	for i, c := range m.Children {
		parts[i] = c.String()
	}
	return fmt.Sprintf("{ %s = [%s] }", m.Kind, strings.Join(parts, ", "))
}

// region is the text a rule reads: its lines, and the lines joined on demand.
type region struct {
	lines  []string
	text   string
	joined bool
}

func (r *region) Text() string {
	if !r.joined {
		r.text = strings.Join(r.lines, "\n")
		r.joined = true
	}
	return r.text
}

// eval reports whether m matches r and, when it does, the line that made it match.
func (m *Match) eval(r *region) (bool, string) {
	switch m.Kind {
	case MatchContains:
		t := r.Text()
		i := strings.Index(t, m.Text)
		if i < 0 {
			return false, ""
		}
		return true, lineAt(t, i)
	case MatchRegex:
		t := r.Text()
		loc := m.Re.FindStringIndex(t)
		if loc == nil {
			return false, ""
		}
		return true, lineAt(t, loc[0])
	case MatchLineRegex:
		for _, l := range r.lines {
			if m.Re.MatchString(l) {
				return true, l
			}
		}
		return false, ""
	case MatchNot:
		ok, _ := m.Children[0].eval(r)
		return !ok, ""
	case MatchAny:
		for _, c := range m.Children {
			if ok, ex := c.eval(r); ok {
				return true, ex
			}
		}
		return false, ""
	case MatchAll:
		excerpt := ""
		for _, c := range m.Children {
			ok, ex := c.eval(r)
			if !ok {
				return false, ""
			}
			if excerpt == "" {
				excerpt = ex
			}
		}
		return true, excerpt
	}
	panic(errors.New("manifest: unknown match kind " + string(m.Kind)))
}

// lineAt returns the line of t that holds byte offset i.
func lineAt(t string, i int) string {
	start := strings.LastIndexByte(t[:i], '\n') + 1
	end := strings.IndexByte(t[i:], '\n')
	if end < 0 {
		return t[start:]
	}
	return t[start : i+end]
}
