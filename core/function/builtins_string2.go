package function

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tablerun/tablerun/core/types"
)

// This file holds the string functions Flink added in 1.18–2.x
// (STARTSWITH, ELT, PRINTF, TRANSLATE, the REGEXP_* family, URL_*,
// UNHEX, JSON_QUOTE, …) and the older ones tablerun lacked (SHA2, DECODE,
// ENCODE, PARSE_URL, STR_TO_MAP, OVERLAY).

func aBin(t types.Type) (types.Type, bool) {
	if t.Kind == types.Null {
		return types.BytesT, true
	}
	return t, t.IsBinary()
}

// optRegex compiles a pattern for the functions that return NULL (rather
// than fail) for an invalid regular expression.
func optRegex(p string) *regexp.Regexp {
	re, err := compileRegex(p)
	if err != nil {
		return nil
	}
	return re
}

// javaSplit splits s around the matches of re as Java's String.split
// (limit 0): trailing empty strings are removed, and a zero-width match at
// the start does not produce a leading empty string.
func javaSplit(s string, re *regexp.Regexp) []string {
	if s == "" {
		return []string{""}
	}
	var out []string
	start := 0
	for _, m := range re.FindAllStringIndex(s, -1) {
		if m[1] == 0 { // zero-width match at the beginning
			continue
		}
		out = append(out, s[start:m[0]])
		start = m[1]
	}
	out = append(out, s[start:])
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// urlEncode is Java's URLEncoder.encode(s, UTF-8): letters, digits and
// ".-*_" stay, a space becomes '+', every other byte %XX (upper case).
func urlEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '*', c == '_':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// urlDecode is Java's URLDecoder.decode(s, UTF-8); ok is false for an
// illegal escape.
func urlDecode(s string) (string, bool) {
	var b []byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			b = append(b, ' ')
		case '%':
			if i+2 >= len(s) {
				return "", false
			}
			v, err := hex.DecodeString(s[i+1 : i+3])
			if err != nil {
				return "", false
			}
			b = append(b, v[0])
			i += 2
		default:
			b = append(b, c)
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), true
}

// unhex decodes a hexadecimal string; an odd-length string is read as if
// it had a leading '0'.
func unhex(s string) ([]byte, bool) {
	if len(s)%2 == 1 {
		s = "0" + s
	}
	b, err := hex.DecodeString(s)
	return b, err == nil
}

// jsonQuote quotes s as a JSON string literal, escaping '"', '\', '/',
// the control characters and every other character below U+0020.
func jsonQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '/':
			b.WriteString(`\/`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// jsonUnquote undoes jsonQuote; a value that is not a valid JSON string
// literal is returned unchanged.
func jsonUnquote(s string) string {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s
	}
	in := s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c == '"' || c < 0x20 {
			return s
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(in) {
			return s
		}
		i++
		switch in[i] {
		case '"', '\\', '/':
			b.WriteByte(in[i])
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			if i+4 >= len(in) {
				return s
			}
			v, err := hex.DecodeString(in[i+1 : i+5])
			if err != nil {
				return s
			}
			r := rune(v[0])<<8 | rune(v[1])
			i += 4
			if utf16.IsSurrogate(r) && i+6 < len(in) && in[i+1] == '\\' && in[i+2] == 'u' {
				if w, err := hex.DecodeString(in[i+3 : i+7]); err == nil {
					r = utf16.DecodeRune(r, rune(w[0])<<8|rune(w[1]))
					i += 6
				}
			}
			b.WriteRune(r)
		default:
			return s
		}
	}
	return b.String()
}

// translate replaces each character of s found in from by the character
// at the same position of to, removing it when to is shorter.
func translate(s, from, to string) string {
	tr := []rune(to)
	m := map[rune]int{}
	for i, r := range []rune(from) {
		if _, ok := m[r]; !ok {
			m[r] = i
		}
	}
	var b strings.Builder
	for _, r := range s {
		i, ok := m[r]
		switch {
		case !ok:
			b.WriteRune(r)
		case i < len(tr):
			b.WriteRune(tr[i])
		}
	}
	return b.String()
}

// charsets for ENCODE/DECODE, as Java's names.
func encodeCharset(s, cs string) ([]byte, error) {
	switch strings.ToUpper(cs) {
	case "UTF-8", "UTF8":
		return []byte(s), nil
	case "US-ASCII", "ISO-8859-1":
		limit := rune(0x7F)
		if strings.ToUpper(cs) == "ISO-8859-1" {
			limit = 0xFF
		}
		out := make([]byte, 0, len(s))
		for _, r := range s {
			if r > limit {
				r = '?'
			}
			out = append(out, byte(r))
		}
		return out, nil
	case "UTF-16BE", "UTF-16LE", "UTF-16":
		u := utf16.Encode([]rune(s))
		var out []byte
		le := strings.ToUpper(cs) == "UTF-16LE"
		if strings.ToUpper(cs) == "UTF-16" {
			out = append(out, 0xFE, 0xFF) // Java writes a big-endian byte order mark
		}
		for _, x := range u {
			if le {
				out = binary.LittleEndian.AppendUint16(out, x)
			} else {
				out = binary.BigEndian.AppendUint16(out, x)
			}
		}
		return out, nil
	}
	return nil, &EvalError{Class: "java.nio.charset.UnsupportedCharsetException", Msg: cs}
}

func decodeCharset(b []byte, cs string) (string, error) {
	switch strings.ToUpper(cs) {
	case "UTF-8", "UTF8":
		return strings.ToValidUTF8(string(b), "\uFFFD"), nil
	case "US-ASCII", "ISO-8859-1":
		rs := make([]rune, len(b))
		for i, c := range b {
			if c > 0x7F && strings.ToUpper(cs) == "US-ASCII" {
				rs[i] = utf8.RuneError
			} else {
				rs[i] = rune(c)
			}
		}
		return string(rs), nil
	case "UTF-16BE", "UTF-16LE", "UTF-16":
		var order binary.ByteOrder = binary.BigEndian
		if strings.ToUpper(cs) == "UTF-16LE" {
			order = binary.LittleEndian
		}
		if strings.ToUpper(cs) == "UTF-16" && len(b) >= 2 {
			switch {
			case b[0] == 0xFE && b[1] == 0xFF:
				b = b[2:]
			case b[0] == 0xFF && b[1] == 0xFE:
				b, order = b[2:], binary.LittleEndian
			}
		}
		u := make([]uint16, 0, len(b)/2)
		for i := 0; i+1 < len(b); i += 2 {
			u = append(u, order.Uint16(b[i:]))
		}
		s := string(utf16.Decode(u))
		if len(b)%2 == 1 {
			s += "\uFFFD"
		}
		return s, nil
	}
	return "", &EvalError{Class: "java.nio.charset.UnsupportedCharsetException", Msg: cs}
}

// parseURLPart implements PARSE_URL with java.net.URL's parts.
func parseURLPart(raw, part string, key *string) (any, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return nil, false
	}
	switch part {
	case "HOST":
		if u.Host == "" {
			return nil, false
		}
		return u.Hostname(), true
	case "PATH":
		return u.EscapedPath(), true
	case "QUERY":
		if u.RawQuery == "" && !u.ForceQuery {
			return nil, false
		}
		if key == nil {
			return u.RawQuery, true
		}
		for _, kv := range strings.Split(u.RawQuery, "&") {
			if k, v, ok := strings.Cut(kv, "="); ok && k == *key {
				return v, true
			}
		}
		return nil, false
	case "REF":
		if u.Fragment == "" {
			return nil, false
		}
		return u.EscapedFragment(), true
	case "PROTOCOL":
		return u.Scheme, true
	case "AUTHORITY":
		if u.Host == "" {
			return nil, false
		}
		if u.User != nil {
			return u.User.String() + "@" + u.Host, true
		}
		return u.Host, true
	case "FILE":
		f := u.EscapedPath()
		if u.RawQuery != "" {
			f += "?" + u.RawQuery
		}
		return f, true
	case "USERINFO":
		if u.User == nil {
			return nil, false
		}
		return u.User.String(), true
	}
	return nil, false
}

// strToMap implements STR_TO_MAP with Java's split semantics; a later
// duplicate key wins.
func strToMap(s, pairDelim, kvDelim string) (*types.MapValue, error) {
	m := &types.MapValue{Keys: []any{}, Values: []any{}}
	if s == "" {
		return m, nil
	}
	pre, err := compileRegex(pairDelim)
	if err != nil {
		return nil, err
	}
	kre, err := compileRegex(kvDelim)
	if err != nil {
		return nil, err
	}
	for _, pair := range javaSplit(s, pre) {
		var k, v any = pair, nil
		if loc := kre.FindStringIndex(pair); loc != nil {
			k, v = pair[:loc[0]], pair[loc[1]:]
		}
		if i := collIndex(m.Keys, k); i >= 0 {
			m.Values[i] = v
			continue
		}
		m.Keys = append(m.Keys, k)
		m.Values = append(m.Values, v)
	}
	return m, nil
}

// overlay implements OVERLAY(s PLACING r FROM pos [FOR n]) on characters.
func overlay(s, r string, pos, n int64) string {
	rs := []rune(s)
	if pos < 1 {
		pos = 1
	}
	if pos > int64(len(rs))+1 {
		pos = int64(len(rs)) + 1
	}
	end := pos - 1 + n
	if n < 0 {
		end = pos - 1
	}
	if end > int64(len(rs)) {
		end = int64(len(rs))
	}
	return string(rs[:pos-1]) + r + string(rs[end:])
}

func registerString2(r *Registry) {
	affix := func(name string, f func(a, b []byte) bool, summary, example string) {
		r.Register(&Definition{Name: name, Kind: Scalar, NullOnNull: true,
			Infer: func(args []types.Type) (types.Type, []types.Type, error) {
				if len(args) != 2 {
					return types.Type{}, nil, arityError(name, len(args))
				}
				str := (args[0].IsString() || args[0].Kind == types.Null) && (args[1].IsString() || args[1].Kind == types.Null)
				bin := (args[0].IsBinary() || args[0].Kind == types.Null) && (args[1].IsBinary() || args[1].Kind == types.Null)
				if !str && !bin {
					return types.Type{}, nil, CallError(name, args)
				}
				return types.BooleanT.WithNullable(anyNullable(args)), nil, nil
			},
			Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				return f(bytesOf(a[0]), bytesOf(a[1])), nil
			},
			Doc: Doc{Summary: summary, Args: "expr, " + strings.ToLower(name[:len(name)-4]) + "Expr", Example: example}})
	}
	affix("STARTSWITH", bytes.HasPrefix, "Returns whether expr starts with startExpr (TRUE for an empty startExpr); both strings or both binary strings; NULL when any argument is NULL.", "STARTSWITH('Flink', 'Fl') → TRUE")
	affix("ENDSWITH", bytes.HasSuffix, "Returns whether expr ends with endExpr (TRUE for an empty endExpr); both strings or both binary strings; NULL when any argument is NULL.", "ENDSWITH('Flink', 'nk') → TRUE")

	r.Register(&Definition{Name: "ELT", Kind: Scalar,
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) < 2 {
				return types.Type{}, nil, arityError("ELT", len(args))
			}
			if !args[0].IsInteger() && args[0].Kind != types.Null {
				return types.Type{}, nil, CallError("ELT", args)
			}
			common, ok := CommonType(args[1:]...)
			if !ok || (!common.IsString() && !common.IsBinary()) {
				return types.Type{}, nil, CallError("ELT", args)
			}
			casts := []types.Type{types.BigIntT.WithNullable(args[0].Nullable())}
			for _, a := range args[1:] {
				casts = append(casts, common.WithNullable(a.Nullable()))
			}
			return common.WithNullable(true), casts, nil
		},
		Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			i := argInt(a[0])
			if i < 1 || i >= int64(len(a)) {
				return nil, nil
			}
			return a[i], nil
		},
		Doc: Doc{Summary: "Returns the index-th expression (1-based); NULL when index is NULL or out of range. The expressions are all strings or all binary strings.",
			Args: "index, expr [, expr]*", Example: "ELT(2, 'a', 'b') → 'b'"}})

	r.Register(&Definition{Name: "PRINTF", Kind: Scalar,
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) < 1 {
				return types.Type{}, nil, arityError("PRINTF", len(args))
			}
			if !args[0].IsString() && args[0].Kind != types.Null {
				return types.Type{}, nil, CallError("PRINTF", args)
			}
			return types.StringT.WithNullable(true), nil, nil
		},
		Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			f, ok := a[0].(string)
			if !ok {
				return nil, nil
			}
			out, ok := javaFormat(ctx, f, a[1:], ct.Args[1:])
			if !ok {
				return nil, nil
			}
			return out, nil
		},
		Doc: Doc{Summary: "Formats the arguments with a printf-style format string as java.util.Formatter with Locale.US (%s %d %x %o %f %e %g %c %b %% %n with flags, width and precision); a NULL argument prints as 'null'; NULL when the format is NULL or invalid.",
			Args: "format [, obj]*", Example: "PRINTF('%s has %d items', 'cart', 3) → 'cart has 3 items'"}})

	r.Register(spec{name: "TRANSLATE", minArgs: 3, maxArgs: 3, args: []argClass{aStr}, result: fixedT(types.StringT),
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			s, ok := a[0].(string)
			if !ok {
				return nil, nil
			}
			from, _ := a[1].(string)
			to, _ := a[2].(string)
			if from == "" {
				return s, nil
			}
			return translate(s, from, to), nil
		},
		doc: Doc{Summary: "Replaces every character of expr found in fromStr by the character at the same position in toStr; characters without a counterpart (toStr shorter) are removed. NULL when expr is NULL; a NULL or empty fromStr leaves expr unchanged, a NULL toStr removes.",
			Args: "expr, fromStr, toStr", Example: "TRANSLATE('AaBbCc', 'abc', '12') → 'A1B2C'"}}.def())

	r.Register(spec{name: "URL_ENCODE", minArgs: 1, maxArgs: 1, args: []argClass{aStr}, result: fixedT(types.StringT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) { return urlEncode(a[0].(string)), nil },
		doc: Doc{Summary: "Encodes the string in 'application/x-www-form-urlencoded' format with UTF-8 (as java.net.URLEncoder); NULL for NULL.",
			Args: "string", Example: "URL_ENCODE('a b&c') → 'a+b%26c'"}}.def())
	r.Register(spec{name: "URL_DECODE", minArgs: 1, maxArgs: 1, args: []argClass{aStr}, result: fixedT(types.StringT), nullOnNull: true, mayBeNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			if s, ok := urlDecode(a[0].(string)); ok {
				return s, nil
			}
			return nil, nil
		},
		doc: Doc{Summary: "Decodes an 'application/x-www-form-urlencoded' string with UTF-8 (as java.net.URLDecoder); NULL for NULL or an illegal escape.",
			Args: "string", Example: "URL_DECODE('a+b%26c') → 'a b&c'"}}.def())

	r.Register(spec{name: "REGEXP_COUNT", minArgs: 2, maxArgs: 2, args: []argClass{aStr}, result: fixedT(types.IntT), nullOnNull: true, mayBeNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			re := optRegex(a[1].(string))
			if re == nil {
				return nil, nil
			}
			return int32(len(re.FindAllStringIndex(a[0].(string), -1))), nil
		},
		doc: Doc{Summary: "Returns the number of matches of the regular expression in str; NULL when an argument is NULL or the regex is invalid.",
			Args: "str, regex", Example: "REGEXP_COUNT('ababa', 'ab') → 2"}}.def())
	r.Register(&Definition{Name: "REGEXP_EXTRACT_ALL", Kind: Scalar, NullOnNull: true,
		Infer: spec{name: "REGEXP_EXTRACT_ALL", minArgs: 2, maxArgs: 3, args: []argClass{aStr, aStr, aBigInt},
			result: fixedT(types.ArrayOf(types.StringT)), mayBeNull: true}.infer,
		Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			re := optRegex(a[1].(string))
			if re == nil {
				return nil, nil
			}
			g := int64(1)
			if len(a) > 2 {
				g = argInt(a[2])
			}
			if g < 0 || g > int64(re.NumSubexp()) {
				return nil, nil
			}
			s := a[0].(string)
			out := []any{}
			for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
				if m[2*g] < 0 {
					out = append(out, nil)
					continue
				}
				out = append(out, s[m[2*g]:m[2*g+1]])
			}
			return out, nil
		},
		Doc: Doc{Summary: "Returns every match of the regular expression's group extractIndex (1 by default; 0 is the whole match) as an ARRAY<STRING>; NULL when an argument is NULL, the regex is invalid or the group does not exist.",
			Args: "str, regex [, extractIndex]", Example: "REGEXP_EXTRACT_ALL('k1=v1&k2=v2', '(\\w+)=(\\w+)', 2) → [v1, v2]"}})
	r.Register(spec{name: "REGEXP_INSTR", minArgs: 2, maxArgs: 2, args: []argClass{aStr}, result: fixedT(types.IntT), nullOnNull: true, mayBeNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			re := optRegex(a[1].(string))
			if re == nil {
				return nil, nil
			}
			s := a[0].(string)
			m := re.FindStringIndex(s)
			if m == nil {
				return int32(0), nil
			}
			return int32(utf8.RuneCountInString(s[:m[0]]) + 1), nil
		},
		doc: Doc{Summary: "Returns the 1-based position of the first match of the regular expression in str, 0 when there is none; NULL when an argument is NULL or the regex is invalid.",
			Args: "str, regex", Example: "REGEXP_INSTR('hello 42', '[0-9]+') → 7"}}.def())
	r.Register(spec{name: "REGEXP_SUBSTR", minArgs: 2, maxArgs: 2, args: []argClass{aStr}, result: fixedT(types.StringT), nullOnNull: true, mayBeNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			re := optRegex(a[1].(string))
			if re == nil {
				return nil, nil
			}
			s := a[0].(string)
			m := re.FindStringIndex(s)
			if m == nil {
				return nil, nil
			}
			return s[m[0]:m[1]], nil
		},
		doc: Doc{Summary: "Returns the first match of the regular expression in str; NULL when an argument is NULL, the regex is invalid or nothing matches.",
			Args: "str, regex", Example: "REGEXP_SUBSTR('hello 42', '[0-9]+') → '42'"}}.def())

	r.Register(spec{name: "UNHEX", minArgs: 1, maxArgs: 1, args: []argClass{aStr}, result: fixedT(types.BytesT), nullOnNull: true, mayBeNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			if b, ok := unhex(a[0].(string)); ok {
				return b, nil
			}
			return nil, nil
		},
		doc: Doc{Summary: "Converts a hexadecimal string to BINARY (an odd-length string is read with a leading 0); NULL when expr is NULL or has a non-hex character.",
			Args: "expr", Example: "UNHEX('466C696E6B') → x'466C696E6B'"}}.def())

	r.Register(spec{name: "SHA2", minArgs: 2, maxArgs: 2, args: []argClass{aStr, aInt}, result: fixedT(types.VarCharOf(128)), nullOnNull: true, mayBeNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			s := []byte(a[0].(string))
			var sum []byte
			switch argInt(a[1]) {
			case 224:
				h := sha256.Sum224(s)
				sum = h[:]
			case 256, 0:
				h := sha256.Sum256(s)
				sum = h[:]
			case 384:
				h := sha512.Sum384(s)
				sum = h[:]
			case 512:
				h := sha512.Sum512(s)
				sum = h[:]
			default:
				return nil, nil
			}
			return hex.EncodeToString(sum), nil
		},
		doc: Doc{Summary: "Returns the SHA-2 hash (hashLength 224, 256, 384 or 512 bits) of the string as hexadecimal digits; NULL when an argument is NULL or the length is not supported.",
			Args: "string, hashLength", Example: "SHA2('a', 256)"}}.def())

	r.Register(spec{name: "ENCODE", minArgs: 2, maxArgs: 2, args: []argClass{aStr}, result: fixedT(types.BytesT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			return encodeCharset(a[0].(string), a[1].(string))
		},
		doc: Doc{Summary: "Encodes the string into BINARY with the character set ('US-ASCII', 'ISO-8859-1', 'UTF-8', 'UTF-16BE', 'UTF-16LE', 'UTF-16'); NULL when an argument is NULL.",
			Args: "string, charset", Example: "ENCODE('abc', 'UTF-8') → x'616263'"}}.def())
	r.Register(spec{name: "DECODE", minArgs: 2, maxArgs: 2, args: []argClass{aBin, aStr}, result: fixedT(types.StringT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			return decodeCharset(a[0].([]byte), a[1].(string))
		},
		doc: Doc{Summary: "Decodes BINARY into a string with the character set ('US-ASCII', 'ISO-8859-1', 'UTF-8', 'UTF-16BE', 'UTF-16LE', 'UTF-16'); NULL when an argument is NULL.",
			Args: "binary, charset", Example: "DECODE(x'616263', 'UTF-8') → 'abc'"}}.def())

	r.Register(spec{name: "PARSE_URL", minArgs: 2, maxArgs: 3, args: []argClass{aStr}, result: fixedT(types.StringT), nullOnNull: true, mayBeNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			var key *string
			if len(a) > 2 {
				k := a[2].(string)
				key = &k
			}
			v, _ := parseURLPart(a[0].(string), strings.ToUpper(a[1].(string)), key)
			return v, nil
		},
		doc: Doc{Summary: "Returns a part of the URL: 'HOST', 'PATH', 'QUERY', 'REF', 'PROTOCOL', 'AUTHORITY', 'FILE' or 'USERINFO'; with a key, the value of that query parameter. NULL when an argument is NULL or the part is absent.",
			Args: "url, part [, key]", Example: "PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'QUERY', 'k1') → 'v1'"}}.def())

	r.Register(spec{name: "STR_TO_MAP", minArgs: 1, maxArgs: 3, args: []argClass{aStr}, result: fixedT(types.MapOf(types.StringT, types.StringT)), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			pair, kv := ",", "="
			if len(a) > 1 {
				pair = a[1].(string)
			}
			if len(a) > 2 {
				kv = a[2].(string)
			}
			return strToMap(a[0].(string), pair, kv)
		},
		doc: Doc{Summary: "Splits the string into key/value pairs with the pair delimiter (',' by default) and the key-value delimiter ('=' by default), both regular expressions, into a MAP<STRING, STRING> (a pair without the key-value delimiter maps to NULL; a later duplicate key wins); NULL when an argument is NULL.",
			Args: "string [, pairDelimiter, keyValueDelimiter]", Example: "STR_TO_MAP('a=1,b=2') → {a=1, b=2}"}}.def())

	r.Register(spec{name: "OVERLAY", minArgs: 3, maxArgs: 4, args: []argClass{aStr, aStr, aBigInt}, result: fixedT(types.StringT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			s, rep := a[0].(string), a[1].(string)
			n := int64(utf8.RuneCountInString(rep))
			if len(a) > 3 {
				n = argInt(a[3])
			}
			return overlay(s, rep, argInt(a[2]), n), nil
		},
		doc: Doc{Summary: "Replaces length characters (the replacement's length by default) of the string from the 1-based position with the replacement; NULL when an argument is NULL. Calling convention: OVERLAY(s PLACING r FROM pos [FOR length]) is OVERLAY(s, r, pos [, length]).",
			Args: "string PLACING replacement FROM position [FOR length]", Example: "OVERLAY('xxxxxtest' PLACING 'xxxx' FROM 6 FOR 2) → 'xxxxxxxxxst'"}}.def())

	r.Register(spec{name: "JSON_QUOTE", minArgs: 1, maxArgs: 1, args: []argClass{aStr}, result: fixedT(types.StringT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) { return jsonQuote(a[0].(string)), nil },
		doc: Doc{Summary: "Quotes the string as a JSON string value, escaping '\"', '\\', '/', \\b, \\f, \\n, \\r, \\t and other control characters; NULL for NULL.",
			Args: "string", Example: `JSON_QUOTE('a"b') → '"a\"b"'`}}.def())
	r.Register(spec{name: "JSON_UNQUOTE", minArgs: 1, maxArgs: 1, args: []argClass{aStr}, result: fixedT(types.StringT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) { return jsonUnquote(a[0].(string)), nil },
		doc: Doc{Summary: "Unquotes a JSON string value, unescaping its escapes (including \\uXXXX); a value that is not a valid JSON string literal is returned unchanged; NULL for NULL.",
			Args: "string", Example: `JSON_UNQUOTE('"a\\tb"') → 'a	b'`}}.def())
}

// bytesOf returns the bytes of a string or binary value.
func bytesOf(v any) []byte {
	switch x := v.(type) {
	case string:
		return []byte(x)
	case []byte:
		return x
	}
	return nil
}

// registerSession registers CURRENT_CATALOG and CURRENT_DATABASE, which
// read the session's names from the EvalContext.
func registerSession(r *Registry) {
	for _, name := range []string{"CURRENT_CATALOG", "CURRENT_DATABASE"} {
		r.Register(spec{name: name, minArgs: 0, maxArgs: 0, result: fixedT(types.StringT), notNull: true, nondet: true,
			eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				v := ctx.Catalog
				if name == "CURRENT_DATABASE" {
					v = ctx.Database
				}
				if v == "" {
					return nil, fmt.Errorf("not supported yet: %s outside a session that sets the current catalog and database", name)
				}
				return v, nil
			},
			doc: Doc{Summary: map[string]string{"CURRENT_CATALOG": "Returns the current catalog.", "CURRENT_DATABASE": "Returns the current database."}[name],
				Args: "", Example: name + "()"}}.def())
	}
}
