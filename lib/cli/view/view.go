package viewcmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/tmaproject/tma/lib/buildinfo"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/gitinfo"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/selector"
	"github.com/tmaproject/tma/lib/view"
)

type lsCmd struct {
	selector.Flags
	JSON bool     `name:"json" help:"print the schema-1 document."`
	Pane string   `name:"pane" placeholder:"ID" help:"only this pane."`
	Host []string `name:"host" placeholder:"NAME" help:"rows from this host: a [[remote]] name, this host's name, or all (repeatable; none: this host only)."`
}

type statusCmd struct {
	selector.Flags
	Format     string   `name:"format" enum:"tmux,plain,json,prom" default:"tmux" help:"tmux, plain, json or prom."`
	FromDaemon bool     `name:"from-daemon" hidden:"" help:"render the running daemon's latest cycle instead of stdin; exit 75 when no daemon answers."`
	Host       []string `name:"host" placeholder:"NAME" help:"count this host's agents: a [[remote]] name, this host's name, or all (repeatable; none: this host only)."`
}

type explainCmd struct {
	Pane string `arg:"" help:"the pane (%N)."`
	JSON bool   `name:"json" help:"print the schema-1 document."`
}

// debugCmd holds `tma debug explain`, named in this grammar as the user
// types it, so its help says so.
type debugCmd struct {
	Explain explainCmd `cmd:"" help:"explain one pane's verdict (input from tma-fold --explain)."`
}

type versionCmd struct {
	Short bool `name:"short" help:"print only the first line, tma <version> (what tma --version prints)."`
}

type cli struct {
	common.Globals
	Version versionCmd `cmd:"" help:"print the version and build information (commit, date, Go version)."`
	Ls      lsCmd      `cmd:"" help:"list agent rows (tab-separated, or --json)."`
	Status  statusCmd  `cmd:"" help:"print state counts."`
	Debug   debugCmd   `cmd:"" help:"inspection: debug explain."`
}

// Run is tma-view's main.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := common.NewEnv("tma-view", stdin, stdout, stderr)
	var c cli
	kctx, code, ok := common.Parse(e, &c, "Render rows from tma-stamp (or folded panes for explain).", args)
	if !ok {
		return code
	}
	cmd := kctx.Command()
	if cmd == "version" {
		if c.Version.Short {
			fmt.Fprintf(stdout, "tma %s\n", common.Version)
		} else if buildinfo.Read(common.Version).Write(stdout) != nil {
			return common.ExitFail
		}
		return common.ExitOK
	}
	// Only the status line's own format stays silent on failure (its stderr
	// has nowhere to go but the status bar); json, prom and plain feed
	// scripts and scrapers, which need to hear why.
	quiet := cmd == "status" && c.Status.Format == "tmux"
	fail := func(msg string, code int) int {
		if !quiet {
			fmt.Fprintf(stderr, "tma: error: %s\n", msg)
		}
		return code
	}
	var sel *selector.Selector
	var err error
	switch cmd {
	case "ls":
		sel, err = c.Ls.Flags.Compile()
	case "status":
		sel, err = c.Status.Flags.Compile()
	}
	if err != nil {
		fmt.Fprintf(stderr, "tma: error: %v\n", err)
		return common.ExitUsage
	}
	cfg := config.Default()
	switch cmd {
	case "status":
		if l, _, err := config.LoadResolved(c.Config, config.Env(e.Lookup)); err == nil {
			cfg = l
		} else {
			return fail(err.Error(), common.ExitFail)
		}
	case "ls":
		// For [daemon] autostart and restart_on_upgrade (surface); a
		// broken config is the scan's to report, in-band.
		if l, _, err := config.LoadResolved(c.Config, config.Env(e.Lookup)); err == nil {
			cfg = l
		}
	}

	if cmd == "status" && c.Status.FromDaemon {
		in, ok := fromDaemon(e, &c.Globals, cfg)
		if !ok {
			return ExitNoDaemon
		}
		e.Stdin = in // the daemon's latest cycle takes the pipeline's place
	}
	// Remotes are dialled while the local pipeline runs (after the daemon
	// check: a run that exits 75 for the dispatcher to retry dials nothing).
	words := c.Ls.Host
	if cmd == "status" {
		words = c.Status.Host
	}
	remotes, err := startHosts(e, &c.Globals, words)
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "tma: error: %v\n", err)
			return common.ExitUsage
		}
		return fail(err.Error(), common.ExitFail)
	}

	var rows []*record.Row
	var panes []*record.Pane
	var upstream *record.Error
	var last int64
	var server string
	seen := false
	err = common.ReadGroups(e, func(g *record.Group) error {
		if len(g.Errors) > 0 && upstream == nil {
			upstream = g.Errors[0]
		}
		if g.Cycle != nil {
			seen = true
			// One document per run: the last complete cycle wins.
			rows, panes, last = g.Rows, g.Panes, g.Cycle.NowMS
			server = g.Cycle.Server
		}
		return nil
	})
	// A --host that leaves this host out does not need its server.
	if remotes != nil && !remotes.local {
		err, upstream, seen = nil, nil, true
	}
	if err != nil {
		return fail(err.Error(), common.ExitFail)
	}
	if upstream != nil {
		return fail(upstream.Message, upstream.ExitCode())
	}
	if !seen {
		return fail("no cycle reached the end of the pipeline (an earlier stage failed)", common.ExitFail)
	}

	if cmd == "debug explain <pane>" {
		for _, p := range panes {
			if p.Pane == c.Debug.Explain.Pane {
				if c.Debug.Explain.JSON {
					err = view.ExplainJSON(stdout, p)
				} else {
					err = view.ExplainText(stdout, p)
				}
				if err != nil {
					return common.ExitFail
				}
				return common.ExitOK
			}
		}
		return fail(fmt.Sprintf("no such pane: %s", c.Debug.Explain.Pane), common.ExitVanish)
	}

	var git *gitinfo.Resolver
	if cmd == "ls" || sel.NeedsGit() {
		git = gitinfo.New()
	}
	var keep []*record.Row
	for _, r := range rows {
		if git != nil {
			if l := git.Resolve(r.CWD); l != nil {
				repo, branch, wt := l.Repo, l.Branch, l.Worktree
				r.Row.Repo, r.Row.Branch, r.Row.Worktree = &repo, &branch, &wt
			}
		}
		if cmd == "ls" && c.Ls.Pane != "" && r.Row.Pane != c.Ls.Pane {
			continue
		}
		if sel.Match(r) {
			keep = append(keep, r)
		}
	}
	view.SortLs(keep)
	keep = remotes.merge(e, keep, sel, c.Ls.Pane)
	style := func(class string) view.Style {
		s := cfg.StatusStyle(class)
		return view.Style{Glyph: s.Glyph, Color: s.Color}
	}
	switch cmd {
	case "ls":
		if c.Ls.JSON {
			err = view.LsJSON(stdout, keep)
		} else {
			err = remotes.plain(stdout, keep)
		}
	case "status":
		var s string
		switch c.Status.Format {
		case "tmux":
			s = view.StatusTmux(keep, style)
		case "plain":
			s = view.StatusPlain(keep, style)
		case "json":
			s = view.StatusJSON(keep)
		case "prom":
			_, err = io.WriteString(stdout, view.StatusProm(keep, last))
		}
		if s != "" {
			_, err = fmt.Fprintln(stdout, s)
		}
	}
	if err != nil {
		return common.ExitFail
	}
	if cmd == "status" && !c.Status.FromDaemon || cmd == "ls" {
		surface(e, &c.Globals, cfg, server)
	}
	return common.ExitOK
}
