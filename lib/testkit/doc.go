// Package testkit starts isolated tmux servers and fake agents for tests;
// it only ever kills the servers it started.
package testkit
