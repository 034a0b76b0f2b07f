package gitinfo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Labels are a directory's git labels.
type Labels struct {
	Repo, Branch string
	Worktree     bool
}

// Resolver memoizes one git call per directory.
type Resolver struct {
	Timeout time.Duration
	cache   map[string]*Labels
}

// New returns a resolver with a 2 s bound per call.
func New() *Resolver { return &Resolver{Timeout: 2 * time.Second, cache: map[string]*Labels{}} }

// Resolve returns the labels of dir, nil when it is in no checkout or git failed.
func (r *Resolver) Resolve(dir string) *Labels {
	if dir == "" {
		return nil
	}
	if l, ok := r.cache[dir]; ok {
		return l
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.Timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--path-format=absolute",
		"--git-common-dir", "--git-dir", "--abbrev-ref", "HEAD").Output()
	var l *Labels
	if err == nil {
		l = parse(string(out))
	} else if f := strings.Split(strings.TrimSpace(string(out)), "\n"); len(f) >= 2 {
		// An unborn branch (a fresh git init) fails only on HEAD: its name
		// is in the HEAD file.
		if b, rerr := os.ReadFile(filepath.Join(f[1], "HEAD")); rerr == nil {
			if ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: refs/heads/"); ok {
				l = parse(f[0] + "\n" + f[1] + "\n" + ref + "\n")
			}
		}
	}
	r.cache[dir] = l
	return l
}

func parse(out string) *Labels {
	f := strings.Split(strings.TrimSpace(out), "\n")
	if len(f) != 3 {
		return nil
	}
	common, gitdir, branch := f[0], f[1], f[2]
	top := common
	if filepath.Base(common) == ".git" {
		top = filepath.Dir(common)
	}
	repo := strings.TrimSuffix(filepath.Base(top), ".git")
	return &Labels{Repo: repo, Branch: branch, Worktree: filepath.Clean(common) != filepath.Clean(gitdir)}
}
