package lifeline

import (
	"context"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// PipelineEnv names the pid of the shell that runs a pipeline; the
// dispatcher gives it to each stage so the stage can tell that shell died
// before the stage could bind to it (between the fork and Bind).
const PipelineEnv = "TMA_PIPELINE_PID"

// PollEvery is how often a stage looks at its parent where the kernel cannot
// tell it of the parent's death.
const PollEvery = 200 * time.Millisecond

// Bind makes the parent's death end this process the way a SIGTERM does
// (the stage's own handling, if any, runs). On Linux the kernel delivers it
// (PR_SET_PDEATHSIG); elsewhere a goroutine polls getppid. A parent that
// already died, before the binding or before this process started, ends it
// at once. PipelineEnv is unset afterwards, so the stage's own children
// (tmux, git) do not check against a shell that is not theirs.
func Bind() {
	ppid := os.Getppid()
	want, told := os.LookupEnv(PipelineEnv)
	if told {
		_ = os.Unsetenv(PipelineEnv)
	}
	armed := armParentDeath()
	if (told && want != strconv.Itoa(ppid)) || os.Getppid() != ppid {
		end()
		return
	}
	if !armed {
		go func() {
			for range time.Tick(PollEvery) {
				if os.Getppid() != ppid {
					end()
					return
				}
			}
		}()
	}
}

// end delivers the parent-death signal by hand.
func end() { _ = unix.Kill(os.Getpid(), unix.SIGTERM) }

// ending are the signals that end a stage. One ignored when the process
// started (nohup's SIGHUP, a background job's SIGINT) stays ignored.
var ending = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}

// Signalled is the cause of a context that an ending signal cancelled.
type Signalled struct{ Signal syscall.Signal }

func (s Signalled) Error() string { return "ended by " + s.Signal.String() }

// Code is the exit status a shell reports for a process the signal killed.
func (s Signalled) Code() int { return 128 + int(s.Signal) }

// Context returns a context that an ending signal cancels, with Signalled
// as its cause, for a stage that must undo something before it exits (a
// follower's control clients). Only the first signal is caught: a second
// one finds the default action and ends the process however far the undoing
// got. stop restores the default handling.
func Context(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	var sigs []os.Signal
	for _, s := range ending {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	ch := make(chan os.Signal, 1)
	if len(sigs) > 0 { // Notify with none would relay every signal
		signal.Notify(ch, sigs...)
	}
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			cancel(Signalled{Signal: s.(syscall.Signal)})
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			cancel(context.Canceled)
		})
	}
}

// Cause returns the signal that ended ctx, if one did.
func Cause(ctx context.Context) (Signalled, bool) {
	s, ok := context.Cause(ctx).(Signalled)
	return s, ok
}
