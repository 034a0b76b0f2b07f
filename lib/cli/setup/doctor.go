package setupcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tmaproject/tma/lib/act"
	"github.com/tmaproject/tma/lib/cli/common"
	"github.com/tmaproject/tma/lib/daemon"
	"github.com/tmaproject/tma/lib/daemon/daemonpath"
	"github.com/tmaproject/tma/lib/doctor"
	"github.com/tmaproject/tma/lib/install"
	"github.com/tmaproject/tma/lib/notify"
	"github.com/tmaproject/tma/lib/record"
	"github.com/tmaproject/tma/lib/scan"
	"github.com/tmaproject/tma/lib/tmux"
)

type doctorCmd struct {
	JSON     bool `name:"json" help:"print the whole diagnosis as one schema-1 object."`
	ExitCode bool `name:"exit-code" help:"exit non-zero on findings (warnings, or panes below the tier their manifest supports); the verdict goes to stderr."`
}

// actionsDir is <config dir>/actions, where tma act loads user actions.
func actionsDir(e *common.Env) string {
	if d := common.ConfigDir(e); d != "" {
		return filepath.Join(d, "actions")
	}
	return ""
}

// doctor diagnoses the server the globals name. It is read-only: it
// observes the panes as the cycle does (without capturing) and stamps
// nothing; lib/doctor decides the verdict from what it gathers.
func (r *run) doctor(d *doctorCmd) int {
	// A config that does not load is a finding like any other: the report
	// goes on with the defaults in its place and names it.
	l, cfgErr, err := r.g.LoadReporting(common.Quiet(r.e))
	if err != nil {
		r.e.Errorf("%v", err)
		return common.ExitFail
	}
	r.loaded = l
	self, _ := os.Executable()
	r.env = install.Env{Getenv: r.e.Getenv, Self: self, Flags: r.h.flags()}
	r.tmaPath = r.findTma(self)
	r.wrapper, r.wrapErr = r.env.ResolveWrapper(l.Config.Install.WrapperRef, "")
	if r.record, err = install.LoadRecord(r.env.RecordPath()); err != nil {
		r.e.Errorf("%v", err)
		return common.ExitFail
	}
	if r.slRecord, err = install.LoadStatusline(r.env.StatuslinePath()); err != nil {
		r.e.Errorf("%v", err)
		return common.ExitFail
	}
	doc, text := doctor.Diagnose(r.doctorFacts(self, cfgErr))
	if d.JSON {
		b, _ := json.Marshal(doc)
		fmt.Fprintf(r.e.Stdout, "%s\n", b)
	} else {
		fmt.Fprint(r.e.Stdout, text)
	}
	if d.ExitCode {
		fmt.Fprintf(r.e.Stderr, "tma: doctor: %d warning(s), %d pane(s) below the tier their manifest supports\n", doc.Warnings, doc.BelowTier)
		if doc.Warnings > 0 || doc.BelowTier > 0 {
			return common.ExitFail
		}
	}
	return common.ExitOK
}

// daemonUnderServerEnv looks for the server's daemon where the server's
// own environment puts it. The keys' launcher (run-shell) and the hooks of
// agents in its panes run with the server's global environment; a shell
// whose XDG_RUNTIME_DIR (or TMPDIR) differs looks in another directory and
// finds no daemon while one drives every cycle. Found there, it is the
// daemon, with a note saying why this shell's commands do not reach it.
func (r *run) daemonUnderServerEnv(ctx context.Context, c *tmux.Client, server string, here doctor.Daemon) doctor.Daemon {
	out, _, _ := c.Run(ctx, "", "show-environment", "-g")
	senv := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			senv[k] = v
		}
	}
	getenv := func(k string) string {
		if k == "XDG_RUNTIME_DIR" || k == "TMPDIR" {
			return senv[k]
		}
		return r.e.Getenv(k)
	}
	v := &daemonView{paths: daemon.ForEnv(server, getenv)}
	if v.paths.Dir == daemon.ForEnv(server, r.e.Getenv).Dir {
		return here
	}
	if v.running, _ = daemon.Find(v.paths); v.running == nil {
		return here
	}
	v.hello, _ = daemon.Ask(v.paths, time.Second)
	d := v.facts()
	d.OtherDir = fmt.Sprintf("under the tmux server's runtime directory (%s), not this shell's (%s): the server's panes and its launcher reach it, commands from this shell do not (they poll instead); give this shell the server's XDG_RUNTIME_DIR, or start tmux from a shell that has this one's", v.paths.Dir, daemon.ForEnv(server, r.e.Getenv).Dir)
	return d
}

// doctorFacts gathers what doctor looks at: one scan that reads the agent
// panes' screens (one capture call for all of them: the mode a screen
// names, [[modes]], is only on the screen), then,
// when a server answered, its tmux hooks and options. cfgErr is the config
// that did not load (the defaults stand in).
func (r *run) doctorFacts(self string, cfgErr error) doctor.Facts {
	ctx := common.Background()
	c := r.client()
	cfg := r.loaded.Config
	f := doctor.Facts{NowMS: time.Now().UnixMilli(), Socket: r.socket(c), Wrapper: r.wrapper, WrapperErr: r.wrapErr,
		Manifests: r.loaded.Manifests, Config: cfg, ConfigPath: r.loaded.ConfigPath, ConfigErr: cfgErr,
		WatcherAlive: func(pid int) bool { return syscall.Kill(pid, 0) == nil },
		HookStatus:   func(ad install.Adapter) *install.Status { st, _ := ad.Check(r.ctx(ad)); return st },
		APIProblem:   func(p *record.Pane, prior record.Prior) string { return doctor.APIProblem(cfg, p, prior) },
	}
	res, err := scan.Run(ctx, c, scan.Options{Manifests: r.loaded.Manifests, Tuning: r.loaded.Tuning(), Host: common.Host(),
		Now: func() int64 { return time.Now().UnixMilli() }, CaptureAll: true})
	server := f.Socket
	if err != nil {
		f.ScanErr = common.DescribeTmuxError(r.e, c, err)
	} else {
		f.Scan, server = res, res.Cycle.Server
		// Every `tma status` run marks the server's .status file;
		// @tma_status_at is written only every 30 s (each option write
		// redraws every client), so the newer of the two is when it ran.
		if at := daemonpath.StatusRunAt(daemonpath.ForEnv(server, r.e.Getenv).StatusRun); at > res.Cycle.LastStatusMS {
			res.Cycle.LastStatusMS = at
		}
	}
	f.Daemon = r.daemonOf(server).facts()
	if !f.Daemon.Up && f.Scan != nil {
		f.Daemon = r.daemonUnderServerEnv(ctx, c, server, f.Daemon)
	}
	if f.Scan != nil {
		th := r.tmuxHooks(c)
		if entries, err := th.List(ctx); err == nil {
			var recorded []string
			if tr := r.record.TmuxFor(r.socket(c)); tr != nil {
				recorded = tr.Hooks
			}
			f.TmuxHooks, f.TmuxHooksListed = th.Check(entries, recorded), true
		}
		f.Options = doctor.ReadOptions(ctx, c)
		f.Keys = doctor.ReadKeys(ctx, c)
		r.keysNoted = true // doctor reports; install-keys' note is not its line
		if spec, err := r.keysSpec(self); err == nil {
			f.Keys.Self = spec.Tma
		}
	}
	f.Actions, f.ActionsErr = act.Load(actionsDir(r.e))
	f.FzfLine, f.FzfOK = FzfDoctorLine(r.e.Getenv, self)
	f.Notify, f.NotifyErr = notify.LastFailure(r.e.Getenv)
	return f
}
