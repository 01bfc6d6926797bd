package python

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-python/gpython/py"
)

// The re module for UDFs, on Go's RE2 engine: compile, match, search,
// fullmatch, findall, finditer, sub, subn, split, escape and the flags I/
// IGNORECASE, M/MULTILINE, S/DOTALL; Pattern and Match objects with the
// usual methods. RE2 has no backreferences and no lookaround: such
// patterns raise re.error ("not supported yet: …"). Positions are
// character (not byte) offsets, as in Python.

var (
	patternType = py.NewType("re.Pattern", "Compiled regular expression")
	matchType   = py.NewType("re.Match", "The result of re.match() and re.search()")
	reError     = py.ExceptionType.NewType("re.error", "Invalid regular expression", nil, nil)
	reCache     sync.Map // pattern+flags → *regexp.Regexp
)

const (
	flagI = 2
	flagM = 8
	flagS = 16
)

type pattern struct {
	src   string
	flags int
	re    *regexp.Regexp
}

// Type implements py.Object.
func (p *pattern) Type() *py.Type { return patternType }

type match struct {
	s   string
	loc []int // byte offsets, as FindStringSubmatchIndex
	re  *regexp.Regexp
	pat *pattern
}

// Type implements py.Object.
func (m *match) Type() *py.Type { return matchType }

// M__getitem__ implements m[group].
func (m *match) M__getitem__(key py.Object) (py.Object, error) {
	i, err := m.groupIndex(key)
	if err != nil {
		return nil, err
	}
	return m.group(i), nil
}

func compileRE(src string, flags int) (*pattern, error) {
	key := src + "\x00" + string(rune('0'+flags%64))
	if v, ok := reCache.Load(key); ok {
		return &pattern{src: src, flags: flags, re: v.(*regexp.Regexp)}, nil
	}
	prefix := ""
	if flags&flagI != 0 {
		prefix += "i"
	}
	if flags&flagM != 0 {
		prefix += "m"
	}
	if flags&flagS != 0 {
		prefix += "s"
	}
	full := src
	if prefix != "" {
		full = "(?" + prefix + ")" + src
	}
	re, err := regexp.Compile(full)
	if err != nil {
		msg := err.Error()
		if strings.Contains(msg, "invalid or unsupported Perl syntax") || strings.Contains(msg, "invalid escape sequence: `\\1") {
			return nil, py.ExceptionNewf(reError, "not supported yet: %s (UDF regular expressions use RE2 syntax: no backreferences or lookaround)", msg)
		}
		return nil, py.ExceptionNewf(reError, "%s", msg)
	}
	reCache.Store(key, re)
	return &pattern{src: src, flags: flags, re: re}, nil
}

// patternOf accepts a pattern string or a compiled pattern.
func patternOf(o py.Object, flags int) (*pattern, error) {
	switch x := o.(type) {
	case *pattern:
		return x, nil
	case py.String:
		return compileRE(string(x), flags)
	}
	return nil, py.ExceptionNewf(py.TypeError, "first argument must be string or compiled pattern, not %s", o.Type().Name)
}

func flagsArg(args py.Tuple, i int, kwargs py.StringDict) (int, error) {
	if f, ok := kwargs["flags"]; ok {
		n, ok := f.(py.Int)
		if !ok {
			return 0, py.ExceptionNewf(py.TypeError, "flags must be int")
		}
		return int(n), nil
	}
	return intArg(args, i, "re", 0)
}

func (p *pattern) matchAt(s string, mode string) py.Object {
	loc := p.re.FindStringSubmatchIndex(s)
	switch mode {
	case "match":
		if loc != nil && loc[0] != 0 {
			// The leftmost match starts later; one anchored at 0 may
			// still exist.
			loc = anchored(p.re, `^(?:`, `)`).FindStringSubmatchIndex(s)
		}
	case "fullmatch":
		if loc == nil || loc[0] != 0 || loc[1] != len(s) {
			loc = anchored(p.re, `^(?:`, `)$`).FindStringSubmatchIndex(s)
		}
	}
	if loc == nil {
		return py.None
	}
	return &match{s: s, loc: loc, re: p.re, pat: p}
}

// anchored returns re wrapped in pre…post (cached).
func anchored(re *regexp.Regexp, pre, post string) *regexp.Regexp {
	key := "\x01" + pre + re.String() + post
	if v, ok := reCache.Load(key); ok {
		return v.(*regexp.Regexp)
	}
	a, err := regexp.Compile(pre + re.String() + post)
	if err != nil {
		a = regexp.MustCompile(`[^\x00-\x{10FFFF}]`) // matches nothing
	}
	reCache.Store(key, a)
	return a
}

func (p *pattern) findall(s string) py.Object {
	all := p.re.FindAllStringSubmatch(s, -1)
	items := make([]py.Object, len(all))
	groups := p.re.NumSubexp()
	for i, m := range all {
		switch groups {
		case 0:
			items[i] = py.String(m[0])
		case 1:
			items[i] = py.String(m[1])
		default:
			t := make(py.Tuple, groups)
			for g := 1; g <= groups; g++ {
				t[g-1] = py.String(m[g])
			}
			items[i] = t
		}
	}
	return py.NewListFromItems(items)
}

func (p *pattern) finditer(s string) (py.Object, error) {
	all := p.re.FindAllStringSubmatchIndex(s, -1)
	items := make([]py.Object, len(all))
	for i, loc := range all {
		items[i] = &match{s: s, loc: loc, re: p.re, pat: p}
	}
	return py.Iter(py.NewListFromItems(items))
}

// pyRepl converts a Python replacement template (\1, \g<1>, \g<name>) to
// Go's Expand syntax.
func pyRepl(r string) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == '$':
			b.WriteString("$$")
		case c == '\\' && i+1 < len(r):
			n := r[i+1]
			switch {
			case n >= '0' && n <= '9':
				j := i + 1
				for j < len(r) && j < i+3 && r[j] >= '0' && r[j] <= '9' {
					j++
				}
				b.WriteString("${" + r[i+1:j] + "}")
				i = j - 1
			case n == 'g' && i+2 < len(r) && r[i+2] == '<':
				end := strings.IndexByte(r[i:], '>')
				if end < 0 {
					b.WriteByte(c)
					continue
				}
				b.WriteString("${" + r[i+3:i+end] + "}")
				i += end
			case n == 'n':
				b.WriteByte('\n')
				i++
			case n == 't':
				b.WriteByte('\t')
				i++
			case n == '\\':
				b.WriteByte('\\')
				i++
			default:
				b.WriteByte(c)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func (p *pattern) sub(repl py.Object, s string, count int) (string, int, error) {
	all := p.re.FindAllStringSubmatchIndex(s, -1)
	if count > 0 && len(all) > count {
		all = all[:count]
	}
	var b strings.Builder
	last := 0
	tmpl := ""
	fn, isStr := py.Object(nil), false
	if rs, ok := repl.(py.String); ok {
		tmpl, isStr = pyRepl(string(rs)), true
	} else {
		fn = repl
	}
	for _, loc := range all {
		b.WriteString(s[last:loc[0]])
		if isStr {
			b.Write(p.re.ExpandString(nil, tmpl, s, loc))
		} else {
			res, err := py.Call(fn, py.Tuple{&match{s: s, loc: loc, re: p.re, pat: p}}, nil)
			if err != nil {
				return "", 0, err
			}
			rs, ok := res.(py.String)
			if !ok {
				return "", 0, py.ExceptionNewf(py.TypeError, "expected str instance, %s found", res.Type().Name)
			}
			b.WriteString(string(rs))
		}
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String(), len(all), nil
}

func (p *pattern) split(s string, maxsplit int) py.Object {
	all := p.re.FindAllStringSubmatchIndex(s, -1)
	if maxsplit > 0 && len(all) > maxsplit {
		all = all[:maxsplit]
	}
	var items []py.Object
	last := 0
	for _, loc := range all {
		items = append(items, py.String(s[last:loc[0]]))
		for g := 1; g*2 < len(loc); g++ {
			if loc[2*g] < 0 {
				items = append(items, py.None)
			} else {
				items = append(items, py.String(s[loc[2*g]:loc[2*g+1]]))
			}
		}
		last = loc[1]
	}
	items = append(items, py.String(s[last:]))
	return py.NewListFromItems(items)
}

// group resolves a group index or name.
func (m *match) groupIndex(o py.Object) (int, error) {
	switch x := o.(type) {
	case py.Int:
		if int(x) < 0 || int(x) > m.re.NumSubexp() {
			return 0, py.ExceptionNewf(py.IndexError, "no such group")
		}
		return int(x), nil
	case py.String:
		if i := m.re.SubexpIndex(string(x)); i >= 0 {
			return i, nil
		}
	}
	return 0, py.ExceptionNewf(py.IndexError, "no such group")
}

func (m *match) group(i int) py.Object {
	if m.loc[2*i] < 0 {
		return py.None
	}
	return py.String(m.s[m.loc[2*i]:m.loc[2*i+1]])
}

func (m *match) pos(i int, end bool) py.Object {
	off := m.loc[2*i]
	if end {
		off = m.loc[2*i+1]
	}
	if off < 0 {
		return py.Int(-1)
	}
	return py.Int(utf8.RuneCountInString(m.s[:off]))
}

func strOf(args py.Tuple, i int, fn string) (string, error) { return strArg(args, i, fn) }

func init() {
	// Pattern methods
	pm := func(name string, f func(p *pattern, args py.Tuple, kwargs py.StringDict) (py.Object, error)) {
		patternType.Dict[name] = py.MustNewMethod(name, func(self py.Object, args py.Tuple, kwargs py.StringDict) (py.Object, error) {
			return f(self.(*pattern), args, kwargs)
		}, 0, name)
	}
	for _, mode := range []string{"match", "search", "fullmatch"} {
		mode := mode
		pm(mode, func(p *pattern, args py.Tuple, _ py.StringDict) (py.Object, error) {
			s, err := strOf(args, 0, mode)
			if err != nil {
				return nil, err
			}
			return p.matchAt(s, mode), nil
		})
	}
	pm("findall", func(p *pattern, args py.Tuple, _ py.StringDict) (py.Object, error) {
		s, err := strOf(args, 0, "findall")
		if err != nil {
			return nil, err
		}
		return p.findall(s), nil
	})
	pm("finditer", func(p *pattern, args py.Tuple, _ py.StringDict) (py.Object, error) {
		s, err := strOf(args, 0, "finditer")
		if err != nil {
			return nil, err
		}
		return p.finditer(s)
	})
	pm("sub", func(p *pattern, args py.Tuple, kw py.StringDict) (py.Object, error) {
		if len(args) < 2 {
			return nil, py.ExceptionNewf(py.TypeError, "sub() missing arguments")
		}
		s, err := strOf(args, 1, "sub")
		if err != nil {
			return nil, err
		}
		count, err := intArg(args, 2, "sub", 0)
		if err != nil {
			return nil, err
		}
		out, _, err := p.sub(args[0], s, count)
		if err != nil {
			return nil, err
		}
		return py.String(out), nil
	})
	pm("split", func(p *pattern, args py.Tuple, _ py.StringDict) (py.Object, error) {
		s, err := strOf(args, 0, "split")
		if err != nil {
			return nil, err
		}
		n, err := intArg(args, 1, "split", 0)
		if err != nil {
			return nil, err
		}
		return p.split(s, n), nil
	})
	patternType.Dict["pattern"] = &py.Property{Fget: func(self py.Object) (py.Object, error) {
		return py.String(self.(*pattern).src), nil
	}}

	// Match methods
	mm := func(name string, f func(m *match, args py.Tuple) (py.Object, error)) {
		matchType.Dict[name] = py.MustNewMethod(name, func(self py.Object, args py.Tuple) (py.Object, error) {
			return f(self.(*match), args)
		}, 0, name)
	}
	mm("group", func(m *match, args py.Tuple) (py.Object, error) {
		if len(args) == 0 {
			return m.group(0), nil
		}
		if len(args) == 1 {
			i, err := m.groupIndex(args[0])
			if err != nil {
				return nil, err
			}
			return m.group(i), nil
		}
		t := make(py.Tuple, len(args))
		for k, a := range args {
			i, err := m.groupIndex(a)
			if err != nil {
				return nil, err
			}
			t[k] = m.group(i)
		}
		return t, nil
	})
	mm("groups", func(m *match, args py.Tuple) (py.Object, error) {
		n := m.re.NumSubexp()
		t := make(py.Tuple, n)
		for i := 1; i <= n; i++ {
			t[i-1] = m.group(i)
			if t[i-1] == py.None && len(args) > 0 {
				t[i-1] = args[0]
			}
		}
		return t, nil
	})
	mm("groupdict", func(m *match, args py.Tuple) (py.Object, error) {
		d := py.NewStringDict()
		for i, name := range m.re.SubexpNames() {
			if name != "" {
				d[name] = m.group(i)
			}
		}
		return d, nil
	})
	for _, end := range []bool{false, true} {
		end := end
		name := map[bool]string{false: "start", true: "end"}[end]
		mm(name, func(m *match, args py.Tuple) (py.Object, error) {
			i := 0
			if len(args) > 0 {
				var err error
				if i, err = m.groupIndex(args[0]); err != nil {
					return nil, err
				}
			}
			return m.pos(i, end), nil
		})
	}
	mm("span", func(m *match, args py.Tuple) (py.Object, error) {
		i := 0
		if len(args) > 0 {
			var err error
			if i, err = m.groupIndex(args[0]); err != nil {
				return nil, err
			}
		}
		return py.Tuple{m.pos(i, false), m.pos(i, true)}, nil
	})
	// module functions
	modFn := func(name string, f func(args py.Tuple, kwargs py.StringDict) (py.Object, error)) *py.Method {
		return py.MustNewMethod(name, func(self py.Object, args py.Tuple, kwargs py.StringDict) (py.Object, error) {
			return f(args, kwargs)
		}, 0, name)
	}
	withPattern := func(name string, nStr int) *py.Method {
		return modFn(name, func(args py.Tuple, kw py.StringDict) (py.Object, error) {
			if len(args) < 1+nStr {
				return nil, py.ExceptionNewf(py.TypeError, "%s() missing arguments", name)
			}
			flagPos := 1 + nStr
			if name == "sub" || name == "split" {
				flagPos++
			}
			flags, err := flagsArg(args, flagPos, kw)
			if err != nil {
				return nil, err
			}
			p, err := patternOf(args[0], flags)
			if err != nil {
				return nil, err
			}
			m, err := py.GetAttrString(p, name)
			if err != nil {
				return nil, err
			}
			rest := args[1:]
			if len(rest) > flagPos-1 {
				rest = rest[:flagPos-1]
			}
			return py.Call(m, rest, nil)
		})
	}
	methods := []*py.Method{
		modFn("compile", func(args py.Tuple, kw py.StringDict) (py.Object, error) {
			if len(args) < 1 {
				return nil, py.ExceptionNewf(py.TypeError, "compile() missing pattern")
			}
			flags, err := flagsArg(args, 1, kw)
			if err != nil {
				return nil, err
			}
			return patternOf(args[0], flags)
		}),
		withPattern("match", 1),
		withPattern("search", 1),
		withPattern("fullmatch", 1),
		withPattern("findall", 1),
		withPattern("finditer", 1),
		withPattern("sub", 2),
		withPattern("split", 1),
		modFn("escape", func(args py.Tuple, _ py.StringDict) (py.Object, error) {
			s, err := strOf(args, 0, "escape")
			if err != nil {
				return nil, err
			}
			return py.String(regexp.QuoteMeta(s)), nil
		}),
	}
	py.RegisterModule(&py.ModuleImpl{
		Info:    py.ModuleInfo{Name: "re", Doc: "Regular expressions (RE2 syntax)"},
		Methods: methods,
		Globals: py.StringDict{
			"I": py.Int(flagI), "IGNORECASE": py.Int(flagI),
			"M": py.Int(flagM), "MULTILINE": py.Int(flagM),
			"S": py.Int(flagS), "DOTALL": py.Int(flagS),
			"error":   reError,
			"Pattern": patternType,
			"Match":   matchType,
		},
	})
}
