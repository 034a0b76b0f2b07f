// Package view renders resolved rows for people and programs: the ls table
// and document, the status one-liners, and the explain report. It is pure.
package view
