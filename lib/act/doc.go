// Package act is the action broker's pure half: the action manifest model
// and loader, the gate, the text-payload rules, the single-flight lock and
// repeat grammars, the result and list documents with their exact key order,
// the exit-code ladder, and the mute deadline grammar. It plans tmux
// lines; it never runs tmux.
package act
