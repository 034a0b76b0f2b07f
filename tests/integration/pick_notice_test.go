package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// brokenConfig and brokenManifest are what the surfaces' tests break
// their files with; mine is a user manifest that parses.
const (
	brokenConfig   = "[picker]\nworking = { glyph = 5 }\n"
	brokenManifest = "min_engine_version = \"0.1\"\n[identity]\n"
	mineManifest   = "min_engine_version = \"0.1\"\n[identity]\nprocess_names = [\"mine\"]\n[capture]\n"
)

// surfaceFiles is a config file (named by TMA_CONFIG in the surface's
// pane) and a user manifest, both valid to begin with.
func surfaceFiles(t *testing.T, e *env) (cfg, mine string) {
	t.Helper()
	cfg = filepath.Join(t.TempDir(), "config.toml")
	mine = filepath.Join(e.home, ".config", "tma", "agents", "mine.toml")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, b := range map[string]string{cfg: "[picker]\nworking = { glyph = \"W\" }\n", mine: mineManifest} {
		if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return cfg, mine
}

func rewrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPickerHeaderNamesBrokenFiles: a config or manifest broken while the
// picker runs is named in fzf's header, one line per file, for as long as
// it stays broken, and nothing is written over fzf's screen (issue 27 item
// 22: the error landed on the query line and said `error` though the
// picker kept its old config); the preview keeps showing the agent's
// screen; mending the files clears the header.
func TestPickerHeaderNamesBrokenFiles(t *testing.T) {
	e := newEnv(t, "")
	withFzf(t, e)
	e.s.StartAgent("claude", claudeBlocked)
	cfg, mine := surfaceFiles(t, e)
	picker := e.tmaWindow("TMA_CONFIG='" + cfg + "' tma; echo PICKER-EXIT $?; sleep 600")
	e.waitScreen(picker, "the picker drawn", func(s string) bool { return strings.Contains(s, "Do you want to proceed") })

	rewrite(t, cfg, brokenConfig)
	rewrite(t, mine, brokenManifest)
	scr := e.waitScreen(picker, "both broken files in the header", func(s string) bool {
		return strings.Contains(s, "⚠ config") && strings.Contains(s, "⚠ ~/.config/tma/agents/mine.toml")
	})
	lines := strings.Split(scr, "\n")
	if !strings.HasPrefix(lines[0], "tma>") || strings.Contains(lines[0], "config") {
		t.Errorf("the query line is not fzf's:\n%s", scr)
	}
	if strings.Contains(scr, "error") || !strings.Contains(scr, "Do you want to proceed") {
		t.Errorf("an error on the screen, or the preview gone:\n%s", scr)
	}

	rewrite(t, cfg, "[picker]\nworking = { glyph = \"V\" }\n")
	e.waitScreen(picker, "the mended config off the header", func(s string) bool {
		return !strings.Contains(s, "⚠ config") && strings.Contains(s, "⚠ ~/.config/tma/agents/mine.toml")
	})
	rewrite(t, mine, mineManifest)
	e.waitScreen(picker, "an empty header", func(s string) bool { return !strings.Contains(s, "⚠") && strings.Contains(s, "claude") })
	e.s.MustRun("send-keys", "-t", picker, "Escape")
	scr = e.waitScreen(picker, "the picker closed", func(s string) bool { return strings.Contains(s, "PICKER-EXIT 0") })
	// What it held while fzf ran is said once it closed.
	if !strings.Contains(scr, "warning: keeping the previous config and manifests") || !strings.Contains(scr, "warning: manifest skipped") {
		t.Errorf("the held warnings were not said at exit:\n%s", scr)
	}
}

// TestWatchNamesEveryBrokenFile: watch shows a line per broken file above
// its key hint while it runs, not only the first file and not only at quit
// (issue 27 item 22), and says each once when it quits.
func TestWatchNamesEveryBrokenFile(t *testing.T) {
	e := newEnv(t, "")
	withBins(t, e)
	e.s.StartAgent("claude", claudeBlocked)
	cfg, mine := surfaceFiles(t, e)
	w := e.tmaWindow("TMA_CONFIG='" + cfg + "' tma watch; echo WATCH-EXIT $?; sleep 600")
	e.waitScreen(w, "watch drawn", func(s string) bool { return strings.Contains(s, "q quit") && strings.Contains(s, "claude") })

	rewrite(t, cfg, brokenConfig)
	rewrite(t, mine, brokenManifest)
	scr := e.waitScreen(w, "a notice per broken file", func(s string) bool {
		return strings.Contains(s, "⚠ config /") && strings.Contains(s, "stay in use") && strings.Contains(s, "⚠ ~/.config/tma/agents/mine.toml: identity.process_names")
	})
	lines := strings.Split(strings.TrimRight(scr, "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "q quit") {
		t.Errorf("the key hint is not the last line:\n%s", scr)
	}
	rewrite(t, cfg, "[picker]\nworking = { glyph = \"V\" }\n")
	rewrite(t, mine, mineManifest)
	e.waitScreen(w, "the notices gone", func(s string) bool { return !strings.Contains(s, "⚠") && strings.Contains(s, "claude") })
	e.s.MustRun("send-keys", "-t", w, "q")
	scr = e.waitScreen(w, "watch closed", func(s string) bool { return strings.Contains(s, "WATCH-EXIT 0") })
	if strings.Count(scr, "warning: keeping the previous config") != 1 || strings.Count(scr, "warning: manifest skipped") != 1 {
		t.Errorf("at quit, want each broken file said once:\n%s", scr)
	}
}
