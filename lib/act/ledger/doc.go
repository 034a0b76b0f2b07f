// Package ledger is the dispatch ledger behind tma act --slot and tma
// receipts: one JSON-lines file per host in tma's runtime directory, changed
// only by a read-modify-write under an flock and replaced by rename, so one
// slot id dispatches at most once whichever process asks.
package ledger
