// Package selector is the one vocabulary of --session --repo --branch
// --state --agent: exact matches, AND across flags, OR within --state.
package selector
