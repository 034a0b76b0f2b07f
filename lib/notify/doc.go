// Package notify decides and delivers notifications: the one payload
// builder both firers share, the marker lines that let exactly one producer
// fire an episode (tmux decides, atomically, who wins), and the sinks. It
// builds tmux lines but never runs tmux (its caller's lib/tmux client does);
// the user's notify command is the one program it starts.
package notify
