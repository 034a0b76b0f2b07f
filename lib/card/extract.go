package card

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Dialog is what Extract read off a screen.
type Dialog struct {
	Question *string // the dialog's question: its last line ending in "?", else in ":"
	Text     *string // every line above the options, reflowed, one paragraph a line
	Options  []Option
}

// The bounds of a dialog that draws no frame and no rule around itself.
const maxWalk = 20

var (
	// A numbered choice, the selection cursor optional before it.
	optionRE = regexp.MustCompile(`^(\s*(?:[❯›>→●▶]\s*)?)(\d{1,2})[.)]\s+(\S.*)$`)
	// An unnumbered choice under the cursor (pi's selectors).
	cursorRE = regexp.MustCompile(`^(\s*[❯›>→▶]\s+)(\S.*)$`)
	// Key hints: how to answer, not what is asked.
	hintRE = regexp.MustCompile(`(?i)\besc(ape)?\b[^.]*\b(cancel|interrupt|dismiss)|\benter (to )?(select|confirm|submit|continue)\b|↑↓|↑/↓|\bpress enter\b|\buse enter\b|\btab to (amend|add)\b|\bctrl\+[a-z] to\b`)
	// A counter under a long list ("(1/29)").
	counterRE = regexp.MustCompile(`^\(\d+/\d+\)$`)
	// The choice a question tool offers for an answer of one's own, as the
	// lab saw each agent label it.
	freeTextRE = regexp.MustCompile(`(?i)^(type (something|your own answer)\b|other \(type your)`)
	cellsRE    = regexp.MustCompile(`\s{2,}`)
	columnsRE  = regexp.MustCompile(`\s{2,}`)
)

// frames are the runes a dialog draws down its sides.
func isFrame(r rune) bool { return r == '│' || r == '┃' || r == '║' }

// isRule reports a line drawn of box rules only: a dialog's edge, or a
// rule inside it (Gemini's nested boxes, Claude's dashed diff edges).
func isRule(l string) bool {
	n := 0
	for _, r := range l {
		switch {
		case unicode.IsSpace(r) || isFrame(r):
		case strings.ContainsRune("─━═╌╍┄┅╭╮╰╯┌┐└┘├┤┬┴┼▀▄▲▼", r):
			n++
		default:
			return false
		}
	}
	return n > 0
}

// frameOf is the side frame a line starts with, 0 when none.
func frameOf(l string) rune {
	t := strings.TrimLeftFunc(l, unicode.IsSpace)
	r, _ := utf8.DecodeRuneInString(t)
	if isFrame(r) {
		return r
	}
	return 0
}

// unframe removes the side frames, nested ones too.
func unframe(l string) string {
	for {
		t := strings.TrimSpace(l)
		r, n := utf8.DecodeRuneInString(t)
		if !isFrame(r) {
			return strings.TrimRightFunc(l, unicode.IsSpace)
		}
		t = t[n:]
		if r2, m := utf8.DecodeLastRuneInString(t); isFrame(r2) {
			t = t[:len(t)-m]
		}
		l = t
	}
}

func blank(l string) bool { return strings.TrimSpace(l) == "" }

// Extract reads the dialog around the line the blocked rule matched
// (excerpt, as manifest.Result gives it) off a capture's plain lines. The
// dialog is the run of lines sharing that line's side frame; else the lines
// between the rules above and below it, crossing no two blank lines in a
// row (after the blank lines directly above the choices, which Codex
// draws), at most maxWalk lines either way. ok is false when nothing usable
// is there.
func Extract(lines []string, excerpt string) (Dialog, bool) {
	d := Dialog{Options: []Option{}}
	if excerpt == "" {
		return d, false
	}
	a := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], excerpt) {
			a = i
			break
		}
	}
	// A rule that matched on a dialog's edge (pi's editor border) stands
	// for the dialog above it.
	for a >= 0 && (isRule(lines[a]) || blank(lines[a])) && strings.Contains(lines[a], excerpt) {
		a--
	}
	if a < 0 {
		return d, false
	}
	width := 0
	for _, l := range lines {
		width = max(width, utf8.RuneCountInString(strings.TrimRightFunc(l, unicode.IsSpace)))
	}
	var block []string
	if f := frameOf(lines[a]); f != 0 {
		s, e := a, a
		for s > 0 && frameOf(lines[s-1]) == f {
			s--
		}
		for e+1 < len(lines) && frameOf(lines[e+1]) == f {
			e++
		}
		width = 0
		for _, l := range lines[s : e+1] {
			block = append(block, unframe(l))
			// The frame pads its lines: the widest is the frame's inside.
			width = max(width, utf8.RuneCountInString(l)-4)
		}
	} else {
		s := a
		choice := optionRE.MatchString(lines[a]) || cursorRE.MatchString(lines[a])
		for i, blanks := a-1, 0; i >= 0 && a-i <= maxWalk && !isRule(lines[i]); i-- {
			if blank(lines[i]) {
				blanks++
				if blanks >= 2 && !(choice && allBlank(lines[i:a])) {
					break
				}
				continue
			}
			blanks = 0
			s = i
		}
		e := a
		for i, blanks := a+1, 0; i < len(lines) && i-a <= maxWalk && !isRule(lines[i]); i++ {
			if blank(lines[i]) {
				if blanks++; blanks >= 2 {
					break
				}
				continue
			}
			blanks = 0
			e = i
		}
		for _, l := range lines[s : e+1] {
			block = append(block, strings.TrimRightFunc(l, unicode.IsSpace))
		}
	}
	parse(block, width, &d)
	return d, d.Text != nil || len(d.Options) > 0
}

func allBlank(ls []string) bool {
	for _, l := range ls {
		if !blank(l) {
			return false
		}
	}
	return true
}

// parse splits a dialog's lines into its text, its choices and its key
// hints (dropped). The choices are numbered when any line is; else they
// are pi's: a cursor line and the lines in its column under it (two at
// least). A choice's more-indented lines under it are its description; a
// hint after the choices ends the dialog.
func parse(block []string, width int, d *Dialog) {
	first, numbered := choices(block)
	var text []string // lines above the choices; "" is a paragraph break
	indent := -1
	var last *Option
	labelLine := "" // the screen line last's label ends on, while it has no description
	for i, l := range block {
		if isRule(l) || art(l) {
			continue
		}
		if blank(l) {
			if first < 0 || i < first {
				text = append(text, "")
			}
			last = nil
			continue
		}
		if first < 0 && len(d.Options) == 0 {
			if bs := buttons(l); bs != nil {
				for _, b := range bs {
					d.add(b)
				}
				continue
			}
		}
		if hintRE.MatchString(l) {
			if first >= 0 && i > first {
				break
			}
			continue
		}
		if first < 0 || i < first {
			if t := strings.TrimSpace(l); !prompt(t) {
				text = append(text, t)
			}
			continue
		}
		if m := optionRE.FindStringSubmatch(l); numbered && m != nil {
			indent = utf8.RuneCountInString(m[1])
			last = d.add(m[3])
			labelLine = l
			continue
		}
		if m := cursorRE.FindStringSubmatch(l); !numbered && i == first && m != nil {
			indent = utf8.RuneCountInString(m[1])
			last = d.add(m[2])
			continue
		}
		col := column(l)
		t := strings.TrimSpace(l)
		switch {
		case !numbered && col == indent && !counterRE.MatchString(t):
			last = d.add(t)
		case numbered && last != nil && col >= indent && last.Description == nil && wrapped(labelLine, t, width):
			// The agent wrapped a long label (Claude's "Yes, and switch to
			// accept edits …" at 80 columns, under the label's text;
			// Copilot's "(/tmp/lab/project)", under the number): its next
			// line is more of it.
			last.Label = clip(last.Label+" "+t, maxLabel)
			labelLine = l
		case numbered && last != nil && col > indent:
			last.describe(t)
		default:
			// Text under the choices (a status line, a footnote) is not
			// part of what is asked.
			last = nil
		}
	}
	paras := reflow(text, width)
	if len(paras) > 0 {
		d.Text = str(clipText(strings.Join(paras, "\n"), maxText))
	}
	d.Question = question(paras)
}

// choices finds the first choice line, -1 when there is none.
func choices(block []string) (first int, numbered bool) {
	for i, l := range block {
		if optionRE.MatchString(l) && !hintRE.MatchString(l) {
			return i, true
		}
	}
	for i, l := range block {
		m := cursorRE.FindStringSubmatch(l)
		if m == nil || i+1 >= len(block) {
			continue
		}
		if column(block[i+1]) == utf8.RuneCountInString(m[1]) && !blank(block[i+1]) {
			return i, false
		}
	}
	return -1, false
}

func column(l string) int {
	return utf8.RuneCountInString(l) - utf8.RuneCountInString(strings.TrimLeftFunc(l, unicode.IsSpace))
}

// prompt is an empty input line (">", "❯").
func prompt(t string) bool { return t == ">" || t == "❯" || t == "›" }

// art is a line drawn mostly of block elements: a logo, not words.
func art(l string) bool {
	n, blocks := 0, 0
	for _, r := range l {
		if unicode.IsSpace(r) {
			continue
		}
		n++
		if r >= 0x2580 && r <= 0x259f {
			blocks++
		}
	}
	return blocks > 0 && blocks*3 >= n
}

// add appends a choice; its label is the text before a wide gap (Codex
// puts the description on the same line), the rest its description.
func (d *Dialog) add(s string) *Option {
	if len(d.Options) >= MaxOptions {
		return nil
	}
	cells := columnsRE.Split(strings.TrimSpace(s), 2)
	d.Options = append(d.Options, Option{Label: clip(cells[0], maxLabel), FreeText: freeTextRE.MatchString(cells[0])})
	o := &d.Options[len(d.Options)-1]
	if len(cells) > 1 {
		o.describe(cells[1])
	}
	return o
}

// wrapped says whether next continues line as the agent's word wrap left
// it: next's first word would not have fitted after line within width. A
// description the author put on its own line starts with a word that
// would have.
func wrapped(line, next string, width int) bool {
	word, _, _ := strings.Cut(next, " ")
	return utf8.RuneCountInString(strings.TrimRightFunc(line, unicode.IsSpace))+1+utf8.RuneCountInString(word) > width
}

func (o *Option) describe(s string) {
	if o == nil {
		return
	}
	if o.Description != nil {
		s = *o.Description + " " + s
	}
	o.Description = str(clip(s, maxLabel))
}

// buttons reads a row of buttons (OpenCode's "Allow once   Allow always
// Reject  ctrl+f fullscreen"): a line that splits on wide gaps into two or
// more words and then a key hint. nil when l is not one.
func buttons(l string) []string {
	cells := cellsRE.Split(strings.TrimSpace(l), -1)
	var bs []string
	for _, c := range cells {
		if strings.Contains(c, "ctrl+") || strings.Contains(strings.ToLower(c), "enter") || !startsWithLetter(c) {
			break
		}
		bs = append(bs, c)
	}
	if len(bs) < 2 || len(bs) == len(cells) {
		return nil
	}
	return bs
}

func startsWithLetter(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}

// reflow joins a line to the one before it when that one ran to the
// dialog's width (the agent wrapped it, not the author), and collapses
// blank lines: one paragraph per element.
func reflow(text []string, width int) []string {
	var out []string
	full := false // the previous line ran to the width
	open := false // a paragraph is open
	for _, l := range text {
		if l == "" {
			open = false
			continue
		}
		if open && full {
			out[len(out)-1] += " " + l
		} else if open {
			out[len(out)-1] += "\n" + l
		} else {
			out = append(out, l)
			open = true
		}
		// A wrapped line ends within a word's length of the width.
		full = utf8.RuneCountInString(l) >= width-14
	}
	var flat []string
	for _, p := range out {
		flat = append(flat, strings.Split(p, "\n")...)
	}
	return flat
}

// question is the last line asking something: ending in "?", else ":".
func question(lines []string) *string {
	for _, end := range []string{"?", ":"} {
		for i := len(lines) - 1; i >= 0; i-- {
			if strings.HasSuffix(lines[i], end) {
				return str(clip(lines[i], maxLabel*2))
			}
		}
	}
	return nil
}
