// Package config parses tma's config.toml over the manual's defaults, fails loudly (file, key and
// line where known) on any unknown key or bad value, and is the one place where the precedence
// flag > TMA_* environment > file > default is implemented.
package config
