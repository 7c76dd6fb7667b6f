// Package archtest holds the import-policy test: DESIGN.md's one-way
// dependency arrows, written as data, checked against `go list`.
package archtest
