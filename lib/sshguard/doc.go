// Package sshguard reads what sshd tells a forced command about its
// session, for `tma serve --require-auth-info` and `--allow-attach`: the
// authenticated key in the $SSH_USER_AUTH file (ExposeAuthInfo yes), its
// fingerprint as ssh-keygen -lf prints it, and whether
// $SSH_ORIGINAL_COMMAND is exactly the attach the picker derives. Its
// reading is pure: it never runs ssh-keygen, a shell or tmux, and a command
// it cannot read word for word is refused, never guessed at, because what
// it lets through becomes a terminal on the host. The one program it runs is
// that attach (ExecAttach: this host's tma-pick, exec'd in place of serve,
// with only the checked pane id from the client).
package sshguard
