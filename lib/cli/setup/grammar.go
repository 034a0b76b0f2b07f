package setupcmd

// Grammar is tma-setup's command line as kong parses it, for the tests that
// hold the pruned parse to the whole one (tests/cli).
func Grammar() any { return &cli{} }
