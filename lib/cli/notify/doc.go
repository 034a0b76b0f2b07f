// Package notifycmd is tma-notify: `tma debug notify-test`, and the detached
// supervisor every fire hands its notify command to (run).
package notifycmd
