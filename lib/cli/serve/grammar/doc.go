// Package grammar is tma-serve's command line, apart from the command, so
// tma-setup writes the completion scripts from it without linking serve
// (its transcript reader, the act broker, the fleet cycle, and through
// them the SQLite driver that made both binaries 14 MB).
//
// The rule: only kong-tagged structs and the words they need live here;
// anything that runs belongs to lib/cli/serve.
package grammar
