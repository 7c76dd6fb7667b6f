// Package parse reads the .kc text form into an ir.Module.
package parse

import (
	"errors"

	"github.com/kcgo/kc/ir"
)

// STUB: replaced by the front-end work. The signature is fixed.

// File parses one .kc source. filename is used in positions and messages.
// Errors are an ir.ErrorList of file:line:col: message entries.
func File(filename string, src []byte) (*ir.Module, error) {
	return nil, errors.New("parse.File: not implemented")
}
