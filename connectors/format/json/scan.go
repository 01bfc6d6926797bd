package json

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// A validating JSON scanner over one message: it finds the byte ranges
// (spans) of values without building a tree, so decoding a row reads each
// field's bytes once and converts them straight into an Arrow builder.

// span is the byte range [start, end) of one JSON value in a message;
// start < 0 means absent.
type span struct{ start, end int }

var absent = span{-1, -1}

func (s span) ok() bool { return s.start >= 0 }

type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: "+format, append([]any{s.i}, args...)...)
}

func (s *scanner) unexpected() error {
	if s.i >= len(s.b) {
		return s.errorf("unexpected end of input")
	}
	r, _ := utf8.DecodeRune(s.b[s.i:])
	return s.errorf("unexpected character %q", r)
}

// value skips one value at s.i (after whitespace) and returns its span.
func (s *scanner) value(depth int) (span, error) {
	s.ws()
	if s.i >= len(s.b) {
		return absent, s.unexpected()
	}
	if depth > 1000 {
		return absent, s.errorf("nesting too deep")
	}
	start := s.i
	switch c := s.b[s.i]; {
	case c == '{':
		if err := s.members(depth, nil); err != nil {
			return absent, err
		}
		return span{start, s.i}, nil
	case c == '[':
		s.i++
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ']' {
			s.i++
			return span{start, s.i}, nil
		}
		for {
			if _, err := s.value(depth + 1); err != nil {
				return absent, err
			}
			s.ws()
			if s.i >= len(s.b) {
				return absent, s.unexpected()
			}
			if s.b[s.i] == ',' {
				s.i++
				continue
			}
			if s.b[s.i] == ']' {
				s.i++
				return span{start, s.i}, nil
			}
			return absent, s.unexpected()
		}
	case c == '"':
		if _, err := s.str(); err != nil {
			return absent, err
		}
		return span{start, s.i}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return absent, s.unexpected()
}

func (s *scanner) literal(lit string) (span, error) {
	start := s.i
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return absent, s.unexpected()
	}
	s.i += len(lit)
	return span{start, s.i}, nil
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// number scans -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scanner) number() (span, error) {
	start := s.i
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
		if s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			return absent, s.errorf("leading zero in a number")
		}
	} else if s.digits() == 0 {
		return absent, s.unexpected()
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return absent, s.unexpected()
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return absent, s.unexpected()
		}
	}
	return span{start, s.i}, nil
}

// str scans a string at s.i and returns whether it has escapes.
func (s *scanner) str() (escaped bool, err error) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return false, s.unexpected()
	}
	s.i++
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return escaped, nil
		case c == '\\':
			escaped = true
			s.i++
			if s.i >= len(s.b) {
				return false, s.unexpected()
			}
			switch s.b[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				if len(s.b)-s.i < 5 || !isHex4(s.b[s.i+1:s.i+5]) {
					return false, s.errorf("bad unicode escape")
				}
				s.i += 5
			default:
				return false, s.errorf("bad escape \\%c", s.b[s.i])
			}
		case c < 0x20:
			return false, s.errorf("control character in a string")
		default:
			s.i++
		}
	}
	return false, s.errorf("unterminated string")
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func hexVal(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		default:
			r |= rune(c-'A') + 10
		}
	}
	return r
}

// unescape appends the content of the string literal q (with its quotes,
// already validated by str) to dst.
func unescape(dst, q []byte) []byte {
	q = q[1 : len(q)-1]
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		switch q[i] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hexVal(q[i+1 : i+5])
			i += 4
			if r >= 0xD800 && r < 0xDC00 && i+6 < len(q) && q[i+1] == '\\' && q[i+2] == 'u' && isHex4(q[i+3:i+7]) {
				if lo := hexVal(q[i+3 : i+7]); lo >= 0xDC00 && lo < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					i += 6
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, q[i])
		}
	}
	return dst
}

// members scans the object at s.i (s.b[s.i] is '{') and calls fn, when
// not nil, for every member: key is the raw key literal with its quotes,
// escaped tells whether it has escapes, val is the value's span. A
// duplicate key is passed again (the last one wins, as in Jackson's tree).
func (s *scanner) members(depth int, fn func(key []byte, escaped bool, val span) error) error {
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return nil
	}
	for {
		s.ws()
		ks := s.i
		esc, err := s.str()
		if err != nil {
			return err
		}
		key := s.b[ks:s.i]
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return s.unexpected()
		}
		s.i++
		v, err := s.value(depth + 1)
		if err != nil {
			return err
		}
		if fn != nil {
			if err := fn(key, esc, v); err != nil {
				return err
			}
		}
		s.ws()
		if s.i >= len(s.b) {
			return s.unexpected()
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.unexpected()
		}
	}
}

// eachMember calls fn for every member of the object at sp of b.
func eachMember(b []byte, sp span, fn func(key []byte, escaped bool, val span) error) error {
	s := scanner{b: b[:sp.end], i: sp.start}
	return s.members(0, fn)
}

// topObject calls fn for every member of the message's first value, which
// must be an object.
func topObject(msg []byte, fn func(key []byte, escaped bool, val span) error) error {
	s := scanner{b: msg}
	s.ws()
	if s.i >= len(s.b) {
		return s.unexpected()
	}
	if s.b[s.i] != '{' {
		if _, err := s.value(0); err != nil {
			return err
		}
		return errors.New("the JSON value is not an object")
	}
	return s.members(0, fn)
}
