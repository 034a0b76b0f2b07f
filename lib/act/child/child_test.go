package child

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	var out, errb bytes.Buffer
	o, err := Run(`printf '%s|%s' "$TMA_ARG" "$X"; exit 3`, []string{"TMA_ARG=$(reboot)", "PATH=/usr/bin:/bin"}, &out, &errb, 5*time.Second)
	if err != nil || o.TimedOut || o.Code != 3 {
		t.Fatalf("outcome %+v %v", o, err)
	}
	if out.String() != "$(reboot)|" {
		t.Errorf("the env is the whole environment and values are data: %q", out.String())
	}
	start := time.Now()
	o, err = Run("sleep 5 & sleep 5; echo never", []string{"PATH=/usr/bin:/bin"}, &out, &errb, 200*time.Millisecond)
	if err != nil || !o.TimedOut || o.Code != 124 {
		t.Fatalf("timeout outcome %+v %v", o, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the group kill took %v", d)
	}
	o, _ = Run("kill -TERM $$", []string{"PATH=/usr/bin:/bin"}, &out, &errb, 5*time.Second)
	if o.Code != 143 {
		t.Errorf("a signalled child is 128+N, got %d", o.Code)
	}
	if strings.Contains(out.String(), "never") {
		t.Errorf("the killed child went on")
	}
}
