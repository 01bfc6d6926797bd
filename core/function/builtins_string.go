package function

import (
	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/tablerun/tablerun/core/types"
)

func decodeRune(s string) (rune, int) { return utf8.DecodeRuneInString(s) }

// lru is a tiny concurrency-safe cache for compiled patterns.
type lru[K comparable, V any] struct {
	mu  sync.Mutex
	max int
	m   map[K]V
}

func newLRU[K comparable, V any](n int) *lru[K, V] { return &lru[K, V]{max: n, m: map[K]V{}} }

func (c *lru[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *lru[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[k] = v
}

var regexCache = newLRU[string, *regexp.Regexp](256)

// compileRegex compiles a Java-style regular expression (Go's RE2 syntax
// covers the common subset).
func compileRegex(p string) (*regexp.Regexp, error) {
	if re, ok := regexCache.get(p); ok {
		return re, nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("Invalid regular expression '%s': %w", p, err)
	}
	regexCache.put(p, re)
	return re, nil
}

func strResult(args []types.Type) types.Type { return types.StringT }

func str1(name, summary, example string, f func(s string) (any, error), result types.Type) *Definition {
	return spec{name: name, minArgs: 1, maxArgs: 1, args: []argClass{aStr}, result: fixedT(result), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, args []any) (any, error) { return f(args[0].(string)) },
		doc:  Doc{Summary: summary, Args: "string", Example: example}}.def()
}

// sameStr keeps the argument's string type: UPPER, LOWER and INITCAP
// keep CHAR(n) and VARCHAR(n), as Flink's (checked against Flink 2.3).
func sameStr(args []types.Type) types.Type {
	if args[0].IsString() {
		return types.Type{Kind: args[0].Kind, Precision: args[0].Precision}
	}
	return types.StringT
}

// varyingStr is the VARCHAR of the string argument at index i (its length
// kept, CHAR made varying): the result of TRIM, LTRIM, RTRIM and
// SUBSTRING in Flink (Calcite's ARG0 with TO_VARYING).
func varyingStr(i int) func(args []types.Type) types.Type {
	return func(args []types.Type) types.Type {
		if i < len(args) && args[i].IsString() {
			return types.VarCharOf(args[i].Precision)
		}
		return types.StringT
	}
}

func argInt(v any) int64 {
	i, _ := toInt64(v)
	return i
}

// runeSub returns the characters [from, from+n) of s (0-based, clamped).
func runeSub(s string, from, n int64) string {
	if n <= 0 || from < 0 {
		if from < 0 {
			n += from
			from = 0
		}
		if n <= 0 {
			return ""
		}
	}
	i := int64(0)
	start, end := -1, len(s)
	for pos := range s {
		if i == from {
			start = pos
		}
		if i == from+n {
			end = pos
			break
		}
		i++
	}
	if start < 0 {
		return ""
	}
	return s[start:end]
}

// substring implements Flink's SUBSTRING(s, pos[, len]): 1-based; a
// negative pos counts from the end; pos 0 acts as 1.
func substring(s string, pos int64, n int64, hasLen bool) (string, error) {
	if hasLen && n < 0 {
		return "", fmt.Errorf("SUBSTRING: negative length %d", n)
	}
	l := int64(utf8.RuneCountInString(s))
	var from int64
	switch {
	case pos > 0:
		from = pos - 1
	case pos == 0:
		from = 0
	default:
		from = l + pos
		if from < 0 {
			if hasLen {
				n += from
			}
			from = 0
		}
	}
	if !hasLen {
		n = l
	}
	if from >= l {
		return "", nil
	}
	return runeSub(s, from, n), nil
}

func trimChars(s, chars string, left, right bool) string {
	f := func(r rune) bool { return strings.ContainsRune(chars, r) }
	if left {
		s = strings.TrimLeftFunc(s, f)
	}
	if right {
		s = strings.TrimRightFunc(s, f)
	}
	return s
}

func pad(name string, s string, n int64, p string, left bool) (any, error) {
	if n < 0 {
		return nil, nil
	}
	if n > maxStringLen {
		return nil, lengthError(name)
	}
	rs := []rune(s)
	if int64(len(rs)) >= n {
		return string(rs[:n]), nil
	}
	if p == "" {
		return nil, nil
	}
	pr := []rune(p)
	need := int(n) - len(rs)
	fill := make([]rune, need)
	for i := range fill {
		fill[i] = pr[i%len(pr)]
	}
	if left {
		return string(fill) + s, nil
	}
	return s + string(fill), nil
}

func initCap(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	start := true
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start {
				b.WriteRune(unicode.ToUpper(r))
			} else {
				b.WriteRune(unicode.ToLower(r))
			}
			start = false
		} else {
			b.WriteRune(r)
			start = true
		}
	}
	return b.String()
}

// UpperFull and LowerFull map case as Flink's UPPER and LOWER do (Java's
// String.toUpperCase/toLowerCase): with Unicode's full mappings, so 'ß'
// becomes "SS" (strings.ToUpper maps rune by rune and keeps it; found by
// internal/flinkdiff's streaming generator).
func UpperFull(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return cases.Upper(language.Und).String(validUTF8(s))
		}
	}
	return strings.ToUpper(s)
}

// FitLength cuts s to the length of a bounded CHAR(n)/VARCHAR(n) type: a
// full case mapping can grow a string beyond the type UPPER and LOWER keep
// (UPPER('ß') is CHAR(1) and 'SS'). Flink cuts only where a constant is
// folded into a literal of that type ('S'); at run time the value keeps
// its characters.
func FitLength(s string, t types.Type) string {
	if (t.Kind != types.Char && t.Kind != types.VarChar) || t.Precision >= types.MaxLength || len(s) <= t.Precision {
		return s
	}
	n := 0
	for i := range s {
		if n == t.Precision {
			return s[:i]
		}
		n++
	}
	return s
}

// validUTF8 replaces each invalid byte with U+FFFD, as strings.ToUpper
// does.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.Map(func(r rune) rune { return r }, s)
}

// LowerFull: see UpperFull.
func LowerFull(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return cases.Lower(language.Und).String(validUTF8(s))
		}
	}
	return strings.ToLower(s)
}

func registerString(r *Registry) {
	r.Register(spec{name: "UPPER", minArgs: 1, maxArgs: 1, args: []argClass{aStr}, result: sameStr, nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			return UpperFull(a[0].(string)), nil
		},
		doc: Doc{Summary: "Returns the string in upper case.", Args: "string", Example: "UPPER('ab') → 'AB'"}}.def())
	r.Register(spec{name: "LOWER", minArgs: 1, maxArgs: 1, args: []argClass{aStr}, result: sameStr, nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			return LowerFull(a[0].(string)), nil
		},
		doc: Doc{Summary: "Returns the string in lower case.", Args: "string", Example: "LOWER('AB') → 'ab'"}}.def())
	for _, n := range []string{"CHAR_LENGTH", "CHARACTER_LENGTH"} {
		r.Register(str1(n, "Returns the number of characters.", n+"('abc') → 3",
			func(s string) (any, error) { return int32(utf8.RuneCountInString(s)), nil }, types.IntT))
	}
	r.Register(str1("REVERSE", "Returns the reversed string.", "REVERSE('abc') → 'cba'", func(s string) (any, error) {
		rs := []rune(s)
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return string(rs), nil
	}, types.StringT))
	r.Register(spec{name: "INITCAP", minArgs: 1, maxArgs: 1, args: []argClass{aStr}, result: sameStr, nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) { return initCap(a[0].(string)), nil },
		doc:  Doc{Summary: "Capitalises the first letter of each word, lower-cases the rest.", Args: "string", Example: "INITCAP('hello WORLD') → 'Hello World'"}}.def())
	r.Register(str1("ASCII", "Returns the code of the first character (0 for an empty string).", "ASCII('a') → 97",
		func(s string) (any, error) {
			if s == "" {
				return int32(0), nil
			}
			r, _ := utf8.DecodeRuneInString(s)
			return int32(r), nil
		}, types.IntT))
	// the hashes are CHAR(2 × digest bytes) as in Flink (checked against
	// Flink 2.3 by internal/flinkdiff)
	hash := func(name string, size int, f func([]byte) string) {
		r.Register(str1(name, "Returns the "+name+" hash of the string as hexadecimal digits.", name+"('a')",
			func(s string) (any, error) { return f([]byte(s)), nil }, types.CharOf(2*size)))
	}
	hash("MD5", md5.Size, func(b []byte) string { h := md5.Sum(b); return hex.EncodeToString(h[:]) })
	hash("SHA1", sha1.Size, func(b []byte) string { h := sha1.Sum(b); return hex.EncodeToString(h[:]) })
	hash("SHA256", sha256.Size, func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) })
	hash("SHA512", sha512.Size, func(b []byte) string { h := sha512.Sum512(b); return hex.EncodeToString(h[:]) })
	hash("SHA224", sha256.Size224, func(b []byte) string { h := sha256.Sum224(b); return hex.EncodeToString(h[:]) })
	hash("SHA384", sha512.Size384, func(b []byte) string { h := sha512.Sum384(b); return hex.EncodeToString(h[:]) })

	r.Register(spec{name: "CHR", minArgs: 1, maxArgs: 1, args: []argClass{aInt}, result: fixedT(types.StringT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			n := argInt(a[0])
			if n < 0 {
				return nil, nil
			}
			return string(rune(n % 256)), nil
		},
		doc: Doc{Summary: "Returns the character with the given code (modulo 256).", Args: "integer", Example: "CHR(97) → 'a'"}}.def())

	for _, name := range []string{"SUBSTRING", "SUBSTR"} {
		// nullable whatever the arguments, as in Flink
		r.Register(spec{name: name, minArgs: 2, maxArgs: 3, args: []argClass{aStr, aInt, aInt}, result: varyingStr(0), nullOnNull: true, mayBeNull: true,
			eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				var n int64
				if len(a) > 2 {
					n = argInt(a[2])
				}
				return substring(a[0].(string), argInt(a[1]), n, len(a) > 2)
			},
			doc: Doc{Summary: "Returns the substring starting at a 1-based position, of the given length or to the end.", Args: "string, start [, length]", Example: name + "('hello', 2, 3) → 'ell'"}}.def())
	}
	r.Register(spec{name: "TRIM", minArgs: 1, maxArgs: 3, args: []argClass{aStr}, result: trimResult, nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			if len(a) == 1 {
				return trimChars(a[0].(string), " ", true, true), nil
			}
			if len(a) != 3 {
				return nil, fmt.Errorf("internal: TRIM takes (mode, chars, string)")
			}
			mode := strings.ToUpper(a[0].(string))
			return trimChars(a[2].(string), a[1].(string), mode != "TRAILING", mode != "LEADING"), nil
		},
		doc: Doc{Summary: "Removes leading and/or trailing characters (spaces by default).", Args: "[BOTH | LEADING | TRAILING] [chars] FROM string", Example: "TRIM('  a ') → 'a'"}}.def())
	trimFn := func(name string, left, right bool) {
		r.Register(spec{name: name, minArgs: 1, maxArgs: 2, args: []argClass{aStr}, result: varyingStr(0), nullOnNull: true,
			eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				chars := " "
				if len(a) > 1 {
					chars = a[1].(string)
				}
				return trimChars(a[0].(string), chars, left, right), nil
			},
			doc: Doc{Summary: "Removes characters (spaces by default) from the string's start and/or end.", Args: "string [, chars]", Example: name + "('  a ')"}}.def())
	}
	trimFn("LTRIM", true, false)
	trimFn("RTRIM", false, true)
	trimFn("BTRIM", true, true)

	r.Register(spec{name: "POSITION", minArgs: 2, maxArgs: 2, args: []argClass{aStr}, result: fixedT(types.IntT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			return position(a[0].(string), a[1].(string), 1), nil
		},
		doc: Doc{Summary: "Returns the 1-based position of the first occurrence of needle in haystack, 0 if absent.", Args: "needle IN haystack", Example: "POSITION('b' IN 'abc') → 2"}}.def())
	r.Register(spec{name: "LOCATE", minArgs: 2, maxArgs: 3, args: []argClass{aStr, aStr, aInt}, result: fixedT(types.IntT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			from := int64(1)
			if len(a) > 2 {
				from = argInt(a[2])
			}
			return position(a[0].(string), a[1].(string), from), nil
		},
		doc: Doc{Summary: "Returns the 1-based position of needle in haystack after a start position, 0 if absent.", Args: "needle, haystack [, start]", Example: "LOCATE('b', 'abc') → 2"}}.def())
	r.Register(spec{name: "INSTR", minArgs: 2, maxArgs: 2, args: []argClass{aStr}, result: fixedT(types.IntT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			return position(a[1].(string), a[0].(string), 1), nil
		},
		doc: Doc{Summary: "Returns the 1-based position of the first occurrence of substring in string, 0 if absent.", Args: "string, substring", Example: "INSTR('abc', 'c') → 3"}}.def())
	r.Register(spec{name: "REPLACE", minArgs: 3, maxArgs: 3, args: []argClass{aStr}, result: fixedT(types.StringT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			s, old, nw := a[0].(string), a[1].(string), a[2].(string)
			if old == "" {
				return s, nil
			}
			if c := strings.Count(s, old); len(s)+c*(len(nw)-len(old)) > maxStringLen {
				return nil, lengthError("REPLACE")
			}
			return strings.ReplaceAll(s, old, nw), nil
		},
		doc: Doc{Summary: "Replaces every occurrence of search with replacement.", Args: "string, search, replacement", Example: "REPLACE('aXa', 'X', 'b') → 'aba'"}}.def())
	r.Register(&Definition{Name: "CONCAT_WS",
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) < 2 {
				return types.Type{}, nil, arityError("CONCAT_WS", len(args))
			}
			cast := make([]types.Type, len(args))
			for i, a := range args {
				c, ok := aStr(a)
				if !ok {
					return types.Type{}, nil, CallError("CONCAT_WS", args)
				}
				cast[i] = c.WithNullable(a.Nullable())
			}
			return types.StringT.WithNullable(args[0].Nullable()), cast, nil
		},
		Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			parts := make([]string, 0, len(a)-1)
			n := 0
			for _, x := range a[1:] {
				if x != nil {
					parts = append(parts, x.(string))
					n += len(x.(string)) + len(a[0].(string))
				}
			}
			if n > maxStringLen {
				return nil, lengthError("CONCAT_WS")
			}
			return strings.Join(parts, a[0].(string)), nil
		},
		Doc: Doc{Summary: "Concatenates strings with a separator, skipping NULL strings; NULL if the separator is NULL.", Args: "separator, string1, string2, …", Example: "CONCAT_WS('-', 'a', NULL, 'b') → 'a-b'"}})
	for _, p := range []struct {
		name string
		left bool
	}{{"LPAD", true}, {"RPAD", false}} {
		p := p
		r.Register(spec{name: p.name, minArgs: 3, maxArgs: 3, args: []argClass{aStr, aInt, aStr}, result: fixedT(types.StringT), nullOnNull: true, mayBeNull: true,
			eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				return pad(p.name, a[0].(string), argInt(a[1]), a[2].(string), p.left)
			},
			doc: Doc{Summary: "Pads the string to a length with the pad string (truncates if longer); NULL for a negative length.", Args: "string, length, pad", Example: p.name + "('hi', 4, '?')"}}.def())
	}
	r.Register(spec{name: "REPEAT", minArgs: 2, maxArgs: 2, args: []argClass{aStr, aInt}, result: fixedT(types.StringT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			s, n := a[0].(string), argInt(a[1])
			if n <= 0 {
				return "", nil
			}
			if len(s) > 0 && n > int64(maxStringLen/len(s)) {
				return nil, lengthError("REPEAT")
			}
			return strings.Repeat(s, int(n)), nil
		},
		doc: Doc{Summary: "Repeats the string n times.", Args: "string, n", Example: "REPEAT('ab', 2) → 'abab'"}}.def())
	r.Register(spec{name: "LEFT", minArgs: 2, maxArgs: 2, args: []argClass{aStr, aInt}, result: fixedT(types.StringT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			n := argInt(a[1])
			if n <= 0 {
				return "", nil
			}
			return runeSub(a[0].(string), 0, n), nil
		},
		doc: Doc{Summary: "Returns the leftmost n characters.", Args: "string, n", Example: "LEFT('abc', 2) → 'ab'"}}.def())
	r.Register(spec{name: "RIGHT", minArgs: 2, maxArgs: 2, args: []argClass{aStr, aInt}, result: fixedT(types.StringT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			s, n := a[0].(string), argInt(a[1])
			if n <= 0 {
				return "", nil
			}
			l := int64(utf8.RuneCountInString(s))
			if n >= l {
				return s, nil
			}
			return runeSub(s, l-n, n), nil
		},
		doc: Doc{Summary: "Returns the rightmost n characters.", Args: "string, n", Example: "RIGHT('abc', 2) → 'bc'"}}.def())
	r.Register(spec{name: "SPLIT_INDEX", minArgs: 3, maxArgs: 3, args: []argClass{aStr, aStr, aInt}, result: fixedT(types.StringT), nullOnNull: true, mayBeNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			s, sep, i := a[0].(string), a[1].(string), argInt(a[2])
			if i < 0 || sep == "" {
				return nil, nil
			}
			parts := strings.Split(s, sep)
			if i >= int64(len(parts)) {
				return nil, nil
			}
			return parts[i], nil
		},
		doc: Doc{Summary: "Splits the string by the separator and returns the 0-based i-th part, NULL if absent.", Args: "string, separator, index", Example: "SPLIT_INDEX('a,b', ',', 1) → 'b'"}}.def())
	r.Register(spec{name: "REGEXP_REPLACE", minArgs: 3, maxArgs: 3, args: []argClass{aStr}, result: fixedT(types.StringT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			re, err := compileRegex(a[1].(string))
			if err != nil {
				return nil, err
			}
			repl := javaReplacement(a[2].(string))
			return re.ReplaceAllString(a[0].(string), repl), nil
		},
		doc: Doc{Summary: "Replaces every match of the regular expression ($1 refers to groups).", Args: "string, regex, replacement", Example: "REGEXP_REPLACE('foobar', 'oo|ar', '') → 'fb'"}}.def())
	r.Register(spec{name: "REGEXP_EXTRACT", minArgs: 2, maxArgs: 3, args: []argClass{aStr, aStr, aInt}, result: fixedT(types.StringT), nullOnNull: true, mayBeNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			re, err := compileRegex(a[1].(string))
			if err != nil {
				return nil, err
			}
			g := int64(0)
			if len(a) > 2 {
				g = argInt(a[2])
			}
			m := re.FindStringSubmatchIndex(a[0].(string))
			if m == nil || g < 0 || g >= int64(len(m)/2) || m[2*g] < 0 {
				return nil, nil // no match, no such group, or the group did not participate
			}
			return a[0].(string)[m[2*g]:m[2*g+1]], nil
		},
		doc: Doc{Summary: "Returns the given group (default 0) of the first match of the regular expression, NULL if none.", Args: "string, regex [, group]", Example: "REGEXP_EXTRACT('foothebar', 'foo(.*?)(bar)', 2) → 'bar'"}}.def())
	r.Register(spec{name: "REGEXP", minArgs: 2, maxArgs: 2, args: []argClass{aStr}, result: fixedT(types.BooleanT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			re, err := compileRegex(a[1].(string))
			if err != nil {
				return nil, err
			}
			return re.MatchString(a[0].(string)), nil
		},
		doc: Doc{Summary: "TRUE if any substring matches the regular expression.", Args: "string, regex", Example: "REGEXP('abc', 'b') → TRUE"}}.def())
	r.Register(spec{name: "SIMILAR TO", minArgs: 2, maxArgs: 3, args: []argClass{aStr}, result: fixedT(types.BooleanT), nullOnNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			esc := ""
			if len(a) == 3 {
				esc = a[2].(string)
			}
			re, err := similarRegex(a[1].(string), esc)
			if err != nil {
				return nil, err
			}
			return re.MatchString(a[0].(string)), nil
		},
		doc: Doc{Summary: "SQL regular expression match of the whole string: % any sequence, _ one character, | * + ? {m,n} ( ) [ ] as in regular expressions; optional one-character escape.",
			Args: "string SIMILAR TO pattern [ESCAPE char]", Example: "'abc' SIMILAR TO 'a(b|x)%' → TRUE"}}.def())
	isFn := func(name, summary string, f func(r rune) bool) {
		r.Register(spec{name: name, minArgs: 1, maxArgs: 1, args: []argClass{aStr}, result: fixedT(types.BooleanT), notNull: true,
			eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
				if a[0] == nil {
					return false, nil
				}
				s := a[0].(string)
				if s == "" {
					return false, nil
				}
				for _, r := range s {
					if !f(r) {
						return false, nil
					}
				}
				return true, nil
			},
			doc: Doc{Summary: summary, Args: "string", Example: name + "('abc')"}}.def())
	}
	isFn("IS_ALPHA", "TRUE if every character is a letter; FALSE for NULL or empty.", unicode.IsLetter)
	isFn("IS_DIGIT", "TRUE if every character is a digit; FALSE for NULL or empty.", unicode.IsDigit)
	r.Register(spec{name: "IS_DECIMAL", minArgs: 1, maxArgs: 1, args: []argClass{aStr}, result: fixedT(types.BooleanT), notNull: true,
		eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			if a[0] == nil {
				return false, nil
			}
			_, err := parseDecimalString(strings.TrimSpace(a[0].(string)), 38, 18)
			return err == nil && strings.TrimSpace(a[0].(string)) != "", nil
		},
		doc: Doc{Summary: "TRUE if the string parses as a decimal number; FALSE for NULL.", Args: "string", Example: "IS_DECIMAL('1.5') → TRUE"}}.def())
}

// javaReplacement turns Java's $1 group references into Go's ${1}.
func javaReplacement(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			if s[i+1] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(s[i+1])
			}
			i++
		case c == '$' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i + 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			b.WriteString("${" + s[i+1:j] + "}")
			i = j - 1
		case c == '$':
			b.WriteString("$$")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// position returns the 1-based character position of needle in hay at or
// after character from, or 0.
func position(needle, hay string, from int64) int32 {
	if from < 1 {
		return 0
	}
	idx := int64(0)
	for pos := range hay {
		idx++
		if idx < from {
			continue
		}
		if strings.HasPrefix(hay[pos:], needle) {
			return int32(idx)
		}
	}
	if needle == "" {
		n := int64(utf8.RuneCountInString(hay))
		if from <= n+1 {
			return int32(from)
		}
	}
	return 0
}

// trimResult is TRIM's type: the VARCHAR of the trimmed string, the last
// argument of (mode, chars, string) or the only one.
func trimResult(args []types.Type) types.Type { return varyingStr(len(args) - 1)(args) }
