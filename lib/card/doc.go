// Package card says what a blocked agent is waiting on: a permission, a
// question, or something to read (a setup or trust dialog, a plan), where
// that came from (the hook's or the agent API plugin's stamps, or the
// screen) and how sure the extraction is. It is pure: the caller hands it
// the pane's stamped options and, when the stamps do not carry the
// content, the capture and the agent's manifest; it runs nothing and reads
// no file.
package card
