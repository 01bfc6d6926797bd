package function

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// The characters of SQL SIMILAR TO patterns (Flink's SqlLikeUtils) that an
// escape makes literal, and those that are special in the translated
// regular expression.
const (
	similarSpecials = "[]()|^-+*_%?{}"
	regexSpecials   = "[]()|^-+*?{}$\\."
)

var similarCache sync.Map // pattern + "\x00" + escape → *regexp.Regexp

// similarRegex translates a SIMILAR TO pattern into an anchored regular
// expression as Flink's SqlLikeUtils.sqlToRegexSimilar does: % is any
// sequence, _ any character, the regular-expression operators | * + ?
// {m,n} ( ) [ ] and . keep their meaning, \ and $ are literal, and the escape
// character (none without ESCAPE) makes the next special character
// literal.
func similarRegex(pattern, escape string) (*regexp.Regexp, error) {
	key := pattern + "\x00" + escape
	if re, ok := similarCache.Load(key); ok {
		return re.(*regexp.Regexp), nil
	}
	var esc rune = -1
	if escape != "" {
		r := []rune(escape)
		if len(r) != 1 {
			return nil, fmt.Errorf("Invalid escape character '%s'", escape)
		}
		esc = r[0]
	}
	var b strings.Builder
	b.WriteString("^(?:")
	inClass := false
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		if c == esc {
			if i == len(rs)-1 {
				return nil, fmt.Errorf("Invalid escape sequence '%s', %d", pattern, i)
			}
			next := rs[i+1]
			switch {
			case strings.ContainsRune(similarSpecials, next):
				if strings.ContainsRune(regexSpecials, next) {
					b.WriteByte('\\')
				}
				b.WriteRune(next)
			case next == esc:
				b.WriteString(regexp.QuoteMeta(string(next)))
			default:
				return nil, fmt.Errorf("Invalid escape sequence '%s', %d", pattern, i)
			}
			i++
			continue
		}
		switch c {
		case '_':
			b.WriteByte('.')
		case '%':
			b.WriteString("(?s:.*)")
		case '[':
			inClass = true
			b.WriteRune(c)
		case ']':
			inClass = false
			b.WriteRune(c)
		case '\\':
			b.WriteString(`\\`)
		case '$':
			b.WriteString(`\$`)
		default:
			b.WriteRune(c)
		}
	}
	if inClass {
		return nil, fmt.Errorf("Invalid regular expression '%s', index %d", pattern, len(rs))
	}
	b.WriteString(")$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("Invalid regular expression '%s': %v", pattern, err)
	}
	similarCache.Store(key, re)
	return re, nil
}
