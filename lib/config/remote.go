package config

import (
	"fmt"
	"regexp"
	"sync"
	"time"
)

// Remote is one [[remote]] entry: a host whose `tma serve --stdio` the
// local surfaces merge in. Command is any argv whose stdin and stdout speak
// the serve protocol (with an ssh forced command, just ssh -T <host>);
// Attach, when set, is the argv that attaches to one of its panes, its
// pane id appended. TimeoutMS is nil when not written.
type Remote struct {
	Name      string   `toml:"name"`
	Command   []string `toml:"command"`
	Attach    []string `toml:"attach"`
	TimeoutMS *int     `toml:"timeout_ms"`
}

// RemoteTimeoutDefault is how long a remote may take to answer when its
// entry does not say.
const RemoteTimeoutDefault = 2 * time.Second

// Timeout is the most a remote may cost a surface.
func (r *Remote) Timeout() time.Duration {
	if r.TimeoutMS == nil {
		return RemoteTimeoutDefault
	}
	return time.Duration(*r.TimeoutMS) * time.Millisecond
}

// Remote is the [[remote]] entry called name, nil when none is.
func (c *Config) Remote(name string) *Remote {
	for i := range c.Remotes {
		if c.Remotes[i].Name == name {
			return &c.Remotes[i]
		}
	}
	return nil
}

// remoteNameRE is a host label: what rows, selectors and --host use. "all"
// is --host's word for every remote, so no remote may be called that.
// Compiled on first use: every tool links lib/config, and a regexp built
// at init is paid by every process, a status line's included.
var remoteNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

func (c *Config) validateRemotes() error {
	seen := map[string]bool{}
	for i, r := range c.Remotes {
		key := func(k string) string { return fmt.Sprintf("remote[%d].%s", i+1, k) }
		switch {
		case r.Name == "":
			return &Error{Key: key("name"), Msg: "is required"}
		case !remoteNameRE().MatchString(r.Name):
			return &Error{Key: key("name"), Msg: fmt.Sprintf("invalid host label %q (letters, digits and . _ -, at most 64)", r.Name)}
		case r.Name == "all":
			return &Error{Key: key("name"), Msg: `"all" is --host's word for every remote`}
		case seen[r.Name]:
			return &Error{Key: key("name"), Msg: fmt.Sprintf("remote %q is listed twice", r.Name)}
		case len(r.Command) == 0 || r.Command[0] == "":
			return &Error{Key: key("command"), Msg: `is required: the argv that speaks tma serve --stdio, e.g. ["ssh", "-T", "build"]`}
		case r.Attach != nil && (len(r.Attach) == 0 || r.Attach[0] == ""):
			return &Error{Key: key("attach"), Msg: "an empty argv"}
		case r.TimeoutMS != nil && *r.TimeoutMS < 1:
			return &Error{Key: key("timeout_ms"), Msg: fmt.Sprintf("must be at least 1 (milliseconds), got %d", *r.TimeoutMS)}
		}
		seen[r.Name] = true
	}
	return nil
}
