package install

import (
	"fmt"
	"strings"
)

// Diff renders a unified diff of two texts (3 lines of context), each line
// indented by two spaces as tma prints it. Equal texts give "".
func Diff(old, new []byte) string {
	a, b := lines(string(old)), lines(string(new))
	ops := diffOps(a, b)
	var out strings.Builder
	const ctx = 3
	// Group the ops into hunks of changes with their context.
	i := 0
	for i < len(ops) {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := i
		for start > 0 && i-start < ctx && ops[start-1].kind == ' ' {
			start--
		}
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(end+ctx, run)
				break
			}
			end = run
		}
		writeHunk(&out, ops[start:end])
		i = end
	}
	return out.String()
}

type op struct {
	kind       byte // ' ', '-', '+'
	text       string
	aIdx, bIdx int // 1-based line numbers before this op
}

func writeHunk(w *strings.Builder, ops []op) {
	na, nb := 0, 0
	for _, o := range ops {
		if o.kind != '+' {
			na++
		}
		if o.kind != '-' {
			nb++
		}
	}
	as, bs := ops[0].aIdx, ops[0].bIdx
	if na == 0 {
		as--
	}
	if nb == 0 {
		bs--
	}
	fmt.Fprintf(w, "  @@ -%s +%s @@\n", span(as, na), span(bs, nb))
	for _, o := range ops {
		fmt.Fprintf(w, "  %c %s\n", o.kind, o.text)
	}
}

func span(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	ls := strings.Split(s, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	} else {
		ls[len(ls)-1] += " (no newline at end of file)"
	}
	return ls
}

// diffOps is a longest-common-subsequence diff over lines, after trimming
// the common head and tail (config edits are small and local).
func diffOps(a, b []string) []op {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	ma, mb := a[head:len(a)-tail], b[head:len(b)-tail]
	var ops []op
	ai, bi := 1, 1
	emit := func(k byte, t string) {
		ops = append(ops, op{kind: k, text: t, aIdx: ai, bIdx: bi})
		if k != '+' {
			ai++
		}
		if k != '-' {
			bi++
		}
	}
	for _, l := range a[:head] {
		emit(' ', l)
	}
	if len(ma)*len(mb) > 4_000_000 {
		for _, l := range ma {
			emit('-', l)
		}
		for _, l := range mb {
			emit('+', l)
		}
	} else {
		// lcs[i][j] = LCS length of ma[i:], mb[j:].
		lcs := make([][]int32, len(ma)+1)
		for i := range lcs {
			lcs[i] = make([]int32, len(mb)+1)
		}
		for i := len(ma) - 1; i >= 0; i-- {
			for j := len(mb) - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(ma) || j < len(mb) {
			switch {
			case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
				emit(' ', ma[i])
				i++
				j++
			case i < len(ma) && (j == len(mb) || lcs[i+1][j] >= lcs[i][j+1]):
				emit('-', ma[i])
				i++
			default:
				emit('+', mb[j])
				j++
			}
		}
	}
	for _, l := range a[len(a)-tail:] {
		emit(' ', l)
	}
	return ops
}
