package waitcmd

// Grammar is tma-wait's command line as kong parses it, for the completion
// scripts tma completions writes from it (lib/completion).
func Grammar() any { return &cli{} }
