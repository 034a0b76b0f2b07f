package servecmd

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/cli/serve/grammar"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/remote"
)

type remoteActCmd = grammar.RemoteAct

// remoteAct fires through the host's serve and reports as a local fire
// does: the result object with --json, a stderr line for anything but
// success, the result's exit code.
func remoteAct(e *common.Env, g *common.Globals, c *remoteActCmd) int {
	cfg, _, err := config.LoadResolved(g.Config, config.Env(e.Lookup))
	if err != nil {
		e.Errorf("%v", err)
		return common.ExitFail
	}
	r := cfg.Remote(c.Host)
	if r == nil {
		var names []string
		for _, x := range cfg.Remotes {
			names = append(names, x.Name)
		}
		e.Errorf("no [[remote]] is called %q (configured: %s); tma act on this host takes no --host", c.Host, strings.Join(names, ", "))
		return common.ExitUsage
	}
	rc, err := remote.Dispatch(common.Background(), *r, common.Version, remote.Fire{Action: c.Name, Pane: c.Pane, Slot: c.Slot, Text: c.Text})
	if err != nil {
		e.Errorf("remote %s: %v", c.Host, err)
		return common.ExitFail
	}
	if c.JSON {
		doc := struct {
			Schema   int     `json:"schema"`
			Action   string  `json:"action"`
			Pane     string  `json:"pane"`
			Outcome  string  `json:"outcome"`
			ExitCode int     `json:"exit_code"`
			Reason   *string `json:"reason"`
			Cached   *bool   `json:"cached,omitempty"`
		}{1, rc.Action, rc.Pane, rc.Outcome, rc.ExitCode, rc.Reason, nil}
		// cached is the --slot dispatch's key, as on a local fire.
		if c.Slot != "" {
			doc.Cached = &rc.Cached
		}
		b, _ := json.Marshal(doc)
		fmt.Fprintln(e.Stdout, string(b))
	}
	if rc.Outcome != "sent" && rc.Outcome != "replied" && rc.Outcome != "spawned" {
		what := rc.Outcome
		if rc.Reason != nil {
			what += ": " + *rc.Reason
		}
		fmt.Fprintf(e.Stderr, "tma: %s on %s:%s: %s\n", c.Name, c.Host, c.Pane, what)
	}
	return rc.ExitCode
}
