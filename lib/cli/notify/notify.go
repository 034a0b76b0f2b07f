package notifycmd

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/notify"
)

type testCmd struct {
	Trigger string `name:"trigger" default:"blocked" enum:"blocked,done,context_high,stall,completion" help:"the trigger whose command runs: blocked, done, context_high, stall, or completion (a detached action's, the global command)."`
}

type runCmd struct {
	Trigger string `name:"trigger" required:"" help:"the trigger that fired."`
	Command string `arg:"" help:"the notify command (sh -c)."`
}

// debugCmd holds `tma debug notify-test`, named in this grammar as the
// user types it, so its help says so.
type debugCmd struct {
	NotifyTest testCmd `cmd:"" name:"notify-test" help:"run the command a trigger resolves to with a representative payload, wait, and report."`
}

type cli struct {
	common.Globals
	Debug debugCmd `cmd:"" help:"inspection: debug notify-test."`
	Run   runCmd   `cmd:"" hidden:"" help:"internal: run a fire's command under its bound and record the outcome (the payload on stdin)."`
}

// Run is tma-notify's main.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := common.NewEnv("tma", stdin, stdout, stderr)
	var c cli
	kctx, code, ok := common.Parse(e, &c, "Notifications: test a trigger's command; supervise a fire's command.", args)
	if !ok {
		return code
	}
	if strings.HasPrefix(kctx.Command(), "run") {
		return supervise(e, &c.Run)
	}
	return test(e, &c.Globals, &c.Debug.NotifyTest)
}

// supervise is what a fire leaves running in the background: it has the
// payload on stdin and the TMA_* variables in its environment already.
func supervise(e *common.Env, r *runCmd) int {
	payload, _ := io.ReadAll(io.LimitReader(e.Stdin, 1<<16))
	var env []string
	for _, n := range notify.EnvNames {
		if v, ok := e.Lookup(n); ok {
			env = append(env, n+"="+v)
		}
	}
	res := notify.Run(r.Command, payload, env, notify.Timeout(e.Getenv))
	_ = notify.Record(e.Getenv, r.Trigger, r.Command, res, time.Now().UnixMilli())
	return 0
}

func test(e *common.Env, g *common.Globals, t *testCmd) int {
	cfg, _, err := config.LoadResolved(g.Config, config.Env(e.Lookup))
	if err != nil {
		e.Errorf("%v", err)
		return common.ExitFail
	}
	home, _ := os.UserHomeDir()
	wd, _ := os.Getwd()
	now := time.Now().UnixMilli()
	if t.Trigger == notify.CompletionTrigger {
		c := notify.SampleCompletion()
		return report(e, g, cfg, home, t.Trigger, c.JSON(), c.Env(), sample{
			message: notify.CompletionMessage(c), agent: c.Action, state: c.Outcome})
	}
	// A representative transition: what a real fire of this trigger sends,
	// with the repo and branch of the directory the test runs in.
	f := &notify.Fired{Trigger: t.Trigger, Pane: "%0", Agent: "claude", Locator: "main:1.0",
		Title: "tma notify-test", CWD: wd, SinceMS: now - 5000}
	switch t.Trigger {
	case notify.Blocked:
		f.State, f.Detail = "blocked", "permission"
	case notify.Done:
		f.State = "idle"
	case notify.Stall:
		f.State, f.SinceMS = "working", now-int64(max(1, threshold(cfg)))*1000
	case notify.ContextHigh:
		f.State = "working"
		pct := int64(80)
		if cfg.Notify.ContextHigh != nil && cfg.Notify.ContextHigh.Threshold > 0 {
			pct = int64(cfg.Notify.ContextHigh.Threshold)
		}
		f.Context = &pct
	}
	repo, branch := notify.GitLabels(gitinfo.New())(wd)
	p := notify.Build(f, now, cfg.Notify.IncludeTitle, repo, branch)
	p.URL = notify.CardURL(cfg.Serve.HTTP.PublicURL, f.Pane)
	return report(e, g, cfg, home, t.Trigger, p.JSON(), p.Env(), sample{
		message: notify.Message(f, f.Trigger), agent: f.Agent, state: f.Trigger})
}

// sample is what the other sinks show of a test fire: the message, and the
// text the OSC sequences carry.
type sample struct{ message, agent, state string }

// report runs the command trigger resolves to on payload, waits, and says
// what it and every other sink did. A completion resolves to the global
// command (a detached action has no sub-table of its own).
func report(e *common.Env, g *common.Globals, cfg *config.Config, home, trigger string, payload []byte, env []string, smp sample) int {
	fmt.Fprintf(e.Stdout, "payload   %s\n", payload)
	cmd := cfg.NotifyCommand(trigger, config.Env(e.Lookup))
	if cmd == "" {
		fmt.Fprintln(e.Stdout, "command   (none)")
		if trigger == notify.CompletionTrigger {
			e.Errorf("trigger %s resolves to no command\nhint: set [notify] command (a completion uses the global one)", trigger)
		} else {
			e.Errorf("trigger %s resolves to no command\nhint: set [notify] command, or command in [notify.%s]", trigger, trigger)
		}
		return common.ExitFail
	}
	cmd = config.ExpandHome(cmd, home)
	fmt.Fprintf(e.Stdout, "command   %s\n", cmd)
	res := notify.Run(cmd, payload, env, notify.Timeout(e.Getenv))
	_ = notify.Record(e.Getenv, trigger, cmd, res, time.Now().UnixMilli())
	if res.Exit >= 0 {
		fmt.Fprintf(e.Stdout, "exit      %d\n", res.Exit)
	} else {
		fmt.Fprintf(e.Stdout, "exit      %s\n", res.Reason)
	}
	otherSinks(e, g, cfg, smp, home)
	if res.Stderr != "" {
		_, _ = io.WriteString(e.Stderr, res.Stderr)
		if !strings.HasSuffix(res.Stderr, "\n") {
			_, _ = io.WriteString(e.Stderr, "\n")
		}
	}
	if res.Reason != "" {
		return common.ExitFail
	}
	return common.ExitOK
}

// otherSinks tries the sinks beside the command and says what each did:
// the message on the server's clients and the bell/OSC bytes on this pane,
// where there is a server and a pane; the log is named, never written (it
// records real fires only). The bytes go first, as in a real fire: a
// message shown first would freeze the clients' terminals and drop them.
func otherSinks(e *common.Env, g *common.Globals, cfg *config.Config, smp sample, home string) {
	n := cfg.Notify
	tc := g.Tmux(e, cfg)
	tc.Timeout = 2 * time.Second
	ctx := common.Background()
	out, _, err := tc.Run(ctx, "", "list-clients", "-F", "#{client_name}")
	var seqs []string
	for _, on := range []struct {
		set  bool
		name string
	}{{n.Bell, "bell"}, {n.OSC, "osc"}, {n.OSC777, "osc_777"}} {
		if on.set {
			seqs = append(seqs, on.name)
		}
	}
	ttyLine := ""
	if len(seqs) > 0 {
		pane := e.Getenv("TMUX_PANE")
		tty := ""
		if err == nil && pane != "" {
			if o, _, terr := tc.Run(ctx, "", "display", "-p", "-t", pane, "#{pane_tty}"); terr == nil {
				tty = strings.TrimSpace(o)
			}
		}
		switch {
		case tty == "":
			ttyLine = fmt.Sprintf("tty       %s on; not written: not run in a tmux pane of this server\n", strings.Join(seqs, ", "))
		default:
			if werr := notify.WriteTTY(tty, notify.TTYBytes(n.Bell, n.OSC, n.OSC777, smp.agent, smp.state)); werr != nil {
				ttyLine = fmt.Sprintf("tty       %s: %v\n", strings.Join(seqs, ", "), werr)
			} else {
				ttyLine = fmt.Sprintf("tty       %s written to %s\n", strings.Join(seqs, ", "), tty)
			}
		}
	}
	switch {
	case err != nil:
		fmt.Fprintf(e.Stdout, "message   not shown: %s\n", common.DescribeTmuxError(e, tc, err))
	default:
		lines := notify.DisplayLines(strings.Fields(out), "tma notify-test: "+smp.message)
		if len(lines) == 0 {
			fmt.Fprintln(e.Stdout, "message   not shown: no client attached")
		} else if _, err := tc.Exec(ctx, lines); err != nil {
			fmt.Fprintf(e.Stdout, "message   not shown: %v\n", err)
		} else {
			fmt.Fprintf(e.Stdout, "message   shown on %d client(s)\n", len(lines))
		}
	}
	_, _ = io.WriteString(e.Stdout, ttyLine)
	if p := cfg.NotifyLog(home); p != "" {
		fmt.Fprintf(e.Stdout, "log       %s (real fires append there; a test does not)\n", p)
	}
}

func threshold(cfg *config.Config) int {
	if cfg.Notify.Stall != nil {
		return cfg.Notify.Stall.ThresholdS
	}
	return 900
}
