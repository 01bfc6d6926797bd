package core

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/planner/parser"
	"github.com/tablerun/tablerun/planner/validate"
)

// Position is where an error lies in the SQL text it was found in:
// 1-based line and column (in characters) of its first character and, for
// a range, of its last one (EndLine is 0 for a single point).
type Position struct {
	Line, Col, EndLine, EndCol int
}

// String spells the position as Calcite does: "From line 1, column 8 to
// line 1, column 9" or "At line 1, column 8".
func (p Position) String() string {
	if p.EndLine > 0 {
		return fmt.Sprintf("From line %d, column %d to line %d, column %d", p.Line, p.Col, p.EndLine, p.EndCol)
	}
	return fmt.Sprintf("At line %d, column %d", p.Line, p.Col)
}

// Position returns where a parse or validation error lies in the text
// of the statement (or of the whole script, after ShiftPosition); ok is
// false for errors without a position.
func (e *Error) Position() (p Position, ok bool) {
	var vw *validate.ViewError
	if errors.As(e.Err, &vw) {
		return Position{}, false // a position in a view's query
	}
	return position(e.Err)
}

// position finds the position of a parse or validation error in err.
func position(err error) (p Position, ok bool) {
	var pe *parser.Error
	if errors.As(err, &pe) && pe.Line > 0 {
		return Position{Line: pe.Line, Col: pe.Col}, true
	}
	var ve *validate.Error
	if errors.As(err, &ve) && ve.Line > 0 {
		return Position{Line: ve.Line, Col: ve.Col, EndLine: ve.EndLine, EndCol: ve.EndCol}, true
	}
	var le *locatedError
	if errors.As(err, &le) {
		return le.pos, true
	}
	return Position{}, false
}

// innermostView returns the view whose query an error lies in (the
// innermost of nested views), or nil.
func innermostView(err error) *validate.ViewError {
	var found *validate.ViewError
	for {
		var vw *validate.ViewError
		if !errors.As(err, &vw) {
			return found
		}
		found, err = vw, vw.Err
	}
}

// Hint returns advice beyond Flink's message, such as "Did you mean
// 'amount'?" for an unknown column, table or function (names within
// editing distance; see validate.Suggest), or "".
func (e *Error) Hint() string {
	var ve *validate.Error
	if errors.As(e.Err, &ve) && ve.Hint != "" {
		return ve.Hint
	}
	var le *locatedError
	if errors.As(e.Err, &le) {
		return le.hint
	}
	return ""
}

// ErrorContext returns what a client prints after an error's Reason to
// show where it lies, or "" when the error has neither a position nor a
// hint. text is the SQL the position refers to: the statement, or the
// script when the error went through ShiftPosition. The lines are: the
// position in Calcite's wording (validation errors only: Flink's client
// prints their message without it; a parse error's message has it), the
// line of text with the error, a caret line under the token (carets span
// a range up to the end of its first line), and the hint:
//
//	From line 2, column 8 to line 2, column 9:
//	SELECT kk FROM t
//	       ^^
//	Did you mean 'k'?
//
// Each line ends with a newline.
func ErrorContext(err error, text string) string {
	var e *Error
	if !errors.As(err, &e) {
		return ""
	}
	var b strings.Builder
	p, ok := e.Position()
	prefix := ""
	if vw := innermostView(e.Err); vw != nil {
		// the position is in the view's query: show that text
		p, ok = position(vw.Err)
		text, prefix = vw.Text, "In view "+vw.View+": "
	}
	if ok {
		lines := strings.Split(text, "\n")
		if p.Line <= len(lines) {
			line := []rune(strings.TrimRight(lines[p.Line-1], "\r"))
			if p.Col >= 1 && p.Col <= len(line)+1 {
				var pe *parser.Error
				switch {
				case !errors.As(e.Err, &pe):
					b.WriteString(prefix + p.String() + ":\n")
				case prefix != "":
					b.WriteString(prefix + "\n")
				}
				b.WriteString(string(line) + "\n")
				for _, r := range line[:p.Col-1] {
					if r == '\t' {
						b.WriteByte('\t')
					} else {
						b.WriteByte(' ')
					}
				}
				width := 1
				switch {
				case p.EndLine == p.Line && p.EndCol >= p.Col:
					width = p.EndCol - p.Col + 1
				case p.EndLine > p.Line:
					width = len(line) - p.Col + 1
				}
				b.WriteString(strings.Repeat("^", max(width, 1)) + "\n")
			}
		}
	}
	if h := e.Hint(); h != "" {
		b.WriteString(h + "\n")
	}
	return b.String()
}

// shiftedError is an error whose validation position was moved into a
// larger text: Error() reads as the original with the position rewritten,
// and errors.As finds the moved *validate.Error first.
type shiftedError struct {
	inner    error
	from, to *validate.Error
}

func (s *shiftedError) Error() string {
	return strings.Replace(s.inner.Error(), s.from.Error(), s.to.Error(), 1)
}

func (s *shiftedError) Unwrap() []error { return []error{s.to, s.inner} }

// shiftValidation is ShiftPosition for validation errors.
func shiftValidation(err error, line, col int) error {
	var ve *validate.Error
	var vw *validate.ViewError
	if !errors.As(err, &ve) || ve.Line <= 0 || (line <= 1 && col <= 1) || errors.As(err, &vw) {
		return err
	}
	c := *ve
	if c.Line == 1 {
		c.Col += col - 1
	}
	if c.EndLine == 1 {
		c.EndCol += col - 1
	}
	c.Line += line - 1
	if c.EndLine > 0 {
		c.EndLine += line - 1
	}
	e := classify(KindValidation, err)
	return &Error{Kind: e.Kind, Class: e.Class, Err: &shiftedError{inner: e.Err, from: ve, to: &c}, Stack: e.Stack}
}
