package integration

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmaproject/tma/lib/testkit"
)

// recipes are the command lines docs/notify.md documents, in its order,
// read from its TOML blocks so the page and the tests cannot drift.
func recipes(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "notify.md"))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), "## Recipes")
	if i < 0 {
		t.Fatal("docs/notify.md has no Recipes section")
	}
	var out []string
	for _, m := range regexp.MustCompile("(?m)^command = (\".*\")$").FindAllStringSubmatch(string(b[i:]), -1) {
		out = append(out, m[1]) // a TOML basic string, quoted as written
	}
	if len(out) != 4 {
		t.Fatalf("want 4 recipes, found %d", len(out))
	}
	return out
}

// server is a real HTTP server on 127.0.0.1 that records what it is sent.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	got  []*http.Request
	body []string
}

func newServer(t *testing.T) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.got = append(s.got, r)
		s.body = append(s.body, string(b))
		s.mu.Unlock()
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) wait(t *testing.T, n int) (*http.Request, string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		if len(s.got) >= n {
			r, b := s.got[n-1], s.body[n-1]
			s.mu.Unlock()
			return r, b
		}
		s.mu.Unlock()
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the server got fewer than %d requests", n)
	return nil, ""
}

// standIn puts a program named name on a PATH dir that records its argv,
// one argument per line, in dir/name.argv.
func standIn(t *testing.T, dir, name string) string {
	t.Helper()
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >\"" + dir + "/" + name + ".argv\"\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name+".argv")
}

func TestNotifyRecipes(t *testing.T) {
	testkit.Need(t, "curl")
	rs := recipes(t)
	srv := newServer(t)
	bin := t.TempDir()
	path := "PATH=" + bin + ":" + binDir + ":" + os.Getenv("PATH")
	cases := []struct {
		name, command string
		check         func(t *testing.T, pane string)
	}{
		{"ntfy", strings.Replace(rs[0], "https://ntfy.sh/your-topic", srv.URL+"/your-topic", 1), func(t *testing.T, pane string) {
			r, body := srv.wait(t, 1)
			if r.Method != "POST" || r.URL.Path != "/your-topic" || r.Header.Get("Title") != "claude blocked" || !strings.HasSuffix(body, " s:1.0") {
				t.Errorf("ntfy got %s %s title %q body %q", r.Method, r.URL.Path, r.Header.Get("Title"), body)
			}
		}},
		{"notify-send", rs[1], func(t *testing.T, pane string) {
			argv := waitFile(t, filepath.Join(bin, "notify-send.argv"))
			if argv != "-a\ntma\nclaude blocked\ns:1.0\n" {
				t.Errorf("notify-send argv %q", argv)
			}
		}},
		{"osascript", rs[2], func(t *testing.T, pane string) {
			argv := waitFile(t, filepath.Join(bin, "osascript.argv"))
			if argv != "-e\ndisplay notification \"claude is blocked\" with title \"tma\" subtitle \"s:1.0\"\n" {
				t.Errorf("osascript argv %q", argv)
			}
		}},
		{"webhook", strings.Replace(rs[3], "https://hooks.example.com/tma", srv.URL+"/tma", 1), func(t *testing.T, pane string) {
			r, body := srv.wait(t, 2)
			var p map[string]any
			if err := json.Unmarshal([]byte(body), &p); err != nil || r.URL.Path != "/tma" || r.Header.Get("Content-Type") != "application/json" ||
				p["pane"] != pane || p["state"] != "blocked" || p["schema"] != 2.0 {
				t.Errorf("webhook got %s %q: %v %v", r.URL.Path, body, p, err)
			}
		}},
	}
	standIn(t, bin, "notify-send")
	standIn(t, bin, "osascript")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := &notifyEnv{env: newEnv(t, laneOff+"[notify]\non = [\"blocked\", \"done\"]\ncommand = "+c.command+"\n")}
			a := e.startPainted(claudeBlocked)
			e.cycleNotify(path)
			c.check(t, a.Pane)
			if rec := filepath.Join(e.run, "tma", "notify-failure.json"); fileExists(rec) {
				b, _ := os.ReadFile(rec)
				t.Errorf("the recipe failed: %s", b)
			}
		})
	}
}

func waitFile(t *testing.T, p string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(p); err == nil && len(b) > 0 {
			return string(b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s never written", p)
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
