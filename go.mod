module github.com/tmaproject/tma

go 1.26

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/alecthomas/kong v1.17.0
	github.com/google/go-cmp v0.7.0
	github.com/mattn/go-isatty v0.0.24
	github.com/mattn/go-runewidth v0.0.31
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/sys v0.41.0
)

require (
	github.com/clipperhouse/uax29/v2 v2.2.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
