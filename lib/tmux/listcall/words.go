package listcall

import "strings"

// Words reads the server flags and the config flag from a tool's words
// before its flag parser has run, and whether it could read them for sure:
// help, version, --follow, --clear-attention, "--" or a word it does not
// know to skip make it give up. positional allows words that are not flags
// (a hook's agent, event, payload).
func Words(args []string, positional bool) (name, path, cfgPath string, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, bool) {
			if i+1 >= len(args) {
				return "", false
			}
			i++
			return args[i], true
		}
		ok = true
		switch {
		case a == "--":
			return "", "", "", false
		case a == "-L" || a == "--socket-name":
			name, ok = next()
		case a == "-S" || a == "--socket-path":
			path, ok = next()
		case strings.HasPrefix(a, "--socket-name="):
			name = strings.TrimPrefix(a, "--socket-name=")
		case strings.HasPrefix(a, "--socket-path="):
			path = strings.TrimPrefix(a, "--socket-path=")
		case strings.HasPrefix(a, "-L") && len(a) > 2:
			name = a[2:]
		case strings.HasPrefix(a, "-S") && len(a) > 2:
			path = a[2:]
		case a == "--config":
			cfgPath, ok = next()
		case strings.HasPrefix(a, "--config="):
			cfgPath = strings.TrimPrefix(a, "--config=")
		case a == "--manifest-dir" || a == "--client" || a == "--pane" || a == "--interval":
			_, ok = next()
		case strings.HasPrefix(a, "--clear-attention"):
			return "", "", "", false // lists first and mostly writes nothing: no batch to start
		case strings.HasPrefix(a, "--") && !strings.HasPrefix(a, "--follow") && !strings.HasPrefix(a, "--help") && !strings.HasPrefix(a, "--version"):
			// a flag of its own word (--no-capture, --pane=%3 …)
		case positional && !strings.HasPrefix(a, "-"):
		default:
			return "", "", "", false
		}
		if !ok {
			return "", "", "", false
		}
	}
	return name, path, cfgPath, true
}

// Socket resolves the server a tool talks to, highest first: -S, -L,
// TMA_SOCKET_PATH, the socket of $TMUX (the server the tool runs inside),
// else tmux's default ("", "").
func Socket(flagName, flagPath string, getenv func(string) string) (name, path string) {
	if flagPath != "" {
		return "", flagPath
	}
	if flagName != "" {
		return flagName, ""
	}
	if p := getenv("TMA_SOCKET_PATH"); p != "" {
		return "", p
	}
	if t := getenv("TMUX"); t != "" {
		if i := strings.IndexByte(t, ','); i > 0 {
			return "", t[:i]
		}
	}
	return "", ""
}

// SocketArgs are tmux's flags for a server: -S beats -L, neither is the
// default server.
func SocketArgs(name, path string) []string {
	switch {
	case path != "":
		return []string{"-S", path}
	case name != "":
		return []string{"-L", name}
	}
	return nil
}
