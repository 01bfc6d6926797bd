// Package parser is a hand-written lexer and recursive-descent parser for
// the Flink SQL dialect. It produces planner/ast nodes and reports errors as
// *Error values with positions in Flink's wording.
//
// Entry points: ParseStatement (one statement, optional trailing ';'),
// ParseScript (split a script into statements the way the SQL client does),
// ParseExpression and ParseDataType.
//
// Lexical rules: keywords are case-insensitive; unquoted identifiers keep
// their case; back-quoted identifiers may contain anything, a doubled back
// quote standing for one; in strings two single quotes stand for one; -- and
// /* */ comments are skipped and /*+ ... */ is a hint, accepted after
// SELECT, after a table name in FROM and after the target table of INSERT.
// Only the words in the reserved list (SELECT, FROM, WHERE, GROUP, BY,
// ORDER, JOIN, TABLE, DEFAULT, ...) must be back-quoted to be used as names;
// other keywords (name, type, value, year, timestamp, ...) are accepted as
// identifiers where a name is expected.
//
// Syntax that is recognised but not implemented (WITHIN GROUP, quantified
// comparisons, DELETE / UPDATE, FINAL / RUNNING measures, ...) fails with an *Error whose message starts with
// "not supported yet: " and which matches ErrNotSupported.
package parser

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/planner/ast"
)

// maxDepth bounds the nesting of expressions and queries so that hostile
// input cannot exhaust the stack.
const maxDepth = 500

// parser holds the token stream of one parse call.
type parser struct {
	src   string
	toks  []token
	p     int
	depth int
	// afterParens[i] is the index of the first token at or after i that
	// is not "(", so that lookahead over nested parentheses is O(1).
	afterParens []int
	// flinkNames are the names that are reserved words in Flink
	// (noteName, ReservedNames).
	flinkNames []Word
}

func newParser(src string) (*parser, error) {
	toks, err := tokenize(src)
	if err != nil {
		return nil, err
	}
	after := make([]int, len(toks))
	for i := len(toks) - 1; i >= 0; i-- {
		after[i] = i
		if toks[i].kind == tOp && toks[i].text == "(" && i+1 < len(toks) {
			after[i] = after[i+1]
		}
	}
	return &parser{src: src, toks: toks, afterParens: after}, nil
}

// ParseStatement parses one SQL statement. A single trailing ';' is allowed.
func ParseStatement(sql string) (ast.Statement, error) {
	p, err := newParser(sql)
	if err != nil {
		return nil, err
	}
	st, err := p.parseStatement()
	if err != nil {
		return nil, err
	}
	p.acceptOp(";")
	if !p.at(tEOF) {
		return nil, p.errUnexpected("<EOF>")
	}
	return st, nil
}

// ParseExpression parses a single scalar expression, e.g. a computed column
// or watermark expression.
func ParseExpression(sql string) (ast.Expr, error) {
	p, err := newParser(sql)
	if err != nil {
		return nil, err
	}
	e, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	if !p.at(tEOF) {
		return nil, p.errUnexpected("<EOF>")
	}
	return e, nil
}

// ParseDataType parses a data type such as DECIMAL(10, 2) NOT NULL.
func ParseDataType(sql string) (*ast.DataType, error) {
	p, err := newParser(sql)
	if err != nil {
		return nil, err
	}
	t, err := p.parseDataType()
	if err != nil {
		return nil, err
	}
	if !p.at(tEOF) {
		return nil, p.errUnexpected("<EOF>")
	}
	return t, nil
}

// ---- token helpers ----

func (p *parser) tok() token { return p.toks[p.p] }

func (p *parser) peekAt(k int) token {
	if p.p+k < len(p.toks) {
		return p.toks[p.p+k]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) advance() token {
	t := p.toks[p.p]
	if t.kind != tEOF {
		p.p++
	}
	return t
}

func (p *parser) at(k tokenKind) bool { return p.tok().kind == k }

// isKw reports whether the current token is the keyword kw (upper case).
func (p *parser) isKw(kw string) bool {
	t := p.tok()
	return t.kind == tIdent && t.upper == kw
}

// isKwAt reports whether the token k ahead is the keyword kw.
func (p *parser) isKwAt(k int, kw string) bool {
	t := p.peekAt(k)
	return t.kind == tIdent && t.upper == kw
}

func (p *parser) acceptKw(kw string) bool {
	if p.isKw(kw) {
		p.p++
		return true
	}
	return false
}

// acceptKws accepts the keyword sequence kws entirely or not at all.
func (p *parser) acceptKws(kws ...string) bool {
	for i, kw := range kws {
		if !p.isKwAt(i, kw) {
			return false
		}
	}
	p.p += len(kws)
	return true
}

func (p *parser) expectKw(kws ...string) error {
	for _, kw := range kws {
		if !p.acceptKw(kw) {
			return p.errUnexpected(`"` + kw + `"`)
		}
	}
	return nil
}

func (p *parser) isOp(op string) bool {
	t := p.tok()
	return t.kind == tOp && t.text == op
}

func (p *parser) isOpAt(k int, op string) bool {
	t := p.peekAt(k)
	return t.kind == tOp && t.text == op
}

func (p *parser) acceptOp(op string) bool {
	if p.isOp(op) {
		p.p++
		return true
	}
	return false
}

func (p *parser) expectOp(op string) error {
	if !p.acceptOp(op) {
		return p.errUnexpected(`"` + op + `"`)
	}
	return nil
}

// errUnexpected reports the current token as unexpected.
func (p *parser) errUnexpected(expecting ...string) *Error {
	t := p.tok()
	img := t.image(p.src)
	img = strings.NewReplacer(`\`, `\\`, `"`, `\"`, `'`, `\'`, "\n", `\n`).Replace(img)
	e := newError(t.pos, "Encountered \"%s\" at line %d, column %d.", img, t.pos.Line, t.pos.Col)
	for _, x := range expecting {
		if x != "" {
			e.Expecting = append(e.Expecting, x+" ...")
		}
	}
	return e
}

// unsupported returns a "not supported yet" error at pos.
func unsupported(pos ast.Pos, what string) *Error {
	return &Error{Line: pos.Line, Col: pos.Col, Unsupported: true,
		Msg: fmt.Sprintf("not supported yet: %s (at line %d, column %d)", what, pos.Line, pos.Col)}
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		t := p.tok()
		return newError(t.pos, "Encountered \"%s\" at line %d, column %d. Statement is nested too deeply.", t.image(p.src), t.pos.Line, t.pos.Col)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// ---- identifiers ----

// reserved words cannot be used as unquoted identifiers.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`ALL AND AS BETWEEN BY CASE CAST CREATE CROSS
		CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP CURRENT_ROW_TIMESTAMP LOCALTIME LOCALTIMESTAMP
		DEFAULT DISTINCT DROP ELSE END EXCEPT EXISTS FALSE FETCH FOR FROM FULL GROUP HAVING
		ILIKE IN INNER INSERT INTERSECT INTERVAL IS JOIN LATERAL LEFT LIKE LIMIT
		MATCH_RECOGNIZE MINUS NATURAL NOT NULL OFFSET ON OR ORDER OUTER OVER RIGHT SELECT
		SIMILAR TABLE THEN TRUE UNION UNNEST USING VALUES WHEN WHERE WINDOW WITH`) {
		reserved[w] = true
	}
}

// isIdentTok reports whether t can be an identifier.
func isIdentTok(t token) bool {
	return t.kind == tQIdent || (t.kind == tIdent && !reserved[t.upper])
}

func (p *parser) atIdent() bool { return isIdentTok(p.tok()) }

// simpleIdentifierTokens are the token kinds of Flink's grammar that can
// be a simple identifier, in the order its "Was expecting one of" lists
// print them.
var simpleIdentifierTokens = []string{
	"<BRACKET_QUOTED_IDENTIFIER>", "<QUOTED_IDENTIFIER>", "<BACK_QUOTED_IDENTIFIER>",
	"<BIG_QUERY_BACK_QUOTED_IDENTIFIER>", "<HYPHENATED_IDENTIFIER>", "<IDENTIFIER>",
	"<UNICODE_QUOTED_IDENTIFIER>",
}

// ident parses a simple identifier.
func (p *parser) ident() (string, error) {
	t := p.tok()
	if !isIdentTok(t) {
		return "", p.errUnexpected(simpleIdentifierTokens...)
	}
	p.p++
	p.noteName(t)
	return t.text, nil
}

// objectName parses ident { . ident }.
func (p *parser) objectName() (ast.ObjectName, error) {
	first, err := p.ident()
	if err != nil {
		return ast.ObjectName{}, err
	}
	parts := []string{first}
	for p.isOp(".") && isIdentTok(p.peekAt(1)) {
		p.p++
		t := p.advance()
		p.noteName(t)
		parts = append(parts, t.text)
	}
	if p.isOp(".") {
		p.p++
		return ast.ObjectName{}, p.errUnexpected("<IDENTIFIER>")
	}
	return ast.ObjectName{Parts: parts}, nil
}

// identList parses ident {, ident}.
func (p *parser) identList() ([]string, error) {
	var out []string
	for {
		s, err := p.ident()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
		if !p.acceptOp(",") {
			return out, nil
		}
	}
}

// parenIdentList parses ( ident {, ident} ).
func (p *parser) parenIdentList() ([]string, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	l, err := p.identList()
	if err != nil {
		return nil, err
	}
	if !p.acceptOp(")") {
		return nil, p.errUnexpected(`")"`, `","`) // after an identifier: close or continue
	}
	return l, nil
}

// stringLit parses a character string literal.
func (p *parser) stringLit() (string, error) {
	t := p.tok()
	if t.kind != tString {
		return "", p.errUnexpected("<QUOTED_STRING>")
	}
	p.p++
	return t.text, nil
}

// intLit parses an unsigned integer literal.
func (p *parser) intLit() (int, error) {
	t := p.tok()
	if t.kind != tInt {
		return 0, p.errUnexpected("<UNSIGNED_INTEGER_LITERAL>")
	}
	n := 0
	for _, c := range t.text {
		n = n*10 + int(c-'0')
		if n > 1<<31-1 { // Java's int range, as Flink's parser
			return 0, newError(t.pos, "Numeric literal '%s' out of range at line %d, column %d.", t.text, t.pos.Line, t.pos.Col)
		}
	}
	p.p++
	return n, nil
}

// options parses ( 'k' = 'v' {, 'k' = 'v'} ); an empty list is allowed.
func (p *parser) options() ([]ast.Option, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	var out []ast.Option
	if p.acceptOp(")") {
		return out, nil
	}
	for {
		kpos := p.tok().pos
		k, err := p.stringLit()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp("="); err != nil {
			return nil, err
		}
		v, err := p.stringLit()
		if err != nil {
			return nil, err
		}
		out = append(out, ast.Option{Pos: kpos, Key: k, Value: v})
		if p.acceptOp(")") {
			return out, nil
		}
		if err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
}

// stringList parses ( 's' {, 's'} ); an empty list is allowed.
func (p *parser) stringList() ([]string, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	var out []string
	if p.acceptOp(")") {
		return out, nil
	}
	for {
		s, err := p.stringLit()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
		if p.acceptOp(")") {
			return out, nil
		}
		if err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
}

// textFrom returns the source text from token index i to the last consumed
// token.
func (p *parser) textFrom(i int) string {
	if p.p == 0 || i >= p.p {
		return ""
	}
	return p.src[p.toks[i].off:p.toks[p.p-1].end]
}
