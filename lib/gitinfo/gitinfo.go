package gitinfo

import (
	"context"
	"errors"
	"io/fs"
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

// Resolver memoizes the labels of each directory.
type Resolver struct {
	Timeout time.Duration
	cache   map[string]*Labels
}

// New returns a resolver whose git calls are bounded at 2 s.
func New() *Resolver { return &Resolver{Timeout: 2 * time.Second, cache: map[string]*Labels{}} }

// Resolve returns the labels of dir, nil when it is in no checkout or git failed.
//
// They are read from the files git keeps (.git, gitdir, commondir, HEAD):
// a git process costs about 2 ms of CPU, and tma ls labels every distinct
// directory its agents run in. Only a layout that reading does not know (a
// bare repository, GIT_DIR in the environment, a ref outside refs/heads)
// asks git itself. The labels are the ones `git rev-parse` gives
// (TestFilesAgreeWithGit), except that a checkout git would refuse as
// another user's (safe.directory) is still labelled: the labels are names
// on a row, and reading a HEAD file runs nothing of that checkout's.
func (r *Resolver) Resolve(dir string) *Labels {
	if dir == "" {
		return nil
	}
	if l, ok := r.cache[dir]; ok {
		return l
	}
	l, ok := fromFiles(dir)
	if !ok {
		l = r.fromGit(dir)
	}
	r.cache[dir] = l
	return l
}

// fromFiles finds dir's checkout the way git discovers it: the nearest
// .git at or above dir. ok is false where git must decide.
func fromFiles(dir string) (l *Labels, ok bool) {
	if !filepath.IsAbs(dir) || os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_WORK_TREE") != "" {
		return nil, false
	}
	d := filepath.Clean(dir)
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		return nil, true // git -C fails on it too
	}
	for {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Stat(dotgit)
		switch {
		case err == nil:
			return checkout(d, dotgit, fi)
		case !errors.Is(err, fs.ErrNotExist):
			return nil, false
		}
		if isGitDir(d) {
			return nil, false // inside a bare repository or a .git directory
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, true
		}
		d = parent
	}
}

// checkout reads the labels of the checkout whose .git is dotgit.
func checkout(top, dotgit string, fi fs.FileInfo) (*Labels, bool) {
	gitdir := dotgit
	if !fi.IsDir() {
		b, err := os.ReadFile(dotgit)
		if err != nil {
			return nil, false
		}
		p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
		if !ok {
			return nil, false
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(top, p)
		}
		gitdir = filepath.Clean(p)
	}
	common := gitdir
	if b, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitdir, c)
		}
		common = filepath.Clean(c)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	head, err := os.ReadFile(filepath.Join(gitdir, "HEAD"))
	if err != nil {
		return nil, false
	}
	h := strings.TrimSpace(string(head))
	branch := "HEAD" // detached, as --abbrev-ref says it
	if ref, isRef := strings.CutPrefix(h, "ref: "); isRef {
		b, ok := strings.CutPrefix(ref, "refs/heads/")
		if !ok || b == "" {
			return nil, false
		}
		branch = b
	} else if !isObjectID(h) {
		return nil, false
	}
	return parse(common + "\n" + gitdir + "\n" + branch + "\n"), true
}

// isGitDir: d holds a repository's own files (HEAD and objects/).
func isGitDir(d string) bool {
	if _, err := os.Stat(filepath.Join(d, "HEAD")); err != nil {
		return false
	}
	fi, err := os.Stat(filepath.Join(d, "objects"))
	return err == nil && fi.IsDir()
}

func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// fromGit asks git: one bounded call.
func (r *Resolver) fromGit(dir string) *Labels {
	ctx, cancel := context.WithTimeout(context.Background(), r.Timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--path-format=absolute",
		"--git-common-dir", "--git-dir", "--abbrev-ref", "HEAD").Output()
	if err == nil {
		return parse(string(out))
	}
	if f := strings.Split(strings.TrimSpace(string(out)), "\n"); len(f) >= 2 {
		// An unborn branch (a fresh git init) fails only on HEAD: its name
		// is in the HEAD file.
		if b, rerr := os.ReadFile(filepath.Join(f[1], "HEAD")); rerr == nil {
			if ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: refs/heads/"); ok {
				return parse(f[0] + "\n" + f[1] + "\n" + ref + "\n")
			}
		}
	}
	return nil
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
