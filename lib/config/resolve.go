package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Resolve picks the config file, highest first: flagPath (--config), TMA_CONFIG, then
// $XDG_CONFIG_HOME/tma/config.toml and <home>/.config/tma/config.toml, whichever exists first.
// explicit is true for the first two, which are returned whether or not they exist; an empty value
// counts as unset, as does a relative XDG_CONFIG_HOME (the XDG spec ignores those). path is "" when
// no file exists at any source: the zero-config floor.
func Resolve(flagPath string, env Env, home string) (path string, explicit bool) {
	if flagPath != "" {
		return flagPath, true
	}
	if v, _ := env("TMA_CONFIG"); v != "" {
		return v, true
	}
	if x, _ := env("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		if p := filepath.Join(x, "tma", "config.toml"); present(p) {
			return p, false
		}
	}
	if home != "" {
		if p := filepath.Join(home, ".config", "tma", "config.toml"); present(p) {
			return p, false
		}
	}
	return "", false
}

// Candidates lists every file Resolve may pick, highest first: the one --config or TMA_CONFIG
// names, else the XDG and home paths whether or not they exist. A long-running reader watches
// them all, so that creating, editing or removing any of them is noticed.
func Candidates(flagPath string, env Env, home string) []string {
	if flagPath != "" {
		return []string{flagPath}
	}
	if v, _ := env("TMA_CONFIG"); v != "" {
		return []string{v}
	}
	var out []string
	if x, _ := env("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		out = append(out, filepath.Join(x, "tma", "config.toml"))
	}
	if home != "" {
		out = append(out, filepath.Join(home, ".config", "tma", "config.toml"))
	}
	return out
}

// present is false only for a file that is certainly absent; any other stat failure counts as
// present so that loading it reports the failure instead of silently falling back to defaults.
func present(p string) bool {
	_, err := os.Stat(p)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// LoadResolved resolves the config path (home is env's HOME) and loads it. It returns the path it
// read, "" for the zero-config defaults. A file named by --config or TMA_CONFIG must exist.
func LoadResolved(flagPath string, env Env) (*Config, string, error) {
	home, _ := env("HOME")
	path, explicit := Resolve(flagPath, env, home)
	if path == "" {
		return Default(), "", nil
	}
	c, err := Load(path)
	if err != nil {
		var e *Error
		if !explicit && errors.As(err, &e) && e.Msg == "file does not exist" {
			return Default(), "", nil // removed since Resolve looked: still zero-config
		}
		if errors.As(err, &e) && e.Msg == "file does not exist" {
			if flagPath != "" {
				e.Msg += " (named by --config)"
			} else {
				e.Msg += " (named by TMA_CONFIG)"
			}
		}
		return nil, path, err
	}
	return c, path, nil
}
