// Package grammar is tma-transcript's command line on its own, so the
// completion scripts (tma-setup) read it without linking lib/transcript
// and its SQLite driver.
package grammar
