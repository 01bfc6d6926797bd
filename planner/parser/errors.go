package parser

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/planner/ast"
)

// ErrNotSupported is matched (errors.Is) by every *Error reporting syntax
// that is recognised but not supported yet.
var ErrNotSupported = errors.New("not supported yet")

// Error is a syntax error. Line and Col are 1-based and relative to the text
// given to the parse function.
type Error struct {
	Line int
	Col  int
	// Msg is the message without the "SQL parse failed. " prefix, e.g.
	// `Encountered "FROMM" at line 1, column 10.`
	Msg string
	// Expecting lists what the parser would have accepted, if known.
	Expecting []string
	// Unsupported is set for "not supported yet: ..." errors.
	Unsupported bool
}

// Error returns the message in Flink's style:
// `SQL parse failed. Encountered "X" at line 1, column 10.` followed by a
// `Was expecting one of:` list when known. Unsupported-syntax errors read
// `not supported yet: ...`.
func (e *Error) Error() string {
	if e.Unsupported {
		return e.Msg
	}
	var b strings.Builder
	b.WriteString("SQL parse failed. ")
	b.WriteString(e.Msg)
	if len(e.Expecting) > 0 {
		b.WriteString("\nWas expecting one of:")
		for _, x := range e.Expecting {
			b.WriteString("\n    ")
			b.WriteString(x)
		}
	}
	return b.String()
}

// Unwrap returns ErrNotSupported for unsupported-syntax errors.
func (e *Error) Unwrap() error {
	if e.Unsupported {
		return ErrNotSupported
	}
	return nil
}

func newError(p ast.Pos, format string, args ...any) *Error {
	return &Error{Line: p.Line, Col: p.Col, Msg: fmt.Sprintf(format, args...)}
}

// Offset returns a copy of e positioned within a larger text (such as a
// script) in which the parsed text starts at line, col — e.g. the Line and
// Col of a ScriptStatement. The position inside Msg is rewritten too.
func (e *Error) Offset(line, col int) *Error {
	c := *e
	if c.Line == 1 {
		c.Col += col - 1
	}
	c.Line += line - 1
	c.Msg = strings.Replace(c.Msg, fmt.Sprintf("at line %d, column %d", e.Line, e.Col), fmt.Sprintf("at line %d, column %d", c.Line, c.Col), 1)
	return &c
}
