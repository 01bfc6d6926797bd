package parser

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tablerun/tablerun/planner/ast"
)

// tokenKind classifies a lexical token.
type tokenKind int

const (
	tEOF tokenKind = iota
	// tIdent is an unquoted word (keyword or identifier).
	tIdent
	// tQIdent is a back-quoted identifier; text is unescaped.
	tQIdent
	// tInt, tDecimal and tApprox are numeric literals; text is as written.
	tInt
	tDecimal
	tApprox
	// tString is a '...' literal; text is unescaped.
	tString
	// tBinary is X'...'; text is the hex digits.
	tBinary
	// tDollar is $$...$$; text is the body.
	tDollar
	// tOp is punctuation or an operator.
	tOp
	// tHint is /*+ ... */; text is the body between /*+ and */.
	tHint
)

// token is one lexical token.
type token struct {
	kind tokenKind
	// text is the token text (unescaped for strings and quoted identifiers).
	text string
	// upper is strings.ToUpper(text) for tIdent tokens.
	upper string
	pos   ast.Pos
	// off and end are byte offsets of the token in the source.
	off, end int
}

// image returns the token as Calcite prints it in "Encountered" messages.
func (t token) image(src string) string {
	if t.kind == tEOF {
		return "<EOF>"
	}
	return src[t.off:t.end]
}

// lexer turns SQL text into tokens.
type lexer struct {
	src  string
	i    int
	line int
	col  int
}

func newLexer(src string) *lexer { return &lexer{src: src, line: 1, col: 1} }

// advance moves over n bytes of ASCII text or one rune, tracking position.
func (l *lexer) advanceRune() {
	r, size := utf8.DecodeRuneInString(l.src[l.i:])
	l.i += size
	if r == '\n' {
		l.line++
		l.col = 1
	} else {
		l.col++
	}
}

func (l *lexer) peekByte(k int) byte {
	if l.i+k < len(l.src) {
		return l.src[l.i+k]
	}
	return 0
}

func (l *lexer) errAt(p ast.Pos, format string, args ...any) *Error {
	return newError(p, format, args...)
}

// skipSpace skips whitespace and comments other than hints.
func (l *lexer) skipSpace() error {
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			l.advanceRune()
		case c == '-' && l.peekByte(1) == '-':
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.advanceRune()
			}
		case c == '/' && l.peekByte(1) == '*' && l.peekByte(2) != '+':
			start := ast.Pos{Line: l.line, Col: l.col}
			l.advanceRune()
			l.advanceRune()
			for {
				if l.i >= len(l.src) {
					return l.errAt(start, "Lexical error at line %d, column %d. Encountered: <EOF> after : \"\" (unterminated comment)", start.Line, start.Col)
				}
				if l.src[l.i] == '*' && l.peekByte(1) == '/' {
					l.advanceRune()
					l.advanceRune()
					break
				}
				l.advanceRune()
			}
		default:
			r, _ := utf8.DecodeRuneInString(l.src[l.i:])
			if unicode.IsSpace(r) {
				l.advanceRune()
				continue
			}
			return nil
		}
	}
	return nil
}

func isIdentStart(r rune) bool {
	return r == '_' || unicode.IsLetter(r)
}

func isIdentPart(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// threeOps, twoOps are multi-character operators, longest first.
var twoOps = []string{"<>", "<=", ">=", "!=", "||", "=>", "::", "==", "->"}

// next returns the next token.
func (l *lexer) next() (token, error) {
	if err := l.skipSpace(); err != nil {
		return token{}, err
	}
	start := l.i
	pos := ast.Pos{Line: l.line, Col: l.col}
	mk := func(k tokenKind, text string) token {
		t := token{kind: k, text: text, pos: pos, off: start, end: l.i}
		if k == tIdent {
			t.upper = strings.ToUpper(text)
		}
		return t
	}
	if l.i >= len(l.src) {
		return mk(tEOF, ""), nil
	}
	c := l.src[l.i]
	switch {
	case (c == 'x' || c == 'X') && l.peekByte(1) == '\'':
		l.advanceRune()
		s, err := l.quoted('\'', pos)
		if err != nil {
			return token{}, err
		}
		return mk(tBinary, s), nil
	case (c == 'n' || c == 'N') && l.peekByte(1) == '\'':
		l.advanceRune()
		s, err := l.quoted('\'', pos)
		if err != nil {
			return token{}, err
		}
		return mk(tString, s), nil
	case c == '\'':
		s, err := l.quoted('\'', pos)
		if err != nil {
			return token{}, err
		}
		return mk(tString, s), nil
	case c == '`':
		s, err := l.quoted('`', pos)
		if err != nil {
			return token{}, err
		}
		if s == "" {
			return token{}, l.errAt(pos, "Lexical error at line %d, column %d. Empty quoted identifier", pos.Line, pos.Col)
		}
		return mk(tQIdent, s), nil
	case c == '$' && l.peekByte(1) == '$':
		l.advanceRune()
		l.advanceRune()
		bodyStart := l.i
		k := strings.Index(l.src[l.i:], "$$")
		if k < 0 {
			return token{}, l.errAt(pos, "Lexical error at line %d, column %d. Encountered: <EOF> (unterminated $$ string)", pos.Line, pos.Col)
		}
		for l.i < bodyStart+k+2 {
			l.advanceRune()
		}
		return mk(tDollar, l.src[bodyStart:bodyStart+k]), nil
	case c == '/' && l.peekByte(1) == '*' && l.peekByte(2) == '+':
		l.advanceRune()
		l.advanceRune()
		l.advanceRune()
		bodyStart := l.i
		k := strings.Index(l.src[l.i:], "*/")
		if k < 0 {
			return token{}, l.errAt(pos, "Lexical error at line %d, column %d. Encountered: <EOF> after : \"\" (unterminated hint)", pos.Line, pos.Col)
		}
		for l.i < bodyStart+k+2 {
			l.advanceRune()
		}
		return mk(tHint, l.src[bodyStart:bodyStart+k]), nil
	case isDigit(c) || (c == '.' && isDigit(l.peekByte(1))):
		kind := tInt
		for l.i < len(l.src) && isDigit(l.src[l.i]) {
			l.advanceRune()
		}
		if l.i < len(l.src) && l.src[l.i] == '.' {
			kind = tDecimal
			l.advanceRune()
			for l.i < len(l.src) && isDigit(l.src[l.i]) {
				l.advanceRune()
			}
		}
		if l.i < len(l.src) && (l.src[l.i] == 'e' || l.src[l.i] == 'E') {
			j := 1
			if b := l.peekByte(1); b == '+' || b == '-' {
				j = 2
			}
			if isDigit(l.peekByte(j)) {
				kind = tApprox
				for ; j > 0; j-- {
					l.advanceRune()
				}
				for l.i < len(l.src) && isDigit(l.src[l.i]) {
					l.advanceRune()
				}
			}
		}
		if l.i < len(l.src) {
			if r, _ := utf8.DecodeRuneInString(l.src[l.i:]); isIdentStart(r) {
				return token{}, l.errAt(pos, "Encountered \"%s\" at line %d, column %d.", l.src[start:l.i]+string(r), pos.Line, pos.Col)
			}
		}
		return mk(kind, l.src[start:l.i]), nil
	}
	r, _ := utf8.DecodeRuneInString(l.src[l.i:])
	if isIdentStart(r) {
		for l.i < len(l.src) {
			r, _ := utf8.DecodeRuneInString(l.src[l.i:])
			if !isIdentPart(r) {
				break
			}
			l.advanceRune()
		}
		return mk(tIdent, l.src[start:l.i]), nil
	}
	for _, op := range twoOps {
		if strings.HasPrefix(l.src[l.i:], op) {
			l.advanceRune()
			l.advanceRune()
			return mk(tOp, op), nil
		}
	}
	if strings.ContainsRune("(),.;[]+-*/%=<>?:{}|^&~!$", r) {
		l.advanceRune()
		return mk(tOp, string(r)), nil
	}
	l.advanceRune()
	return token{}, l.errAt(pos, "Lexical error at line %d, column %d. Encountered: %q", pos.Line, pos.Col, string(r))
}

// quoted reads a literal enclosed in q, where a doubled q stands for one q.
// The lexer is positioned on the opening quote.
func (l *lexer) quoted(q byte, pos ast.Pos) (string, error) {
	l.advanceRune()
	var b strings.Builder
	segStart := l.i
	for {
		if l.i >= len(l.src) {
			what := "string literal"
			if q == '`' {
				what = "quoted identifier"
			}
			return "", l.errAt(pos, "Lexical error at line %d, column %d. Encountered: <EOF> (unterminated %s)", pos.Line, pos.Col, what)
		}
		if l.src[l.i] == q {
			if l.peekByte(1) == q {
				b.WriteString(l.src[segStart : l.i+1])
				l.advanceRune()
				l.advanceRune()
				segStart = l.i
				continue
			}
			b.WriteString(l.src[segStart:l.i])
			l.advanceRune()
			return b.String(), nil
		}
		l.advanceRune()
	}
}

// tokenize lexes the whole input, ending with a tEOF token.
func tokenize(src string) ([]token, error) {
	l := newLexer(src)
	toks := make([]token, 0, len(src)/5+2)
	for {
		t, err := l.next()
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		if t.kind == tEOF {
			return toks, nil
		}
	}
}
