// Package lifeline ends a pipeline stage when its pipeline is over: when the
// process that started it dies (a killed dispatcher), when a signal asks it
// to, or when whoever reads its stdout is gone. A stage that outlived its
// pipeline would go on polling tmux, keep a control client attached and
// write to whoever holds the pipeline's end, so every long-running stage
// binds itself here; none of this ever signals anything but the stage's own
// process.
package lifeline
