package transcript

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

// Pane is what discovery needs of a pane: the caller reads it through
// lib/tmux in one call.
type Pane struct {
	ID         string
	Agent      string // @agent_name
	Session    string // @agent_session
	Transcript string // @agent_transcript, the path the agent's own hook payload named
	CWD        string // #{pane_current_path}
}

// Env is where the stores live: the user's home and environment.
type Env struct {
	Home   string
	Getenv func(string) string
}

func (e Env) get(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

func (e Env) dir(envKey, fallback string) string {
	if v := e.get(envKey); v != "" {
		return v
	}
	return filepath.Join(e.Home, fallback)
}

// Source is a located store: the file (or database) and the root that a
// resolved path must stay inside.
type Source struct {
	Agent   string
	Path    string
	Root    string
	Session string
}

// storeRoot is the directory each JSONL store keeps its sessions under.
func storeRoot(agent string, e Env) string {
	switch agent {
	case "claude":
		return filepath.Join(e.dir("CLAUDE_CONFIG_DIR", ".claude"), "projects")
	case "codex":
		return filepath.Join(e.dir("CODEX_HOME", ".codex"), "sessions")
	case "gemini":
		return filepath.Join(e.Home, ".gemini", "tmp")
	case "pi":
		return filepath.Join(e.dir("PI_CODING_AGENT_DIR", filepath.Join(".pi", "agent")), "sessions")
	}
	return ""
}

// OpenCodeDB is OpenCode's database path.
func OpenCodeDB(e Env) string {
	return filepath.Join(e.dir("XDG_DATA_HOME", filepath.Join(".local", "share")), "opencode", "opencode.db")
}

// Locate finds a pane's store: cursor is refused by name, OpenCode is its
// database and the session id, the JSONL stores the stamped path first,
// then the layout walked from the session id.
func Locate(p Pane, e Env) (Source, *Refusal) {
	src := Source{Agent: p.Agent, Session: p.Session}
	switch p.Agent {
	case "":
		return src, refuse(CodeNoTranscript, "pane %s has no agent (no @agent_name)", p.ID)
	case "cursor":
		return src, refuse(CodeStoreIncomplete, "cursor-agent's transcripts hold no tool results, timestamps or version, so tma does not serve them rather than serve a partial story")
	case "opencode":
		if !strings.HasPrefix(p.Session, "ses_") {
			return src, refuse(CodeNoTranscript, "pane %s has no OpenCode session id (@agent_session is %q; OpenCode's are ses_…)", p.ID, p.Session)
		}
		src.Path = OpenCodeDB(e)
		src.Root = filepath.Dir(src.Path)
		return src, confine(src)
	case "claude", "codex", "gemini", "pi":
	default:
		return src, refuse(CodeUnsupportedStore, "tma does not read %s's transcripts (it reads claude, codex, gemini, pi and opencode)", p.Agent)
	}
	root := storeRoot(p.Agent, e)
	// A stamped path that is gone (the agent moved its store, or the
	// stamp outlived a file) falls back to the layout when there is a
	// session id to walk it with.
	if _, err := os.Lstat(p.Transcript); p.Transcript != "" && (err == nil || p.Session == "") {
		src.Path = p.Transcript
		src.Root = root
		if !within(p.Transcript, root) {
			// The agent named a store elsewhere (another HOME, a config
			// dir of its own): that directory is the store.
			src.Root = filepath.Dir(p.Transcript)
		}
		return src, confine(src)
	}
	if p.Session == "" {
		return src, refuse(CodeNoTranscript, "pane %s has neither @agent_transcript nor @agent_session (an agent detected from its screen alone)", p.ID)
	}
	if strings.ContainsAny(p.Session, "/\\") || p.Session == "." || p.Session == ".." {
		return src, refuse(CodeNoTranscript, "pane %s: @agent_session %q is not a session id", p.ID, p.Session)
	}
	src.Root = root
	var path string
	switch p.Agent {
	case "claude":
		path = claudeLayout(root, p.Session, p.CWD)
	case "codex":
		path = codexLayout(root, p.Session)
	case "gemini":
		path = geminiLayout(root, p.Session)
	case "pi":
		path = piLayout(root, p.Session)
	}
	if path == "" {
		return src, refuse(CodeNoTranscript, "no %s transcript for session %s under %s", p.Agent, p.Session, root)
	}
	src.Path = path
	return src, confine(src)
}

func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// confine refuses a path that resolves, through symlinks, outside its
// store: a transcript is read only where the agent keeps them.
func confine(src Source) *Refusal {
	real, err := filepath.EvalSymlinks(src.Path)
	if err != nil {
		return ioRefusal(src.Path, err)
	}
	root, err := filepath.EvalSymlinks(src.Root)
	if err != nil {
		return ioRefusal(src.Root, err)
	}
	if !within(real, root) {
		return refuse(CodeIOError, "%s resolves to %s, outside the %s store %s: tma does not follow a symlink out of a store", src.Path, real, src.Agent, src.Root)
	}
	return nil
}

// claudeSlug is Claude Code's directory name for a working directory:
// every character that is not a letter or digit becomes '-'.
func claudeSlug(cwd string) string {
	return strings.Map(func(r rune) rune {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return '-'
	}, cwd)
}

// maxWalk bounds a layout walk: discovery never reads a whole home.
const maxWalk = 4096

func claudeLayout(root, session, cwd string) string {
	name := session + ".jsonl"
	if cwd != "" {
		if p := filepath.Join(root, claudeSlug(cwd), name); isFile(p) {
			return p
		}
	}
	return firstIn(root, func(dir string) string {
		if p := filepath.Join(dir, name); isFile(p) {
			return p
		}
		return ""
	})
}

func codexLayout(root, session string) string {
	suffix := "-" + session + ".jsonl"
	seen := 0
	var walk func(dir string, depth int) string
	walk = func(dir string, depth int) string {
		ents := newestFirst(dir)
		for _, e := range ents {
			if seen++; seen > maxWalk {
				return ""
			}
			p := filepath.Join(dir, e.Name())
			if depth == 3 {
				if !e.IsDir() && strings.HasPrefix(e.Name(), "rollout-") && strings.HasSuffix(e.Name(), suffix) {
					return p
				}
				continue
			}
			if e.IsDir() {
				if f := walk(p, depth+1); f != "" {
					return f
				}
			}
		}
		return ""
	}
	return walk(root, 0)
}

func geminiLayout(root, session string) string {
	short := session
	if len(short) > 8 {
		short = short[:8]
	}
	return firstIn(root, func(dir string) string {
		for _, e := range newestFirst(filepath.Join(dir, "chats")) {
			n := e.Name()
			if strings.HasPrefix(n, "session-") && strings.HasSuffix(n, "-"+short+".jsonl") {
				return filepath.Join(dir, "chats", n)
			}
		}
		return ""
	})
}

func piLayout(root, session string) string {
	return firstIn(root, func(dir string) string {
		for _, e := range newestFirst(dir) {
			if strings.HasSuffix(e.Name(), "_"+session+".jsonl") {
				return filepath.Join(dir, e.Name())
			}
		}
		return ""
	})
}

// firstIn runs look on each directory under root until one answers.
func firstIn(root string, look func(dir string) string) string {
	ents, err := os.ReadDir(root)
	if err != nil {
		return ""
	}
	for i, e := range ents {
		if i >= maxWalk {
			break
		}
		if e.IsDir() {
			if p := look(filepath.Join(root, e.Name())); p != "" {
				return p
			}
		}
	}
	return ""
}

// newestFirst lists a directory in reverse name order: the date-named
// directories and files of these stores sort by time.
func newestFirst(dir string) []os.DirEntry {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() > ents[j].Name() })
	return ents
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
