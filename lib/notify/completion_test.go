package notify

import (
	"slices"
	"strings"
	"testing"
)

func TestCompletionPayload(t *testing.T) {
	code := 3
	c := &Completion{Action: "summarize", Pane: "%5", Agent: "claude", Outcome: "exited", ExitCode: &code, Locator: "s:1.0"}
	if got := string(c.JSON()); got != `{"schema":1,"action":"summarize","pane":"%5","agent":"claude","outcome":"exited","exit_code":3,"locator":"s:1.0","lock_release_failed":false}` {
		t.Errorf("payload %s", got)
	}
	if got := string(c.LogLine(42)); got != `{"schema":1,"at":42,"action":"summarize","pane":"%5","agent":"claude","outcome":"exited","exit_code":3,"locator":"s:1.0","lock_release_failed":false}`+"\n" {
		t.Errorf("log line %s", got)
	}
	if got := c.Env(); !slices.Equal(got, []string{"TMA_ACTION=summarize", "TMA_PANE=%5", "TMA_AGENT=claude", "TMA_OUTCOME=exited", "TMA_EXIT_CODE=3", "TMA_LOCATOR=s:1.0"}) {
		t.Errorf("env %v", got)
	}
	if got := CompletionMessage(c); got != "tma: summarize on %5 (s:1.0): exited 3" {
		t.Errorf("message %q", got)
	}
	// A deadline kill on a pane that is gone: no code, no locator, and
	// their variables unset, never empty.
	k := &Completion{Action: "slow", Pane: "%9", Agent: "codex", Outcome: "timeout", LockReleaseFailed: true}
	if got := string(k.JSON()); got != `{"schema":1,"action":"slow","pane":"%9","agent":"codex","outcome":"timeout","exit_code":null,"locator":null,"lock_release_failed":true}` {
		t.Errorf("payload %s", got)
	}
	for _, kv := range k.Env() {
		if strings.HasPrefix(kv, "TMA_EXIT_CODE") || strings.HasPrefix(kv, "TMA_LOCATOR") {
			t.Errorf("%s set with nothing to report", kv)
		}
	}
	// An inherited completion variable never reaches a state fire's command.
	if got := withoutPayloadVars([]string{"TMA_OUTCOME=exited", "TMA_EXIT_CODE=1", "HOME=/h", "TMA_STATE=idle"}); !slices.Equal(got, []string{"HOME=/h"}) {
		t.Errorf("stripped env %v", got)
	}
}
