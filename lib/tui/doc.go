// Package tui is tma's small terminal layer for tma watch: raw mode, the
// alternate screen and mouse reporting (always restored), an input decoder
// (keys and SGR mouse reports), a width-aware clipper that keeps colours
// inside their rectangle, and a pure list model of selection and hover.
// Everything but the terminal itself is pure and tested without one.
package tui
