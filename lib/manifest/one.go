package manifest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tmaproject/tma/manifests"
)

// LoadAgent loads the one manifest a hook needs, with the same precedence
// as Load (a closed ManifestDir, else a user file shadowing the bundled one)
// and without parsing the others: a hook runs on every agent event. It
// returns nil, nil when no such agent exists; a broken user file falls back
// to nothing, as Load would skip it.
func LoadAgent(o LoadOptions, name string) (*Agent, error) {
	if !ValidToken(name) {
		return nil, nil
	}
	file := name + ".toml"
	read := func(dir string) (*Agent, error) {
		p := filepath.Join(dir, file)
		data, err := os.ReadFile(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			return nil, err
		}
		return Parse(name, p, data)
	}
	if o.ManifestDir != "" {
		return read(o.ManifestDir)
	}
	if o.UserDir != "" {
		a, err := read(o.UserDir)
		if a != nil || err != nil {
			return a, err
		}
	}
	data, err := fs.ReadFile(manifests.Agents, "agents/"+file)
	if err != nil {
		return nil, nil
	}
	a, err := Parse(name, "bundled:"+file, data)
	if err != nil {
		return nil, err
	}
	a.Bundled = true
	return a, nil
}
