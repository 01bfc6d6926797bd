package core

import (
	"errors"
	"regexp"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/planner/parser"
	"github.com/tablerun/tablerun/planner/validate"
)

// locatedError gives an error that Flink reports without a position (an
// unknown table of INSERT, DROP or ALTER; a table's connector options)
// the position of the token it is about, and a hint, for the clients'
// caret (ErrorContext). Its text is the error's own: Flink's message and
// class do not change.
type locatedError struct {
	err  error
	pos  Position
	hint string
}

func (l *locatedError) Error() string { return l.err.Error() }

func (l *locatedError) Unwrap() error { return l.err }

var (
	// messages naming a table that does not exist; the group is the
	// name as the message spells it
	notFoundMessages = []*regexp.Regexp{
		regexp.MustCompile(`^Object '([^']+)' not found within '([^']+)'`),
		regexp.MustCompile(`identifier '([^']+)' (?:does not|doesn't) exist`),
		regexp.MustCompile("^Table (`[^`]+`(?:\\.`[^`]+`)*) doesn't exist"),
	}
	unsupportedOptions = regexp.MustCompile(`(?s)^Unsupported options found for '([^']+)'\.\n\nUnsupported options:\n\n(.*?)\n\nSupported options:\n\n(.*)$`)
	missingOptions     = regexp.MustCompile(`(?s)Missing required options are:\n\n(.*)$`)
	unknownFactory     = regexp.MustCompile(`(?s)^Could not find any factory for identifier '([^']+)'.*?Available factory identifiers are:\n\n(.*)$`)
)

// locate gives err, an error of the statement text, the position of the
// token it names when it has none (see locatedError). Errors with a
// position, errors in a view's query and others are returned as they are.
func (e *TableEnvironment) locate(err error, text string) error {
	var ce *Error
	var vw *validate.ViewError
	if !errors.As(err, &ce) || errors.As(err, &vw) {
		return err
	}
	if _, ok := position(ce.Err); ok {
		return err
	}
	msg := message(ce.Err)
	words := parser.Words(text)
	var pos Position
	var hint string
	found := false
	for _, re := range notFoundMessages {
		m := re.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		name := strings.ReplaceAll(m[1], "`", "")
		if len(m) > 2 {
			name = m[2] + "." + name // within 'catalog.database'
		}
		parts := strings.Split(name, ".")
		if pos, found = findName(words, parts[len(parts)-1]); found && len(parts) == 3 {
			if names, lerr := e.cat.ListObjects(parts[0], parts[1], false, true); lerr == nil {
				hint = validate.DidYouMean(parts[2], names)
			}
		}
		break
	}
	if m := unsupportedOptions.FindStringSubmatch(msg); m != nil {
		bad := strings.Split(m[2], "\n")
		supported := strings.Split(m[3], "\n")
		var hints []string
		for _, k := range bad {
			if h := validate.DidYouMean(k, supported); h != "" {
				if len(bad) == 1 {
					hints = append(hints, h)
				} else {
					hints = append(hints, "'"+k+"': "+strings.ToLower(h[:1])+h[1:])
				}
			}
		}
		hint = strings.Join(hints, " ")
		// the option key in this statement (CREATE CATALOG …, a hint),
		// else the name of the table that has it
		if pos, found = findString(words, bad[0]); !found {
			pos, found = e.findTable(words, func(o map[string]string) bool {
				_, has := o[bad[0]]
				return o["connector"] == m[1] && has
			})
		}
	} else if m := missingOptions.FindStringSubmatch(msg); m != nil {
		key := strings.Split(m[1], "\n")[0]
		pos, found = e.findTable(words, func(o map[string]string) bool { _, has := o[key]; return !has })
	} else if m := unknownFactory.FindStringSubmatch(msg); m != nil {
		hint = validate.DidYouMean(m[1], strings.Split(m[2], "\n"))
		if pos, found = findString(words, m[1]); !found {
			pos, found = e.findTable(words, func(o map[string]string) bool { return o["connector"] == m[1] })
		}
	} else if strings.HasPrefix(msg, "Table options do not contain an option key 'connector'") {
		pos, found = e.findTable(words, func(o map[string]string) bool { _, has := o["connector"]; return !has })
	}
	if !found {
		return err
	}
	return &Error{Kind: ce.Kind, Class: ce.Class, Err: &locatedError{err: ce.Err, pos: pos, hint: hint}, Stack: ce.Stack}
}

// wordsPos is the position of words[i..j] (a qualified name).
func wordsPos(words []parser.Word, i, j int) Position {
	return Position{Line: words[i].Line, Col: words[i].Col, EndLine: words[j].Line, EndCol: words[j].Col + words[j].Width - 1}
}

// findName finds the first identifier spelled name (its last part, with
// the qualifying parts before it).
func findName(words []parser.Word, name string) (Position, bool) {
	for j, w := range words {
		if !w.String && w.Text == name && !w.Dot {
			i := j
			for i > 0 && words[i-1].Dot && !words[i-1].String {
				i--
			}
			return wordsPos(words, i, j), true
		}
	}
	return Position{}, false
}

// findString finds the first string literal whose value is s.
func findString(words []parser.Word, s string) (Position, bool) {
	for i, w := range words {
		if w.String && w.Text == s {
			return wordsPos(words, i, i), true
		}
	}
	return Position{}, false
}

// findTable finds the first name in words that resolves to a catalog
// table whose options satisfy match.
func (e *TableEnvironment) findTable(words []parser.Word, match func(map[string]string) bool) (Position, bool) {
	for i := 0; i < len(words); i++ {
		if words[i].String {
			continue
		}
		j := i
		for j+1 < len(words) && words[j].Dot && !words[j+1].String {
			j++
		}
		parts := make([]string, 0, j-i+1)
		for _, w := range words[i : j+1] {
			parts = append(parts, w.Text)
		}
		if id, qerr := e.cat.Qualify(parts); qerr == nil {
			if o, _, lerr := e.cat.Lookup(id); lerr == nil {
				if t, ok := o.(*catalog.Table); ok && match(t.Options) {
					return wordsPos(words, i, j), true
				}
			}
		}
		i = j
	}
	return Position{}, false
}

// shiftLocated is ShiftPosition for a locatedError.
func shiftLocated(err error, line, col int) error {
	var le *locatedError
	if !errors.As(err, &le) || (line <= 1 && col <= 1) {
		return err
	}
	p := le.pos
	if p.Line == 1 {
		p.Col += col - 1
	}
	if p.EndLine == 1 {
		p.EndCol += col - 1
	}
	p.Line += line - 1
	if p.EndLine > 0 {
		p.EndLine += line - 1
	}
	ce := classify(KindValidation, err)
	inner := ce.Err
	if l, ok := inner.(*locatedError); ok {
		inner = l.err
	}
	return &Error{Kind: ce.Kind, Class: ce.Class, Err: &locatedError{err: inner, pos: p, hint: le.hint}, Stack: ce.Stack}
}
