package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/tmaproject/tma/lib/config"
	"github.com/tmaproject/tma/lib/record"
)

// Cycle is one complete cycle as the last stage emitted it.
type Cycle struct {
	Cycle  *record.Cycle
	Rows   []*record.Row
	Errors []*record.Error
}

// Stage is one process of the pipeline: the binary and its arguments.
type Stage struct {
	Name string // for the log: tma-scan, tma-fold, tma-stamp
	Path string
	Args []string
	// ArgsFrom, when set, adds arguments from the config the daemon runs
	// on (its snapshot's parse, the one the stages read), at each start of
	// the pipeline: one restarted after a reload takes the reloaded
	// config's.
	ArgsFrom func(*config.Config) []string
}

// With is the stage as started under cfg: Args, then ArgsFrom's.
func (s Stage) With(cfg *config.Config) Stage {
	if s.ArgsFrom != nil {
		s.Args = append(slices.Clip(s.Args), s.ArgsFrom(cfg)...)
	}
	return s
}

// Backoff bounds: a pipeline that dies is restarted after RestartMin,
// doubling per consecutive failure up to RestartMax; one that stayed up
// for StableAfter counts as healthy again.
const (
	RestartMin  = 250 * time.Millisecond
	RestartMax  = 30 * time.Second
	StableAfter = 30 * time.Second
)

// supervise runs the stages joined by pipes, delivers every complete
// cycle the last one emits to out, and restarts the whole pipeline with
// backoff when any stage ends (a pipe that loses one stage loses its
// neighbours too); stages is asked for the pipeline at each start. state
// reports what it is doing, for hello. It returns when ctx is done, after
// stopping the stages.
func supervise(ctx context.Context, stages func() []Stage, env []string, log *Log, out chan<- *Cycle, state func(string)) {
	failures := 0
	for {
		began := time.Now()
		state("running")
		err := runOnce(ctx, stages(), env, log, out)
		if ctx.Err() != nil {
			return
		}
		if time.Since(began) >= StableAfter {
			failures = 0
		}
		wait := RestartMin << min(failures, 10)
		if wait > RestartMax {
			wait = RestartMax
		}
		failures++
		log.Printf("pipeline ended (%v); restarting in %s", err, wait)
		state(fmt.Sprintf("restarting in %s: %v", wait, err))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// runOnce runs the pipeline until it ends or ctx is done.
func runOnce(ctx context.Context, stages []Stage, env []string, log *Log, out chan<- *Cycle) error {
	cmds := make([]*exec.Cmd, len(stages))
	var closers []io.Closer
	defer func() {
		for _, c := range closers {
			_ = c.Close()
		}
	}()
	var prev *os.File
	for i, s := range stages {
		cmd := exec.Command(s.Path, s.Args...)
		cmd.Env = env
		cmd.Stderr = &lineWriter{log: log, name: s.Name}
		stageAttr(cmd)
		if prev != nil {
			cmd.Stdin = prev
		}
		r, w, err := os.Pipe()
		if err != nil {
			return err
		}
		closers = append(closers, r, w)
		cmd.Stdout = w
		cmds[i] = cmd
		prev = r
	}
	started := 0
	stop := func() {
		for _, c := range cmds[:started] {
			if c.ProcessState == nil {
				_ = c.Process.Signal(syscall.SIGTERM)
			}
		}
	}
	for i, c := range cmds {
		if err := c.Start(); err != nil {
			stop()
			waitAll(cmds[:started])
			return fmt.Errorf("starting %s: %w", stages[i].Name, err)
		}
		started++
	}
	// The pipes' other ends now belong to the stages; keep only the last
	// stage's stdout.
	last := prev
	for _, c := range closers {
		if c != last {
			_ = c.Close()
		}
	}
	closers = []io.Closer{last}
	done := make(chan error, 1)
	go func() { done <- readCycles(ctx, last, out) }()
	var err error
	select {
	case <-ctx.Done():
		stop()
		<-done
	case err = <-done:
		stop()
	}
	codes := waitAll(cmds)
	if err == nil {
		err = errors.New("the last stage closed its output")
	}
	return fmt.Errorf("%v; exits %s", err, codes)
}

// waitAll reaps the stages; a stage that ignores SIGTERM for 2 s is
// killed (these are our own children, unlike a daemon being restarted).
func waitAll(cmds []*exec.Cmd) string {
	codes := ""
	for _, c := range cmds {
		if c.Process == nil {
			continue
		}
		ch := make(chan struct{})
		go func() { _ = c.Wait(); close(ch) }()
		select {
		case <-ch:
		case <-time.After(2 * time.Second):
			_ = c.Process.Kill()
			<-ch
		}
		if codes != "" {
			codes += ","
		}
		codes += strconv.Itoa(c.ProcessState.ExitCode())
	}
	return codes
}

// readCycles reads the last stage's records and delivers each complete
// cycle. An error record outside a cycle is delivered on its own.
func readCycles(ctx context.Context, r io.Reader, out chan<- *Cycle) error {
	send := func(c *Cycle) error {
		select {
		case out <- c:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	rd := record.NewReader(r)
	var cur *Cycle
	for {
		_, _, v, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return errors.New("the last stage closed its output")
		}
		if err != nil {
			return err
		}
		switch x := v.(type) {
		case *record.Cycle:
			cur = &Cycle{Cycle: x}
		case *record.Row:
			if cur != nil {
				cur.Rows = append(cur.Rows, x)
			}
		case *record.Error:
			if cur == nil {
				if err := send(&Cycle{Errors: []*record.Error{x}}); err != nil {
					return err
				}
				continue
			}
			cur.Errors = append(cur.Errors, x)
		case *record.End:
			if cur != nil {
				if err := send(cur); err != nil {
					return err
				}
				cur = nil
			}
		}
	}
}
