// Package device is the store of paired remote devices (devices.toml): who
// may open a `tma serve` connection and what each may do. The file is the
// authorization record, so it is decoded strictly (an unknown key, scope or
// a duplicate name is an error naming the file and the field, never a
// guess), written whole by atomic rename at 0600, and changed only under an
// flock so two `tma device` runs cannot lose each other's edit. Scopes are
// only ever widened here, by a command typed on the host; nothing a device
// sends reaches this package.
package device
