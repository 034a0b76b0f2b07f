package integration

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/tmaproject/tma/lib/testkit"
)

// browser is a headless Chromium the test started, driven over the
// DevTools protocol on one page target: a small client, only the methods
// the page tests need (navigate, evaluate, the viewport, a screenshot).
type browser struct {
	t    *testing.T
	cmd  *exec.Cmd
	ws   *websocket.Conn
	id   atomic.Int64
	mu   sync.Mutex
	wait map[int64]chan cdpReply
	// diag, when set, adds what the host says to a failed until.
	diag func() string
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// startBrowser runs chromium with a fresh profile at a phone's size
// (width x height CSS pixels) and attaches to its page. Cleanup closes the
// browser and kills its whole process group.
func startBrowser(t *testing.T, width, height int) *browser {
	t.Helper()
	bin := testkit.Need(t, "chromium")
	profile := t.TempDir()
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
		"--disable-extensions", "--user-data-dir="+profile, "--remote-debugging-port=0",
		fmt.Sprintf("--window-size=%d,%d", width, height), "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, cmd: cmd, wait: map[int64]chan cdpReply{}}
	t.Cleanup(func() {
		if b.ws != nil {
			_ = b.ws.Close(websocket.StatusNormalClosure, "")
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	// Chromium writes the port it chose into the profile.
	var port string
	deadline := time.Now().Add(20 * time.Second)
	for port == "" {
		if bs, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort")); err == nil {
			if l := strings.SplitN(string(bs), "\n", 2); len(l) == 2 && l[0] != "" {
				port = l[0]
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("chromium wrote no DevToolsActivePort in 20s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var targets []struct {
		Type, WebSocketDebuggerURL string
	}
	for {
		res, err := http.Get("http://127.0.0.1:" + port + "/json/list")
		if err == nil {
			_ = json.NewDecoder(res.Body).Decode(&targets)
			res.Body.Close()
		}
		ws := ""
		for _, tg := range targets {
			if tg.Type == "page" {
				ws = tg.WebSocketDebuggerURL
			}
		}
		if ws != "" {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			c, _, err := websocket.Dial(ctx, ws, nil)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			c.SetReadLimit(64 << 20)
			b.ws = c
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("chromium offered no page target")
		}
		time.Sleep(50 * time.Millisecond)
	}
	go b.read()
	b.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 2, "mobile": true})
	return b
}

func (b *browser) read() {
	for {
		_, data, err := b.ws.Read(context.Background())
		if err != nil {
			return
		}
		var m struct {
			ID int64 `json:"id"`
			cdpReply
		}
		if json.Unmarshal(data, &m) != nil || m.ID == 0 {
			continue // an event: none is subscribed to
		}
		b.mu.Lock()
		ch := b.wait[m.ID]
		delete(b.wait, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m.cdpReply
		}
	}
}

func (b *browser) call(method string, params map[string]any) json.RawMessage {
	b.t.Helper()
	id := b.id.Add(1)
	ch := make(chan cdpReply, 1)
	b.mu.Lock()
	b.wait[id] = ch
	b.mu.Unlock()
	msg, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := b.ws.Write(ctx, websocket.MessageText, msg); err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			b.t.Fatalf("%s: %s", method, r.Error.Message)
		}
		return r.Result
	case <-ctx.Done():
		b.t.Fatalf("%s: no answer in 15s", method)
	}
	return nil
}

// eval runs expr in the page and returns its value, JSON-decoded into v.
func (b *browser) eval(expr string, v any) {
	b.t.Helper()
	raw := b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		b.t.Fatal(err)
	}
	if r.ExceptionDetails != nil {
		b.t.Fatalf("%s: %s %s", expr, r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if v != nil && len(r.Result.Value) > 0 {
		if err := json.Unmarshal(r.Result.Value, v); err != nil {
			b.t.Fatalf("%s: %s: %v", expr, r.Result.Value, err)
		}
	}
}

// until polls a boolean expression until it holds; it returns how long
// that took.
func (b *browser) until(expr, what string, within time.Duration) time.Duration {
	b.t.Helper()
	start := time.Now()
	for {
		var ok bool
		b.eval("!!("+expr+")", &ok)
		if ok {
			return time.Since(start)
		}
		if time.Since(start) > within {
			var body string
			b.eval("document.body.innerText", &body)
			extra := ""
			if b.diag != nil {
				extra = "\n" + b.diag()
			}
			b.t.Fatalf("the page never showed %s in %s; it shows:\n%s%s", what, within, body, extra)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func (b *browser) navigate(url string) {
	b.t.Helper()
	b.call("Page.navigate", map[string]any{"url": url})
}

// screenshot saves the viewport as a PNG when dir is set.
func (b *browser) screenshot(dir, name string) {
	b.t.Helper()
	if dir == "" {
		return
	}
	raw := b.call("Page.captureScreenshot", map[string]any{"format": "png"})
	var r struct {
		Data string `json:"data"`
	}
	_ = json.Unmarshal(raw, &r)
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}
