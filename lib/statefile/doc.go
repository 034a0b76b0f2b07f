// Package statefile reads and encodes tma's own state files in the user's
// config dir (the install records): TOML under a header that says who
// writes the file. The rule: a file that is not there is an empty record,
// not an error, and a file that does not parse is an error naming the
// file, so a caller never acts on half a record. Writing stays with the
// caller (atomically, 0600), which knows when an empty record removes
// the file instead.
package statefile
