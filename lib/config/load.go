package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// Error is a config file that failed to load. Line is 0 and Key "" when not known.
type Error struct {
	Path string // the file
	Line int    // 1-based line of the offending key
	Key  string // dotted key path, e.g. "notify.done.comand"
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("config ")
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Load parses the file at path over the defaults. A missing file is an error here: the
// zero-config floor is LoadResolved's business.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = pe.Err.Error()
		}
		if errors.Is(err, fs.ErrNotExist) {
			msg = "file does not exist"
		}
		return nil, &Error{Path: path, Msg: msg}
	}
	c, err := parse(data)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Path = path
		}
		return nil, err
	}
	return c, nil
}

// parse decodes data over the defaults and validates it. Errors are *Error without a Path.
func parse(data []byte) (*Config, error) {
	c := Default()
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(c)
	if err != nil {
		return nil, decodeError(err)
	}
	if err := checkKeys(md); err != nil {
		return nil, err
	}
	// [[agent]] entries are decoded into fresh elements, so an omitted enabled must be put back
	// to its default (true) here: a second decode, which a config without [[agent]] is spared.
	if len(c.Agents) > 0 {
		var aux struct {
			Agent []struct {
				Enabled *bool `toml:"enabled"`
			} `toml:"agent"`
		}
		if _, err := toml.Decode(string(data), &aux); err == nil {
			for i, a := range aux.Agent {
				if a.Enabled == nil && i < len(c.Agents) {
					c.Agents[i].Enabled = true
				}
			}
		}
	}
	if md.IsDefined("notify", "context_high") && !md.IsDefined("notify", "context_high", "threshold") {
		return nil, &Error{Key: "notify.context_high", Msg: "threshold is required (a percent, 1 to 100)"}
	}
	if md.IsDefined("notify", "stall") && !md.IsDefined("notify", "stall", "threshold_s") {
		return nil, &Error{Key: "notify.stall", Msg: "threshold_s is required (seconds, at least 1)"}
	}
	if md.IsDefined("daemon", "window_names") && !md.IsDefined("daemon", "window_names", "format") {
		return nil, &Error{Key: "daemon.window_names", Msg: "format is required"}
	}
	for name := range c.API {
		if !md.IsDefined("api", name, "api_base") {
			return nil, &Error{Key: "api." + toml.Key{name}.String(), Msg: "api_base is required"}
		}
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	if err := c.validateRemotes(); err != nil {
		return nil, err
	}
	return c, nil
}

// The error-path patterns compile when first needed: every process loads
// the config, few of them meet a broken one.
var (
	// BurntSushi formats its decode errors as `toml: line N (last key "k"): msg`.
	decodeErrRE  = lazyRE(`^toml: (?:line (\d+) )?\(last key ("(?:[^"\\]|\\.)*")\): (.*)$`)
	mismatchRE   = lazyRE(`^incompatible types: TOML value has type (\S+); destination has type (\S+)$`)
	notTableRE   = lazyRE(`^type mismatch for \S+: expected table but found (\S+)$`)
	goTypeToTOML = sync.OnceValue(func() *strings.Replacer {
		return strings.NewReplacer("map", "table", "slice", "array", "primitive (string-like)", "string")
	})
	goValueToTOML = map[string]string{
		"int64": "integer", "float64": "float", "bool": "boolean", "string": "string",
		"[]any": "array", "[]map[string]any": "array", "map[string]any": "table",
		"time.Time": "datetime", "toml.LocalDate": "datetime", "toml.LocalTime": "datetime",
		"toml.LocalDatetime": "datetime",
	}
)

// decodeError turns a BurntSushi error into an *Error with the line and key when it has them.
func decodeError(err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &Error{Line: pe.Position.Line, Key: pe.LastKey, Msg: tidy(pe.Message)}
	}
	msg := err.Error()
	if m := decodeErrRE().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		key, uerr := strconv.Unquote(m[2])
		if uerr != nil {
			key = m[2]
		}
		return &Error{Line: line, Key: key, Msg: tidy(m[3])}
	}
	return &Error{Msg: strings.TrimPrefix(msg, "toml: ")}
}

func valueType(goType string) string {
	if t, ok := goValueToTOML[goType]; ok {
		return t
	}
	return goType
}

func tidy(msg string) string {
	if m := mismatchRE().FindStringSubmatch(msg); m != nil {
		return "expected " + goTypeToTOML().Replace(m[2]) + ", found " + valueType(m[1])
	}
	if m := notTableRE().FindStringSubmatch(msg); m != nil {
		return "expected a table, found " + valueType(m[1])
	}
	return msg
}

// checkKeys fails on the first unknown key in file order, naming any others. A key is unknown
// when BurntSushi left it undecoded or when it matches a field only case-insensitively
// (BurntSushi's own matching is case-insensitive; ours is exact).
func checkKeys(md toml.MetaData) error {
	undecoded := map[string]bool{}
	for _, k := range md.Undecoded() {
		undecoded[k.String()] = true
	}
	root := reflect.TypeFor[Config]()
	var bad []string
	for _, k := range md.Keys() {
		if !undecoded[k.String()] && known(root, k) {
			continue
		}
		covered := false
		for _, b := range bad {
			if strings.HasPrefix(k.String(), b+".") {
				covered = true
				break
			}
		}
		if !covered {
			bad = append(bad, k.String())
		}
	}
	if len(bad) == 0 {
		return nil
	}
	msg := "unknown key"
	if len(bad) > 1 {
		msg += " (also unknown: " + strings.Join(bad[1:], ", ") + ")"
	}
	return &Error{Key: bad[0], Msg: msg}
}

var replyLaneType = reflect.TypeFor[ReplyLane]()

// known reports whether a key path names a field of t, matching toml tags exactly. Map keys are
// free; a ReplyLane checks its own keys.
func known(t reflect.Type, key toml.Key) bool {
	for _, part := range key {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t == replyLaneType {
			return true
		}
		switch t.Kind() {
		case reflect.Map:
			t = t.Elem()
		case reflect.Struct:
			f, ok := fieldByTag(t, part)
			if !ok {
				return false
			}
			t = f.Type
		default:
			return false
		}
	}
	return true
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if tag == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// UnmarshalTOML decodes `false` (or `true`), or a table `{ hold_ms = N }`, bounding hold_ms.
func (l *ReplyLane) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case bool:
		l.Enabled = v
		if l.HoldMS == 0 {
			l.HoldMS = HoldMSDefault
		}
		return nil
	case map[string]any:
		for k := range v {
			if k != "hold_ms" {
				return fmt.Errorf("unknown key %q", k)
			}
		}
		l.Enabled = true
		l.HoldMS = HoldMSDefault
		h, ok := v["hold_ms"]
		if !ok {
			return nil
		}
		n, ok := h.(int64)
		if !ok {
			return fmt.Errorf("hold_ms: expected integer, found %s", tomlType(h))
		}
		if n < HoldMSMin || n > HoldMSMax {
			return fmt.Errorf("hold_ms must be within %d..=%d (milliseconds), got %d", HoldMSMin, HoldMSMax, n)
		}
		l.HoldMS = int(n)
		return nil
	}
	return fmt.Errorf("expected a table { hold_ms = N } or false, found %s", tomlType(v))
}

func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case []any, []map[string]any:
		return "array"
	case map[string]any:
		return "table"
	}
	return "datetime"
}

var tokenRE = lazyRE(`\{[^{}]*\}`)

func lazyRE(src string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })
}

// validate checks the values the types cannot. Errors name the key; the line is not known here.
func (c *Config) validate() error {
	atLeast := func(key string, v, lo int, unit string) error {
		if v < lo {
			return &Error{Key: key, Msg: fmt.Sprintf("must be at least %d (%s), got %d", lo, unit, v)}
		}
		return nil
	}
	checks := []error{
		atLeast("fold.dwell_secs", c.Fold.DwellSecs, 0, "seconds"),
		atLeast("fold.hook_decay_secs", c.Fold.HookDecaySecs, 0, "seconds"),
		atLeast("fold.blocked_decay_secs", c.Fold.BlockedDecaySecs, 0, "seconds"),
		atLeast("fold.freshness_secs", c.Fold.FreshnessSecs, 0, "seconds"),
		atLeast("serve.reconcile_interval_ms", c.Serve.ReconcileIntervalMS, 1, "milliseconds"),
		atLeast("serve.max_connections", c.Serve.MaxConnections, 1, "connections"),
		atLeast("daemon.sweep_secs", c.Daemon.SweepSecs, 1, "seconds"),
		atLeast("daemon.quiet_ms", c.Daemon.QuietMS, 1, "milliseconds"),
		atLeast("daemon.zero_member_recheck_secs", c.Daemon.ZeroMemberRecheckSecs, 1, "seconds"),
		atLeast("daemon.demote_edges", c.Daemon.DemoteEdges, 1, "edges"),
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	if err := c.Serve.HTTP.validate(); err != nil {
		return err
	}
	for _, t := range c.Notify.On {
		if t != TriggerBlocked && t != TriggerDone {
			return &Error{Key: "notify.on", Msg: fmt.Sprintf("unknown trigger %q (on takes %q and %q; context_high and stall are sub-tables)", t, TriggerBlocked, TriggerDone)}
		}
	}
	if ch := c.Notify.ContextHigh; ch != nil && (ch.Threshold < 1 || ch.Threshold > 100) {
		return &Error{Key: "notify.context_high.threshold", Msg: fmt.Sprintf("must be within 1..=100 (percent), got %d", ch.Threshold)}
	}
	if s := c.Notify.Stall; s != nil && s.ThresholdS < 1 {
		return &Error{Key: "notify.stall.threshold_s", Msg: fmt.Sprintf("must be at least 1 (seconds), got %d", s.ThresholdS)}
	}
	if r := c.Install.WrapperRef; r != WrapperBare && r != WrapperAbsolute {
		return &Error{Key: "install.wrapper_ref", Msg: fmt.Sprintf("must be %q or %q, got %q", WrapperBare, WrapperAbsolute, r)}
	}
	if wn := c.Daemon.WindowNames; wn != nil {
		if wn.Format == "" {
			return &Error{Key: "daemon.window_names.format", Msg: "must not be empty"}
		}
		for _, tok := range tokenRE().FindAllString(wn.Format, -1) {
			if !slices.Contains(WindowNameTokens, tok[1:len(tok)-1]) {
				return &Error{Key: "daemon.window_names.format", Msg: fmt.Sprintf("unknown token %s (tokens: {%s})", tok, strings.Join(WindowNameTokens, "}, {"))}
			}
		}
	}
	byKey := map[string]string{}
	chosen := c.Keys.Chosen()
	for _, name := range KeyNames {
		k, ok := chosen[name]
		if !ok {
			continue
		}
		if msg := CheckKey(k); msg != "" {
			return &Error{Key: "keys." + name, Msg: msg}
		}
		if other, dup := byKey[k]; dup && k != "" {
			return &Error{Key: "keys." + name, Msg: fmt.Sprintf("%q is already keys.%s's key", k, other)}
		}
		byKey[k] = name
	}
	seen := map[string]bool{}
	for i, a := range c.Agents {
		key := fmt.Sprintf("agent[%d]", i)
		if a.Name == "" {
			return &Error{Key: key + ".name", Msg: "is required"}
		}
		if seen[a.Name] {
			return &Error{Key: key + ".name", Msg: fmt.Sprintf("agent %q is already configured by an earlier [[agent]]", a.Name)}
		}
		seen[a.Name] = true
		for _, p := range a.ProcessNames {
			if p == "" || strings.Contains(p, "/") {
				return &Error{Key: key + ".process_names", Msg: fmt.Sprintf("%q is not a basename", p)}
			}
		}
	}
	for name, a := range c.API {
		key := "api." + toml.Key{name}.String() + ".api_base"
		u, err := url.Parse(a.APIBase)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &Error{Key: key, Msg: fmt.Sprintf("must be an http:// or https:// URL, got %q", a.APIBase)}
		}
	}
	return nil
}

func (h *ServeHTTP) validate() error {
	if _, _, err := net.SplitHostPort(h.Listen); err != nil {
		return &Error{Key: "serve.http.listen", Msg: fmt.Sprintf("not a host:port address (%q): %v", h.Listen, err)}
	}
	if (h.TLSCert == "") != (h.TLSKey == "") {
		return &Error{Key: "serve.http.tls_cert", Msg: "tls_cert and tls_key go together: set both or neither"}
	}
	if h.PublicURL != "" {
		u, err := url.Parse(h.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &Error{Key: "serve.http.public_url", Msg: fmt.Sprintf("not an http(s) URL with a host: %q", h.PublicURL)}
		}
	}
	for _, n := range h.Hosts {
		if n == "" || strings.ContainsAny(n, "/ \t@") {
			return &Error{Key: "serve.http.hosts", Msg: fmt.Sprintf("not a host name: %q", n)}
		}
	}
	return nil
}
