package scancmd

// Grammar is tma-scan's command line as kong parses it, for the completion
// scripts tma completions writes from it (lib/completion).
func Grammar() any { return &cli{} }
