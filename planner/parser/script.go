package parser

import (
	"unicode/utf8"

	"github.com/tablerun/tablerun/planner/ast"
)

// ScriptStatement is one statement of a script as split by ParseScript.
type ScriptStatement struct {
	// Text is the statement without its terminating ';', starting at its
	// first non-blank character (leading comments included) and without
	// trailing blanks.
	Text string
	// Line and Col give the position of Text's first character in the
	// script (1-based). An error at line l, column c of Text is at line
	// Line+l-1 of the script, and at column Col+c-1 when l is 1.
	Line int
	Col  int
}

// ParseScript splits a script into statements the way Flink's SQL client
// does: a statement ends at a ';' outside '...' strings, `...` identifiers,
// $$...$$ bodies, /* */ comments and -- comments. Empty statements and
// trailing blanks and comments are dropped. Unterminated strings and
// comments are reported at the position where they start. The statements
// themselves are not parsed; use ParseStatement on each Text.
func ParseScript(script string) ([]ScriptStatement, error) {
	var out []ScriptStatement
	line, col := 1, 1
	i := 0
	// Statement start, -1 when no significant character seen yet.
	start, sLine, sCol := -1, 0, 0
	// End of the last significant (non-blank, non-comment) character.
	lastSig := -1
	// Whether the pending statement has content other than comments.
	hasCode := false
	// setState is 0 before the first ';' of a statement, 1 inside an
	// [EXPLAIN] [EXECUTE] STATEMENT SET BEGIN ... END block and 2 otherwise;
	// segStart is where the text after the previous ';' of the block starts.
	setState, segStart := 0, 0
	stepTo := func(j int) {
		for i < j {
			r, size := utf8.DecodeRuneInString(script[i:])
			i += size
			if r == '\n' {
				line++
				col = 1
			} else {
				col++
			}
		}
	}
	mark := func() {
		if start < 0 {
			start, sLine, sCol = i, line, col
			segStart = i
		}
	}
	flush := func() {
		if start >= 0 && hasCode {
			end := lastSig
			out = append(out, ScriptStatement{Text: script[start:end], Line: sLine, Col: sCol})
		}
		start, lastSig, hasCode = -1, -1, false
		setState = 0
	}
	find := func(from int, pat string) int {
		for k := from; k+len(pat) <= len(script); k++ {
			if script[k:k+len(pat)] == pat {
				return k
			}
		}
		return -1
	}
	for i < len(script) {
		c := script[i]
		pos := ast.Pos{Line: line, Col: col}
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			stepTo(i + 1)
		case c == '-' && i+1 < len(script) && script[i+1] == '-':
			mark()
			k := find(i, "\n")
			if k < 0 {
				k = len(script)
			}
			stepTo(k)
			lastSig = k
		case c == '/' && i+1 < len(script) && script[i+1] == '*':
			mark()
			k := find(i+2, "*/")
			if k < 0 {
				return nil, newError(pos, "Lexical error at line %d, column %d. Encountered: <EOF> (unterminated comment)", pos.Line, pos.Col)
			}
			if i+2 < len(script) && script[i+2] == '+' {
				hasCode = true
			}
			stepTo(k + 2)
			lastSig = i
		case c == '\'' || c == '`':
			mark()
			hasCode = true
			k := i + 1
			for {
				if k >= len(script) {
					what := "string literal"
					if c == '`' {
						what = "quoted identifier"
					}
					return nil, newError(pos, "Lexical error at line %d, column %d. Encountered: <EOF> (unterminated %s)", pos.Line, pos.Col, what)
				}
				if script[k] == c {
					if k+1 < len(script) && script[k+1] == c {
						k += 2
						continue
					}
					break
				}
				k++
			}
			stepTo(k + 1)
			lastSig = i
		case c == '$' && i+1 < len(script) && script[i+1] == '$':
			mark()
			hasCode = true
			k := find(i+2, "$$")
			if k < 0 {
				return nil, newError(pos, "Lexical error at line %d, column %d. Encountered: <EOF> (unterminated $$ string)", pos.Line, pos.Col)
			}
			stepTo(k + 2)
			lastSig = i
		case c == ';':
			if start >= 0 && hasCode {
				if setState == 0 {
					setState = 2
					if startsStatementSet(script[start:i]) {
						setState = 1
					}
				}
				if setState == 1 && !endsWithEnd(script[segStart:i]) {
					stepTo(i + 1)
					lastSig = i
					segStart = i
					continue
				}
			}
			stepTo(i + 1)
			flush()
		default:
			mark()
			hasCode = true
			stepTo(i + 1)
			lastSig = i
		}
	}
	flush()
	return out, nil
}

// startsStatementSet reports whether text starts an [EXPLAIN ...]
// [EXECUTE] STATEMENT SET BEGIN block, inside which a ';' does not end the
// statement.
func startsStatementSet(text string) bool {
	toks, err := tokenize(text)
	if err != nil {
		return false
	}
	i := 0
	word := func(w string) bool {
		if i < len(toks) && toks[i].kind == tIdent && toks[i].upper == w {
			i++
			return true
		}
		return false
	}
	if word("EXPLAIN") {
		if word("PLAN") && !word("FOR") {
			return false
		}
		for i < len(toks) && (explainDetails[toks[i].upper] || (toks[i].kind == tOp && toks[i].text == ",")) {
			i++
		}
	}
	word("EXECUTE")
	return word("STATEMENT") && word("SET") && word("BEGIN") && !endsWithEnd(text)
}

// endsWithEnd reports whether the last token of text is the keyword END.
func endsWithEnd(text string) bool {
	toks, err := tokenize(text)
	if err != nil || len(toks) < 2 {
		return false
	}
	last := toks[len(toks)-2] // toks ends with tEOF
	return last.kind == tIdent && last.upper == "END"
}
