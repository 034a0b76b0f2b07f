// Package jsonedit edits JSON documents surgically: every edit splices the
// byte span of one member or element, so every byte outside it (other keys,
// their order, the file's indentation) survives unchanged.
package jsonedit
