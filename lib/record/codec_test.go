package record

import (
	"bufio"
	"bytes"
	"encoding"
	"encoding/json"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

// streamLines are real lines: tma-scan, tma-fold (plain and --explain) and
// tma-stamp run against an isolated tmux server with fake claude, codex and
// gemini agents painting captured screens (one pane with a hook claim whose
// detail holds quotes and <>), three cycles, the first cold.
func streamLines(t testing.TB) [][]byte {
	t.Helper()
	f, err := os.Open("testdata/stream.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, bytes.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("only %d lines in testdata/stream.ndjson", len(out))
	}
	return out
}

// explains says whether a record carries what only --explain writes, the
// one part of a pane the fast decoder leaves to encoding/json.
func explains(v any) bool {
	p, ok := v.(*Pane)
	return ok && p.Verdict != nil && (p.Verdict.Rules != nil || p.Verdict.Trace != nil)
}

// agree fails unless the fast decoder refuses line or decodes it exactly as
// encoding/json does, and unless Unmarshal's answer is encoding/json's.
func agree(t testing.TB, line []byte) (fast bool) {
	t.Helper()
	h1, v1, err1 := unmarshalJSON(line)
	h2, v2, ok := unmarshalFast(line)
	if ok {
		if err1 != nil {
			t.Fatalf("fast decoder accepted a line encoding/json refuses (%v):\n%q", err1, line)
		}
		if !reflect.DeepEqual(h1, h2) || !reflect.DeepEqual(v1, v2) {
			t.Fatalf("fast decode differs from encoding/json:\nline: %q\njson: %#v\nfast: %#v", line, v1, v2)
		}
	}
	h3, v3, err3 := Unmarshal(line)
	if !reflect.DeepEqual(h1, h3) || !reflect.DeepEqual(v1, v3) || errString(err1) != errString(err3) {
		t.Fatalf("Unmarshal differs from encoding/json:\nline: %q\njson: %#v %v\ngot:  %#v %v", line, v1, err1, v3, err3)
	}
	return ok
}

// encodesAlike fails unless the fast encoder writes json.Marshal's bytes
// for v (or declines a value json.Marshal refuses).
func encodesAlike(t testing.TB, v any) []byte {
	t.Helper()
	want, err := json.Marshal(v)
	got, ok := appendFast(nil, v)
	if err != nil {
		if ok {
			t.Fatalf("fast encoder wrote %q for a value json.Marshal refuses (%v)", got, err)
		}
		return nil
	}
	if !ok {
		t.Fatalf("fast encoder declined a %T json.Marshal encodes: %s", v, want)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("fast encode differs from json.Marshal:\njson: %s\nfast: %s", want, got)
	}
	return got
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestCodecStreamLines(t *testing.T) {
	kinds := map[string]int{}
	for _, line := range streamLines(t) {
		_, v, err := unmarshalJSON(line)
		if err != nil || v == nil {
			t.Fatalf("a real line does not decode (%v): %q", err, line)
		}
		if fast := agree(t, line); fast == explains(v) {
			t.Errorf("fast decoder took=%v a line with explain=%v: %.200q", fast, explains(v), line)
		}
		if got := encodesAlike(t, v); !bytes.Equal(got, line) {
			t.Errorf("re-encoding a real line changed it:\nline: %s\ngot:  %s", line, got)
		}
		kinds[reflect.TypeOf(v).Elem().Name()]++
	}
	for _, k := range []string{"Cycle", "Pane", "Row", "End"} {
		if kinds[k] == 0 {
			t.Errorf("no %s line in testdata/stream.ndjson (%v)", k, kinds)
		}
	}
}

// hostile strings: every escape encoding/json writes, HTML specials, the
// JavaScript line separators, bytes that are not UTF-8, astral runes.
var hostile = []string{
	"plain",
	`<script>alert("x")</script> & more`,
	"line\u2028sep\u2029para",
	"\x00\x01\x07\x08\x0b\x0c\x1b[31m\x1f\x7f",
	"bad \xff\xfe utf8 \xc3",
	"\xed\xa0\x80 encoded surrogate",
	"é ☃ 𝄞 \ufffd \ufeff",
	`back\slash "quote" /slash`,
	"\b\f\n\r\t",
	"",
}

func TestCodecHostileValues(t *testing.T) {
	for i, s := range hostile {
		n := int64(i)
		cost := []float64{0, 0.1, 1e-7, 1e21, 123456789.125, -2.5e-300, math.MaxFloat64, 5e-324, 1e20, 0.000001}[i]
		detail := s
		p := &Pane{
			Head: Head{1, KindPane}, NowMS: math.MaxInt64 - n, Pane: s, Session: s, Window: -int(n), Title: s, CWD: s,
			Scroll: -1, Opts: map[string]string{s: s, "z" + s: "", "@agent_state": s},
			Capture: &Capture{AtMS: math.MinInt64 + n, Text: strings.Repeat(s, 3)},
			Notes:   []string{s, ""}, QuietEdge: n,
			Verdict: &Verdict{State: s, Detail: s, Anchors: map[string]int64{s: n, "@tma_idle_since": -1}, Winning: Evidence{Source: s, At: n, Label: s},
				Rules: []RuleTrace{{Index: i, State: s, Excerpt: s}}, Trace: []string{s}},
		}
		r := &Row{Head: Head{1, KindRow}, NowMS: n, Row: AgentRow{Pane: s, Detail: &detail, CostUSD: &cost, Quota: &Quota{Pct: n, Window: s, AtMS: &n}}, CWD: s, Source: s}
		c := &Cycle{Head: Head{1, KindCycle}, Server: s, Clients: []Client{{Name: s, Control: i%2 == 0}}, Panes: []string{s}}
		for _, v := range []any{p, r, c, &End{Head: Head{1, KindEnd}, NowMS: -n}} {
			line := encodesAlike(t, v)
			agree(t, line)
		}
		// Without what only --explain writes, the fast decoder takes it all.
		p.Verdict.Rules, p.Verdict.Trace = nil, nil
		for _, v := range []any{p, r, c} {
			if line := encodesAlike(t, v); !agree(t, line) {
				t.Errorf("fast decoder refused json.Marshal's own line: %q", line)
			}
		}
	}
}

func TestCodecNonFinite(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		encodesAlike(t, &Row{Row: AgentRow{CostUSD: &f}})
	}
}

// Lines the fast decoder takes, each decoding as encoding/json does.
var takenLines = []string{
	`{"v":1,"kind":"end","now_ms":0}`,
	`{"v":1,"kind":"end"}`,
	`{"v":1,"kind":"end","now_ms":-0}`,
	`{"v":1,"kind":"end","now_ms":9223372036854775807}`,
	`{"v":1,"kind":"end","now_ms":-9223372036854775808}`,
	`{"v":1,"kind":"end" , "now_ms" : 5 }` + " \t\r\n",
	`{"v":1,"kind":"end","now_ms":null}`,
	`{"v":1,"kind":"pane","pane":"%1","title":"\u0041\u00e9\u2603\ud834\udd1e\/\"\\\b\f\n\r\t\u0000\u001b[0m"}`,
	`{"v":1,"kind":"pane","title":"é☃𝄞 raw","opts":{},"notes":[],"capture":null,"verdict":null}`,
	`{"v":1,"kind":"pane","title":null,"window":null,"active":null,"opts":null,"notes":null}`,
	`{"v":1,"kind":"pane","opts":{"b":"2","a":"1","a":"3","\u0040x":"<&>"},"notes":["x",""]}`,
	`{"v":1,"kind":"pane","capture":{"at_ms":1,"text":"a\u001b[1mb\nc"},"verdict":{"state":"idle","anchors":{"@tma_idle_since":5},"winning_evidence":{"source":"capture","at":3,"label":"x"}}}`,
	`{"v":1,"kind":"pane","verdict":{"winning_evidence":null,"anchors":{}}}`,
	`{"v":1,"kind":"row","row":{"pane":"%1","detail":null,"since":7,"worktree":false,"cost_usd":1.5e-7,"quota":{"pct":80,"window":"5h","resets_at_ms":null,"at_ms":3}}}`,
	`{"v":1,"kind":"row","row":{"cost_usd":0,"tokens":-1,"worktree":true,"repo":""}}`,
	`{"v":1,"kind":"row","row":{"cost_usd":12345678901234567890123}}`,
	`{"v":1,"kind":"row","row":null,"source":"hook"}`,
	`{"v":1,"kind":"row","row":null,"done_cleared":true}`,
	`{"v":1,"kind":"row","row":null,"done_cleared":false}`,
	`{"v":1,"kind":"cycle","clients":[{"name":"/dev/pts/1","control":true},{"activity":5}],"panes":["%1"],"scoped":true}`,
	`{"v":1,"kind":"cycle","clients":[]}`,
}

// Lines the fast decoder must leave to encoding/json, and why.
var refusedLines = map[string]string{
	`{"v":1,"kind":"pane","Pane":"%1"}`:                          "a key matched case-insensitively",
	`{"v":1,"kind":"pane","paNe":"%1"}`:                          "a key matched case-insensitively",
	`{"v":1,"kind":"pane","future_key":{"a":[1,2]}}`:             "an unknown key",
	`{"v":1,"kind":"pane","p\u0061ne":"%1"}`:                     "an escaped key",
	`{"v":1,"kind":"pane","pane":"%1","pane":"%2"}`:              "a repeated key",
	`{"v":1,"kind":"pane","v":1}`:                                "a repeated head key",
	`{"v":1,"kind":"pane","opts":{"a":"1"},"opts":{"b":"2"}}`:    "a repeated map (json merges)",
	`{"v":1,"kind":"pane","opts":{"a":null}}`:                    "null in a map",
	`{"v":1,"kind":"pane","notes":[null]}`:                       "null in an array",
	`{"v":1,"kind":"pane","window":1.0}`:                         "a fraction for an int",
	`{"v":1,"kind":"pane","window":1e2}`:                         "an exponent for an int",
	`{"v":1,"kind":"pane","window":+1}`:                          "a plus sign",
	`{"v":1,"kind":"pane","window":01}`:                          "a leading zero",
	`{"v":1,"kind":"pane","now_ms":9223372036854775808}`:         "out of range",
	`{"v":1,"kind":"pane","now_ms":-9223372036854775809}`:        "out of range",
	`{"v":1,"kind":"pane","now_ms":99999999999999999999999}`:     "out of range",
	`{"v":1,"kind":"pane","window":"1"}`:                         "a string for an int",
	`{"v":1,"kind":"pane","title":1}`:                            "a number for a string",
	`{"v":1,"kind":"pane","active":0}`:                           "a number for a bool",
	`{"v":1,"kind":"pane","opts":[]}`:                            "an array for a map",
	"{\"v\":1,\"kind\":\"pane\",\"title\":\"bad \xff\"}":         "invalid UTF-8 (json substitutes U+FFFD)",
	"{\"v\":1,\"kind\":\"pane\",\"opts\":{\"\xc3\":\"x\"}}":      "invalid UTF-8 in a map key",
	"{\"v\":1,\"kind\":\"pane\",\"title\":\"\xed\xa0\x80\"}":     "an encoded surrogate",
	`{"v":1,"kind":"pane","title":"\ud800"}`:                     "a lone high surrogate",
	`{"v":1,"kind":"pane","title":"\udc00x"}`:                    "a lone low surrogate",
	`{"v":1,"kind":"pane","title":"\udc00\udc00"}`:               "two low surrogates",
	`{"v":1,"kind":"pane","title":"\ud800\ud800"}`:               "two high surrogates",
	`{"v":1,"kind":"pane","title":"\udbff\ue000"}`:               "a high surrogate and a BMP escape",
	`{"v":1,"kind":"pane","title":"\ud800\u0041"}`:               "a high surrogate and no low one",
	"{\"v\":1,\"kind\":\"pane\",\"title\":\"tab\there\"}":        "a raw control byte",
	`{"v":1,"kind":"pane","title":"\x"}`:                         "an invalid escape",
	`{"v":1,"kind":"pane","title":"\u12"}`:                       "a short \\u escape",
	`{"v":1,"kind":"pane","verdict":{"rules":[{"index":1}]}}`:    "rules (explain only)",
	`{"v":1,"kind":"pane","verdict":{"trace":["x"]}}`:            "trace (explain only)",
	`{"v":1,"kind":"pane"} x`:                                    "trailing bytes",
	`{"v":1,"kind":"pane"}{}`:                                    "a second value",
	`{"v":1,"kind":"pane",}`:                                     "a trailing comma",
	`{"v":1,"kind":"pane"`:                                       "truncated",
	`{"v":1,"kind":"pane","title":"x`:                            "truncated in a string",
	` {"v":1,"kind":"pane"}`:                                     "not the writers' head",
	`{"kind":"pane","v":1}`:                                      "not the writers' head",
	`{"v":2,"kind":"pane"}`:                                      "another version",
	`{"v":1,"kind":"error","tool":"tma-scan","message":"x"}`:     "a kind left to encoding/json",
	`{"v":1,"kind":"future","x":1}`:                              "an unknown kind",
	`{"v":1,"kind":""}`:                                          "no kind",
	`{"v":1,"kind":"Pane"}`:                                      "a kind spelled otherwise",
	`{"v":1,"kind":"row","row":{"cost_usd":1e400}}`:              "a float out of range",
	`{"v":1,"kind":"row","row":{"cost_usd":.5}}`:                 "a malformed float",
	`{"v":1,"kind":"row","row":{"worktree":"yes"}}`:              "a string for a bool",
	`{"v":1,"kind":"row","row":{"quota":{"pct":1.5}}}`:           "a fraction for an int",
	`{"v":1,"kind":"cycle","clients":[null]}`:                    "null in an array",
	`{"v":1,"kind":"cycle","clients":[{"name":"a","Name":"b"}]}`: "a key matched case-insensitively",
	`{"v":1,"kind":"end","now_ms":1,"extra":true}`:               "an unknown key",
	`not json`: "not JSON",
	``:         "empty",
}

func TestCodecTakes(t *testing.T) {
	for _, line := range takenLines {
		if !agree(t, []byte(line)) {
			t.Errorf("fast decoder refused %s", line)
		}
	}
}

func TestCodecRefuses(t *testing.T) {
	for line, why := range refusedLines {
		if agree(t, []byte(line)) {
			t.Errorf("fast decoder took a line with %s: %s", why, line)
		}
	}
}

// TestCodecCoversEveryField fills every field of every record the codec
// handles, through reflection, so a field added to a struct and not to the
// codec fails here: its key is missing from the fast encoding, or the fast
// decoder refuses json.Marshal's line.
func TestCodecCoversEveryField(t *testing.T) {
	for _, v := range []any{&Pane{}, &Row{}, &Cycle{}, &End{}} {
		for round := range 3 {
			val := reflect.New(reflect.TypeOf(v).Elem())
			if round > 0 {
				fill(val.Elem(), round)
			}
			rec := val.Interface()
			// The head is the Writer's to set, and dispatches the decode.
			val.Elem().Field(0).Set(reflect.ValueOf(Head{Version, map[string]string{
				"Pane": KindPane, "Row": KindRow, "Cycle": KindCycle, "End": KindEnd}[val.Elem().Type().Name()]}))
			if p, ok := rec.(*Pane); ok && p.Verdict != nil {
				p.Verdict.Rules, p.Verdict.Trace = nil, nil
				encodesAlike(t, rec)
				p.Verdict.Rules = []RuleTrace{{Index: 1, Excerpt: "e"}, {}}
				p.Verdict.Trace = []string{"step"}
			}
			line := encodesAlike(t, rec)
			if !agree(t, line) && !explains(rec) {
				t.Errorf("fast decoder refused json.Marshal's line for a filled %T: %s", rec, line)
			}
		}
	}
}

// fill sets every field under v to a value that is not zero: omitempty
// keys appear, pointers are allocated. round varies the values.
func fill(v reflect.Value, round int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(hostile[round%len(hostile)] + "x")
	case reflect.Int, reflect.Int64:
		v.SetInt([]int64{math.MaxInt64, -1, 42}[round%3])
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Float64:
		v.SetFloat([]float64{0.25, 1e-9, 3e21}[round%3])
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), round)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), round+i)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0), round)
		fill(v.Index(1), round+1)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for i, k := range []string{"zeta", "<alpha>", "é", "@agent_state"} {
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e, round+i)
			v.SetMapIndex(reflect.ValueOf(k), e)
		}
	default:
		panic("fill: no value for " + v.Type().String())
	}
}

// TestCodecTypesHaveNoMethods: the codec writes what encoding/json's
// reflection writes; a JSON or text method on one of these types would
// change that, and the codec would not follow.
func TestCodecTypesHaveNoMethods(t *testing.T) {
	for _, v := range []any{Pane{}, Row{}, Cycle{}, End{}, Head{}, Client{}, Capture{}, Verdict{}, Evidence{}, RuleTrace{}, AgentRow{}, Quota{}} {
		for _, rt := range []reflect.Type{reflect.TypeOf(v), reflect.PointerTo(reflect.TypeOf(v))} {
			for _, iface := range []reflect.Type{
				reflect.TypeFor[json.Marshaler](), reflect.TypeFor[json.Unmarshaler](),
				reflect.TypeFor[encoding.TextMarshaler](), reflect.TypeFor[encoding.TextUnmarshaler](),
			} {
				if rt.Implements(iface) {
					t.Errorf("%s implements %s: teach the codec, or take the type out of it", rt, iface)
				}
			}
		}
	}
}

// TestWriterUsesCodec: the Writer's line is the fast encoding (and
// json.Marshal's), head set, one newline.
func TestWriterUsesCodec(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	p := &Pane{Pane: "%1", Title: "<t>", Opts: map[string]string{"b": "", "a": "\u2028"}}
	if err := w.Write(p); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&Error{Tool: "tma-scan", Message: "m"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	pj, _ := json.Marshal(p)
	ej, _ := json.Marshal(&Error{Head: Head{1, KindError}, Tool: "tma-scan", Message: "m"})
	if want := string(pj) + "\n" + string(ej) + "\n"; b.String() != want {
		t.Fatalf("writer wrote\n%s\nwant\n%s", b.String(), want)
	}
}
