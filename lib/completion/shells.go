package completion

import (
	"fmt"
	"io"
	"strings"
)

// Shells are the shells tma writes a script for, in the order it lists them.
var Shells = []string{"bash", "zsh", "fish"}

// Write writes the script for shell.
func Write(w io.Writer, shell string, root *Command) error {
	switch shell {
	case "bash":
		return Bash(w, root)
	case "zsh":
		return Zsh(w, root)
	case "fish":
		return Fish(w, root)
	}
	return fmt.Errorf("no completion script for %q (this build writes %s)", shell, strings.Join(Shells, ", "))
}

// Location is where one shell reads a per-user completion file from.
type Location struct {
	Shell string
	File  string // the script's own file name there
	Dir   string // relative to $HOME
	Note  string // what else the shell needs, "" for nothing
}

// Locations are the per-user homes of the scripts; scripts/install.sh
// (install.sh at the repository's root) writes the same files.
var Locations = []Location{
	{"bash", "tma", ".local/share/bash-completion/completions", ""},
	{"zsh", "_tma", ".local/share/zsh/site-functions", "not on zsh's default $fpath: put fpath=(~/.local/share/zsh/site-functions $fpath) above compinit in ~/.zshrc"},
	{"fish", "tma.fish", ".config/fish/completions", ""},
}

// WriteLocations is what `tma completions` with no shell prints.
func WriteLocations(w io.Writer) error {
	var b strings.Builder
	b.WriteString("Usage: tma completions <SHELL>   (SHELL: " + strings.Join(Shells, ", ") + ")\n\n")
	b.WriteString("Where each shell reads the script from, for a per-user install:\n")
	for _, l := range Locations {
		fmt.Fprintf(&b, "  %-5s tma completions %s > ~/%s/%s\n", l.Shell, l.Shell, l.Dir, l.File)
		if l.Note != "" {
			fmt.Fprintf(&b, "        %s\n", l.Note)
		}
	}
	b.WriteString("\nOr evaluate it at shell startup, at the cost of one tma run per new shell:\n")
	b.WriteString("  eval \"$(tma completions bash)\"   # in ~/.bashrc\n")
	b.WriteString("  eval \"$(tma completions zsh)\"    # in ~/.zshrc, after compinit\n")
	b.WriteString("  tma completions fish | source   # in ~/.config/fish/config.fish\n")
	_, err := io.WriteString(w, b.String())
	return err
}
