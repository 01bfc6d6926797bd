package python

import (
	"strings"
)

// rewriteFStrings turns f-string literals, which gpython cannot parse,
// into str.format calls: f"{a} and {b!r:>5}" becomes
// "{} and {!r:>5}".format(a, b). Newlines are preserved so line numbers
// do not move. The source is returned unchanged where it does not look
// like valid Python (the compiler then reports the error). Limits: no
// nested replacement fields inside a format spec and no `{x=}`.
func rewriteFStrings(src string) string {
	if !strings.ContainsAny(src, "fF") {
		return src
	}
	var out strings.Builder
	i := 0
	n := len(src)
	for i < n {
		c := src[i]
		switch {
		case c == '#':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = n - i
			}
			out.WriteString(src[i : i+j])
			i += j
		case c == '\'' || c == '"' || isPrefixStart(src, i):
			start := i
			j := i
			for j < n && j-i < 2 && strings.IndexByte("rRbBuUfF", src[j]) >= 0 {
				j++
			}
			if j >= n || (src[j] != '\'' && src[j] != '"') {
				// An identifier, not a string prefix.
				k := i
				for k < n && isIdent(src[k]) {
					k++
				}
				out.WriteString(src[i:k])
				i = k
				continue
			}
			prefix := src[i:j]
			q := src[j : j+1]
			if strings.HasPrefix(src[j:], strings.Repeat(q, 3)) {
				q = strings.Repeat(q, 3)
			}
			raw := strings.ContainsAny(prefix, "rR")
			body, end, ok := scanString(src, j+len(q), q, raw)
			if !ok {
				out.WriteString(src[start:])
				return out.String()
			}
			if !strings.ContainsAny(prefix, "fF") {
				out.WriteString(src[start:end])
				i = end
				continue
			}
			tmpl, args, ok := splitFString(body)
			if !ok {
				return src
			}
			p := strings.NewReplacer("f", "", "F", "").Replace(prefix)
			out.WriteString(p + q + tmpl + q + ".format(" + strings.Join(args, ", ") + ")")
			i = end
		default:
			if isIdent(c) {
				k := i
				for k < n && isIdent(src[k]) {
					k++
				}
				out.WriteString(src[i:k])
				i = k
				continue
			}
			out.WriteByte(c)
			i++
		}
	}
	return out.String()
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// isPrefixStart reports a possible string prefix letter at i that does
// not continue an identifier.
func isPrefixStart(src string, i int) bool {
	if strings.IndexByte("rRbBuUfF", src[i]) < 0 {
		return false
	}
	return i == 0 || !isIdent(src[i-1])
}

// scanString finds the end of a string body starting at i (after the
// opening quote q); it returns the body and the index after the closing
// quote.
func scanString(src string, i int, q string, raw bool) (string, int, bool) {
	start := i
	for i < len(src) {
		if src[i] == '\\' {
			i += 2
			continue
		}
		if len(q) == 1 && src[i] == '\n' {
			return "", 0, false
		}
		if strings.HasPrefix(src[i:], q) {
			return src[start:i], i + len(q), true
		}
		i++
	}
	return "", 0, false
}

// splitFString separates an f-string body into a format template and the
// field expressions.
func splitFString(body string) (string, []string, bool) {
	var tmpl strings.Builder
	var args []string
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == '{' && i+1 < len(body) && body[i+1] == '{' {
			tmpl.WriteString("{{")
			i++
			continue
		}
		if c == '}' && i+1 < len(body) && body[i+1] == '}' {
			tmpl.WriteString("}}")
			i++
			continue
		}
		if c == '}' {
			return "", nil, false
		}
		if c != '{' {
			tmpl.WriteByte(c)
			continue
		}
		// A replacement field: the expression runs to a top-level !, : or }.
		depth := 0
		j := i + 1
		var quote byte
		for ; j < len(body); j++ {
			d := body[j]
			if quote != 0 {
				if d == quote {
					quote = 0
				}
				continue
			}
			switch d {
			case '\'', '"':
				quote = d
			case '(', '[', '{':
				depth++
			case ')', ']':
				depth--
			case '}':
				if depth > 0 {
					depth--
					continue
				}
			case '!':
				if depth == 0 && j+1 < len(body) && body[j+1] == '=' {
					continue
				}
			}
			if depth == 0 && (d == '}' || d == ':' || (d == '!' && (j+1 >= len(body) || body[j+1] != '='))) {
				break
			}
		}
		if j >= len(body) {
			return "", nil, false
		}
		expr := strings.TrimSpace(body[i+1 : j])
		if expr == "" {
			return "", nil, false
		}
		k := strings.IndexByte(body[j:], '}')
		if k < 0 {
			return "", nil, false
		}
		tmpl.WriteString("{" + body[j:j+k] + "}")
		args = append(args, "("+body[i+1:j]+")")
		i = j + k
	}
	return tmpl.String(), args, true
}
