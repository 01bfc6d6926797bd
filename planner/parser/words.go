package parser

import "unicode/utf8"

// Word is a name or a string literal of SQL text, where the lexer found
// it: clients use them to point at a token an error names when the error
// itself has no position (Flink reports some without one).
type Word struct {
	// Text is the identifier (unquoted, unescaped) or the string
	// literal's value.
	Text string
	// String is true for a '...' literal.
	String bool
	// Line and Col are the 1-based position of the token's first
	// character; Width is its length in characters as written.
	Line, Col, Width int
	// Dot is true when the token is followed by a '.' (a qualified
	// name goes on).
	Dot bool
}

// Words returns the identifiers and string literals of src in order, up
// to the first lexing error.
func Words(src string) []Word {
	l := newLexer(src)
	var out []Word
	for {
		t, err := l.next()
		if err != nil || t.kind == tEOF {
			return out
		}
		switch t.kind {
		case tIdent, tQIdent, tString:
			out = append(out, Word{Text: t.text, String: t.kind == tString, Line: t.pos.Line, Col: t.pos.Col,
				Width: utf8.RuneCountInString(src[t.off:t.end])})
		case tOp:
			if t.text == "." && len(out) > 0 {
				out[len(out)-1].Dot = true
			}
		}
	}
}
