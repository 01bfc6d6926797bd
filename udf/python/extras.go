package python

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-python/gpython/py"
	"github.com/tablerun/tablerun/udf"
)

// The Python that gpython v0.2.0 lacks and UDF authors expect, supplied
// from Go (see AUTHORING.md for the supported subset): str methods, list
// and dict methods, a correct round(), reversed(), str.format/format(),
// and the json and re modules (json.go, re.go).

func method(name string, f func(self py.Object, args py.Tuple) (py.Object, error)) *py.Method {
	return py.MustNewMethod(name, f, 0, name)
}

func strArg(args py.Tuple, i int, fn string) (string, error) {
	if i >= len(args) {
		return "", py.ExceptionNewf(py.TypeError, "%s() missing argument %d", fn, i+1)
	}
	s, ok := args[i].(py.String)
	if !ok {
		return "", py.ExceptionNewf(py.TypeError, "%s() argument %d must be str, not %s", fn, i+1, args[i].Type().Name)
	}
	return string(s), nil
}

func intArg(args py.Tuple, i int, fn string, def int) (int, error) {
	if i >= len(args) || args[i] == py.None {
		return def, nil
	}
	n, ok := args[i].(py.Int)
	if !ok {
		return 0, py.ExceptionNewf(py.TypeError, "%s() argument %d must be int, not %s", fn, i+1, args[i].Type().Name)
	}
	return int(n), nil
}

func strPred(name string, pred func(r rune) bool, needCased bool) {
	py.StringType.Dict[name] = method(name, func(self py.Object, args py.Tuple) (py.Object, error) {
		s := string(self.(py.String))
		if s == "" {
			return py.False, nil
		}
		cased := false
		for _, r := range s {
			if !pred(r) {
				return py.False, nil
			}
			if unicode.IsUpper(r) || unicode.IsLower(r) {
				cased = true
			}
		}
		if needCased && !cased {
			return py.False, nil
		}
		return py.True, nil
	})
}

func strMap(name string, f func(string) string) {
	py.StringType.Dict[name] = method(name, func(self py.Object, args py.Tuple) (py.Object, error) {
		return py.String(f(string(self.(py.String)))), nil
	})
}

func pad(name string, left, right bool) {
	py.StringType.Dict[name] = method(name, func(self py.Object, args py.Tuple) (py.Object, error) {
		s := string(self.(py.String))
		width, err := intArg(args, 0, name, 0)
		if err != nil {
			return nil, err
		}
		fill := " "
		if len(args) > 1 {
			if fill, err = strArg(args, 1, name); err != nil {
				return nil, err
			}
			if utf8.RuneCountInString(fill) != 1 {
				return nil, py.ExceptionNewf(py.TypeError, "The fill character must be exactly one character long")
			}
		}
		if err := allocCheck(float64(width) * float64(len(fill))); err != nil {
			return nil, err
		}
		return py.String(padTo(s, width, fill, left, right)), nil
	})
}

// allocCheck raises MemoryError when a built-in method would allocate n
// bytes over the memory limit of the UDF calls running
// (udf.CheckAllocAny: methods of str, bytes and list are shared by every
// interpreter).
func allocCheck(n float64) error {
	if err := udf.CheckAllocAny(n); err != nil {
		return py.ExceptionNewf(py.MemoryError, "%s", err.Error())
	}
	return nil
}

// padTo pads s to width runes: left pads on the left (right-justify),
// right on the right; both centres like Python.
func padTo(s string, width int, fill string, left, right bool) string {
	n := width - utf8.RuneCountInString(s)
	if n <= 0 {
		return s
	}
	switch {
	case left && right:
		l := n / 2
		if n%2 == 1 && width%2 == 1 {
			l++
		}
		return strings.Repeat(fill, l) + s + strings.Repeat(fill, n-l)
	case left:
		return strings.Repeat(fill, n) + s
	}
	return s + strings.Repeat(fill, n)
}

func titleCase(s string) string {
	var b strings.Builder
	prevCased := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			if prevCased {
				b.WriteRune(unicode.ToLower(r))
			} else {
				b.WriteRune(unicode.ToTitle(r))
			}
			prevCased = true
		default:
			b.WriteRune(r)
			prevCased = false
		}
	}
	return b.String()
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToTitle(r)) + strings.ToLower(s[n:])
}

func swapCase(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, s)
}

// runeIndex converts a byte offset into a rune offset.
func runeIndex(s string, byteOff int) int { return utf8.RuneCountInString(s[:byteOff]) }

func init() {
	strMap("upper", strings.ToUpper)
	strMap("lower", strings.ToLower)
	strMap("casefold", strings.ToLower)
	strMap("title", titleCase)
	strMap("capitalize", capitalize)
	strMap("swapcase", swapCase)
	strPred("isdigit", unicode.IsDigit, false)
	strPred("isdecimal", unicode.IsDigit, false)
	strPred("isnumeric", func(r rune) bool { return unicode.IsNumber(r) }, false)
	strPred("isalpha", unicode.IsLetter, false)
	strPred("isalnum", func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }, false)
	strPred("isspace", unicode.IsSpace, false)
	strPred("isupper", func(r rune) bool { return !unicode.IsLower(r) }, true)
	strPred("islower", func(r rune) bool { return !unicode.IsUpper(r) }, true)
	py.StringType.Dict["istitle"] = method("istitle", func(self py.Object, args py.Tuple) (py.Object, error) {
		s := string(self.(py.String))
		return py.Bool(s != "" && titleCase(s) == s && strings.ToLower(s) != s), nil
	})
	pad("center", true, true)
	pad("ljust", false, true)
	pad("rjust", true, false)
	py.StringType.Dict["zfill"] = method("zfill", func(self py.Object, args py.Tuple) (py.Object, error) {
		s := string(self.(py.String))
		width, err := intArg(args, 0, "zfill", 0)
		if err != nil {
			return nil, err
		}
		if err := allocCheck(float64(width)); err != nil {
			return nil, err
		}
		sign := ""
		if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
			sign, s = s[:1], s[1:]
		}
		return py.String(sign + padTo(s, width-len(sign), "0", true, false)), nil
	})
	py.StringType.Dict["join"] = method("join", func(self py.Object, args py.Tuple) (py.Object, error) {
		if len(args) != 1 {
			return nil, py.ExceptionNewf(py.TypeError, "join() takes exactly one argument (%d given)", len(args))
		}
		var parts []string
		var ierr error
		err := py.Iterate(args[0], func(o py.Object) bool {
			s, ok := o.(py.String)
			if !ok {
				ierr = py.ExceptionNewf(py.TypeError, "sequence item %d: expected str instance, %s found", len(parts), o.Type().Name)
				return true
			}
			parts = append(parts, string(s))
			return false
		})
		if err != nil {
			return nil, err
		}
		if ierr != nil {
			return nil, ierr
		}
		size := float64(len(self.(py.String))) * float64(max(len(parts)-1, 0))
		for _, p := range parts {
			size += float64(len(p))
		}
		if err := allocCheck(size); err != nil {
			return nil, err
		}
		return py.String(strings.Join(parts, string(self.(py.String)))), nil
	})
	py.StringType.Dict["count"] = method("count", func(self py.Object, args py.Tuple) (py.Object, error) {
		sub, err := strArg(args, 0, "count")
		if err != nil {
			return nil, err
		}
		s := string(self.(py.String))
		if sub == "" {
			return py.Int(utf8.RuneCountInString(s) + 1), nil
		}
		return py.Int(strings.Count(s, sub)), nil
	})
	find := func(name string, last, raise bool) {
		py.StringType.Dict[name] = method(name, func(self py.Object, args py.Tuple) (py.Object, error) {
			sub, err := strArg(args, 0, name)
			if err != nil {
				return nil, err
			}
			s := string(self.(py.String))
			i := strings.Index(s, sub)
			if last {
				i = strings.LastIndex(s, sub)
			}
			if i < 0 {
				if raise {
					return nil, py.ExceptionNewf(py.ValueError, "substring not found")
				}
				return py.Int(-1), nil
			}
			return py.Int(runeIndex(s, i)), nil
		})
	}
	find("index", false, true)
	find("rfind", true, false)
	find("rindex", true, true)
	part := func(name string, last bool) {
		py.StringType.Dict[name] = method(name, func(self py.Object, args py.Tuple) (py.Object, error) {
			sep, err := strArg(args, 0, name)
			if err != nil {
				return nil, err
			}
			if sep == "" {
				return nil, py.ExceptionNewf(py.ValueError, "empty separator")
			}
			s := string(self.(py.String))
			i := strings.Index(s, sep)
			if last {
				i = strings.LastIndex(s, sep)
			}
			if i < 0 {
				if last {
					return py.Tuple{py.String(""), py.String(""), py.String(s)}, nil
				}
				return py.Tuple{py.String(s), py.String(""), py.String("")}, nil
			}
			return py.Tuple{py.String(s[:i]), py.String(sep), py.String(s[i+len(sep):])}, nil
		})
	}
	part("partition", false)
	part("rpartition", true)
	py.StringType.Dict["splitlines"] = method("splitlines", func(self py.Object, args py.Tuple) (py.Object, error) {
		s := strings.ReplaceAll(string(self.(py.String)), "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
		lines := strings.Split(s, "\n")
		if len(lines) > 0 && lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		items := make([]py.Object, len(lines))
		for i, l := range lines {
			items[i] = py.String(l)
		}
		return py.NewListFromItems(items), nil
	})
	py.StringType.Dict["encode"] = method("encode", func(self py.Object, args py.Tuple) (py.Object, error) {
		return py.Bytes(string(self.(py.String))), nil
	})
	py.BytesType.Dict["decode"] = method("decode", func(self py.Object, args py.Tuple) (py.Object, error) {
		b := []byte(self.(py.Bytes))
		if !utf8.Valid(b) {
			return nil, py.ExceptionNewf(py.ValueError, "'utf-8' codec can't decode bytes")
		}
		return py.String(b), nil
	})
	py.StringType.Dict["format"] = py.MustNewMethod("format", func(self py.Object, args py.Tuple, kwargs py.StringDict) (py.Object, error) {
		s, err := strFormat(string(self.(py.String)), args, kwargs)
		if err != nil {
			return nil, err
		}
		return py.String(s), nil
	}, 0, "format(*args, **kwargs) -> str")

	// list
	py.ListType.Dict["extend"] = method("extend", func(self py.Object, args py.Tuple) (py.Object, error) {
		// gpython's own extend ignores every argument but a list, and
		// never checks the size: l.extend(l) in a loop doubles the heap.
		l := self.(*py.List)
		if len(args) != 1 {
			return nil, py.ExceptionNewf(py.TypeError, "extend() takes exactly one argument (%d given)", len(args))
		}
		var items []py.Object
		switch x := args[0].(type) {
		case *py.List:
			items = x.Items
		case py.Tuple:
			items = x
		default:
			var err error
			if err = py.Iterate(args[0], func(o py.Object) bool {
				items = append(items, o)
				return false
			}); err != nil {
				return nil, err
			}
		}
		if err := allocCheck(16 * float64(len(l.Items)+len(items))); err != nil {
			return nil, err
		}
		l.Items = append(l.Items, items...)
		return py.None, nil
	})
	py.ListType.Dict["insert"] = method("insert", func(self py.Object, args py.Tuple) (py.Object, error) {
		l := self.(*py.List)
		if len(args) != 2 {
			return nil, py.ExceptionNewf(py.TypeError, "insert expected 2 arguments, got %d", len(args))
		}
		i, err := intArg(args, 0, "insert", 0)
		if err != nil {
			return nil, err
		}
		n := len(l.Items)
		if i < 0 {
			i = max(0, i+n)
		}
		i = min(i, n)
		l.Items = append(l.Items, nil)
		copy(l.Items[i+1:], l.Items[i:])
		l.Items[i] = args[1]
		return py.None, nil
	})
	py.ListType.Dict["pop"] = method("pop", func(self py.Object, args py.Tuple) (py.Object, error) {
		l := self.(*py.List)
		n := len(l.Items)
		i, err := intArg(args, 0, "pop", -1)
		if err != nil {
			return nil, err
		}
		if i < 0 {
			i += n
		}
		if n == 0 || i < 0 || i >= n {
			return nil, py.ExceptionNewf(py.IndexError, "pop index out of range")
		}
		v := l.Items[i]
		l.Items = append(l.Items[:i], l.Items[i+1:]...)
		return v, nil
	})
	listFind := func(l *py.List, x py.Object) (int, error) {
		for i, it := range l.Items {
			eq, err := py.Eq(it, x)
			if err != nil {
				return -1, err
			}
			if eq == py.True {
				return i, nil
			}
		}
		return -1, nil
	}
	py.ListType.Dict["remove"] = method("remove", func(self py.Object, args py.Tuple) (py.Object, error) {
		l := self.(*py.List)
		if len(args) != 1 {
			return nil, py.ExceptionNewf(py.TypeError, "remove() takes exactly one argument")
		}
		i, err := listFind(l, args[0])
		if err != nil {
			return nil, err
		}
		if i < 0 {
			return nil, py.ExceptionNewf(py.ValueError, "list.remove(x): x not in list")
		}
		l.Items = append(l.Items[:i], l.Items[i+1:]...)
		return py.None, nil
	})
	py.ListType.Dict["index"] = method("index", func(self py.Object, args py.Tuple) (py.Object, error) {
		if len(args) < 1 {
			return nil, py.ExceptionNewf(py.TypeError, "index() takes at least 1 argument")
		}
		i, err := listFind(self.(*py.List), args[0])
		if err != nil {
			return nil, err
		}
		if i < 0 {
			return nil, py.ExceptionNewf(py.ValueError, "%s is not in list", reprOf(args[0]))
		}
		return py.Int(i), nil
	})
	py.ListType.Dict["count"] = method("count", func(self py.Object, args py.Tuple) (py.Object, error) {
		if len(args) != 1 {
			return nil, py.ExceptionNewf(py.TypeError, "count() takes exactly one argument")
		}
		n := 0
		for _, it := range self.(*py.List).Items {
			eq, err := py.Eq(it, args[0])
			if err != nil {
				return nil, err
			}
			if eq == py.True {
				n++
			}
		}
		return py.Int(n), nil
	})
	py.ListType.Dict["reverse"] = method("reverse", func(self py.Object, args py.Tuple) (py.Object, error) {
		it := self.(*py.List).Items
		for i, j := 0, len(it)-1; i < j; i, j = i+1, j-1 {
			it[i], it[j] = it[j], it[i]
		}
		return py.None, nil
	})
	py.ListType.Dict["clear"] = method("clear", func(self py.Object, args py.Tuple) (py.Object, error) {
		self.(*py.List).Items = nil
		return py.None, nil
	})
	py.ListType.Dict["copy"] = method("copy", func(self py.Object, args py.Tuple) (py.Object, error) {
		return py.NewListFromItems(append([]py.Object(nil), self.(*py.List).Items...)), nil
	})

	// dict (gpython dicts are keyed by str)
	py.StringDictType.Dict["update"] = py.MustNewMethod("update", func(self py.Object, args py.Tuple, kwargs py.StringDict) (py.Object, error) {
		d := self.(py.StringDict)
		for _, a := range args {
			switch o := a.(type) {
			case py.StringDict:
				for k, v := range o {
					d[k] = v
				}
			default:
				var ierr error
				err := py.Iterate(a, func(item py.Object) bool {
					pair, ok := item.(py.Tuple)
					if !ok {
						if l, isList := item.(*py.List); isList {
							pair = py.Tuple(l.Items)
						}
					}
					if len(pair) != 2 {
						ierr = py.ExceptionNewf(py.ValueError, "dictionary update sequence element has wrong length")
						return true
					}
					k, ok := pair[0].(py.String)
					if !ok {
						ierr = py.ExceptionNewf(py.TypeError, "dict keys must be str in UDFs, not %s", pair[0].Type().Name)
						return true
					}
					d[string(k)] = pair[1]
					return false
				})
				if err != nil {
					return nil, err
				}
				if ierr != nil {
					return nil, ierr
				}
			}
		}
		for k, v := range kwargs {
			d[k] = v
		}
		return py.None, nil
	}, 0, "update(other) -> None")
	py.StringDictType.Dict["pop"] = method("pop", func(self py.Object, args py.Tuple) (py.Object, error) {
		d := self.(py.StringDict)
		k, err := strArg(args, 0, "pop")
		if err != nil {
			return nil, err
		}
		if v, ok := d[k]; ok {
			delete(d, k)
			return v, nil
		}
		if len(args) > 1 {
			return args[1], nil
		}
		return nil, py.ExceptionNewf(py.KeyError, "%s", reprOf(args[0]))
	})
	py.StringDictType.Dict["setdefault"] = method("setdefault", func(self py.Object, args py.Tuple) (py.Object, error) {
		d := self.(py.StringDict)
		k, err := strArg(args, 0, "setdefault")
		if err != nil {
			return nil, err
		}
		if v, ok := d[k]; ok {
			return v, nil
		}
		var v py.Object = py.None
		if len(args) > 1 {
			v = args[1]
		}
		d[k] = v
		return v, nil
	})
	py.StringDictType.Dict["copy"] = method("copy", func(self py.Object, args py.Tuple) (py.Object, error) {
		return self.(py.StringDict).Copy(), nil
	})
	py.StringDictType.Dict["clear"] = method("clear", func(self py.Object, args py.Tuple) (py.Object, error) {
		d := self.(py.StringDict)
		for k := range d {
			delete(d, k)
		}
		return py.None, nil
	})
}

func reprOf(o py.Object) string {
	s, err := py.ReprAsString(o)
	if err != nil {
		return o.Type().Name
	}
	return s
}

// installExtras adds the builtins that replace or complement gpython's:
// round (half to even, like Python 3), reversed, format.
func installExtras(b *py.Module) {
	b.Globals["round"] = py.MustNewMethod("round", builtinRound, 0, "round(number[, ndigits]) -> number")
	b.Globals["reversed"] = method("reversed", func(self py.Object, args py.Tuple) (py.Object, error) {
		if len(args) != 1 {
			return nil, py.ExceptionNewf(py.TypeError, "reversed expected 1 argument, got %d", len(args))
		}
		var items []py.Object
		if err := py.Iterate(args[0], func(o py.Object) bool { items = append(items, o); return false }); err != nil {
			return nil, err
		}
		for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
			items[i], items[j] = items[j], items[i]
		}
		return py.Iter(py.NewListFromItems(items))
	})
	b.Globals["format"] = method("format", func(self py.Object, args py.Tuple) (py.Object, error) {
		if len(args) < 1 || len(args) > 2 {
			return nil, py.ExceptionNewf(py.TypeError, "format expected 1 or 2 arguments, got %d", len(args))
		}
		spec := ""
		if len(args) == 2 {
			var err error
			if spec, err = strArg(args, 1, "format"); err != nil {
				return nil, err
			}
		}
		s, err := formatValue(args[0], spec)
		if err != nil {
			return nil, err
		}
		return py.String(s), nil
	})
}

func builtinRound(self py.Object, args py.Tuple) (py.Object, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, py.ExceptionNewf(py.TypeError, "round expected 1 or 2 arguments, got %d", len(args))
	}
	nd := py.Object(py.None)
	if len(args) == 2 {
		nd = args[1]
	}
	switch x := args[0].(type) {
	case py.Int, *py.BigInt, py.Bool:
		if nd == py.None {
			return x, nil
		}
		n, ok := nd.(py.Int)
		if !ok {
			return nil, py.ExceptionNewf(py.TypeError, "'%s' object cannot be interpreted as an integer", nd.Type().Name)
		}
		if n >= 0 {
			return x, nil
		}
		i, ok := x.(py.Int)
		if !ok {
			return x, nil
		}
		p := int64(math.Pow10(int(-n)))
		q := roundHalfEven(float64(i) / float64(p))
		return py.Int(int64(q) * p), nil
	case py.Float:
		f := float64(x)
		if nd == py.None {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, py.ExceptionNewf(py.ValueError, "cannot convert float %v to integer", f)
			}
			return py.Int(int64(math.RoundToEven(f))), nil
		}
		n, ok := nd.(py.Int)
		if !ok {
			return nil, py.ExceptionNewf(py.TypeError, "'%s' object cannot be interpreted as an integer", nd.Type().Name)
		}
		// Round the shortest decimal representation, as CPython does
		// (round(2.675, 2) == 2.67 because 2.675 is 2.67499999…).
		if n > 0 && n < 300 {
			s := strconv.FormatFloat(f, 'f', int(n), 64)
			r, _ := strconv.ParseFloat(s, 64)
			return py.Float(r), nil
		}
		p := math.Pow10(int(-n))
		return py.Float(roundHalfEven(f/p) * p), nil
	}
	return nil, py.ExceptionNewf(py.TypeError, "type %s doesn't define __round__ method", args[0].Type().Name)
}

func roundHalfEven(f float64) float64 { return math.RoundToEven(f) }

// ---- str.format and format() ----

// strFormat implements str.format: {} {0} {name} {name.attr}? no — fields
// are positional indexes or keyword names, with an optional !r/!s
// conversion and a format spec.
func strFormat(tmpl string, args py.Tuple, kwargs py.StringDict) (string, error) {
	var b strings.Builder
	auto := 0
	for i := 0; i < len(tmpl); i++ {
		c := tmpl[i]
		if c == '}' {
			if i+1 < len(tmpl) && tmpl[i+1] == '}' {
				b.WriteByte('}')
				i++
				continue
			}
			return "", py.ExceptionNewf(py.ValueError, "Single '}' encountered in format string")
		}
		if c != '{' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(tmpl) && tmpl[i+1] == '{' {
			b.WriteByte('{')
			i++
			continue
		}
		end := strings.IndexByte(tmpl[i:], '}')
		if end < 0 {
			return "", py.ExceptionNewf(py.ValueError, "Single '{' encountered in format string")
		}
		field := tmpl[i+1 : i+end]
		i += end
		spec := ""
		if k := strings.IndexByte(field, ':'); k >= 0 {
			field, spec = field[:k], field[k+1:]
		}
		conv := ""
		if k := strings.IndexByte(field, '!'); k >= 0 {
			field, conv = field[:k], field[k+1:]
		}
		var v py.Object
		switch {
		case field == "":
			if auto >= len(args) {
				return "", py.ExceptionNewf(py.IndexError, "Replacement index %d out of range for positional args tuple", auto)
			}
			v = args[auto]
			auto++
		case field[0] >= '0' && field[0] <= '9':
			n, err := strconv.Atoi(field)
			if err != nil || n >= len(args) {
				return "", py.ExceptionNewf(py.IndexError, "Replacement index %s out of range for positional args tuple", field)
			}
			v = args[n]
		default:
			o, ok := kwargs[field]
			if !ok {
				return "", py.ExceptionNewf(py.KeyError, "'%s'", field)
			}
			v = o
		}
		switch conv {
		case "":
		case "r":
			v = py.String(reprOf(v))
		case "s":
			s, err := py.StrAsString(v)
			if err != nil {
				return "", err
			}
			v = py.String(s)
		default:
			return "", py.ExceptionNewf(py.ValueError, "Unknown conversion specifier %s", conv)
		}
		s, err := formatValue(v, spec)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// formatValue implements the format-spec mini-language:
// [[fill]align][sign][#][0][width][,|_][.precision][type] with types
// s d n b o x X c e E f F g G %.
func formatValue(v py.Object, spec string) (string, error) {
	fill, align, sign, alt, zero := " ", byte(0), byte('-'), false, false
	width, prec, group, typ := -1, -1, byte(0), byte(0)
	s := spec
	if len(s) >= 2 && strings.IndexByte("<>^=", s[1]) >= 0 {
		fill, align, s = s[:1], s[1], s[2:]
	} else if r, n := utf8.DecodeRuneInString(s); n > 0 && n < len(s) && strings.IndexByte("<>^=", s[n]) >= 0 {
		fill, align, s = string(r), s[n], s[n+1:]
	} else if len(s) >= 1 && strings.IndexByte("<>^=", s[0]) >= 0 {
		align, s = s[0], s[1:]
	}
	if len(s) > 0 && strings.IndexByte("+- ", s[0]) >= 0 {
		sign, s = s[0], s[1:]
	}
	if len(s) > 0 && s[0] == '#' {
		alt, s = true, s[1:]
	}
	if len(s) > 0 && s[0] == '0' {
		zero, s = true, s[1:]
	}
	j := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j > 0 {
		width, _ = strconv.Atoi(s[:j])
		s = s[j:]
	}
	if len(s) > 0 && (s[0] == ',' || s[0] == '_') {
		group, s = s[0], s[1:]
	}
	if len(s) > 0 && s[0] == '.' {
		j = 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		prec, _ = strconv.Atoi(s[1:j])
		s = s[j:]
	}
	if len(s) == 1 {
		typ, s = s[0], ""
	}
	if err := allocCheck(float64(max(width, prec)) * float64(len(fill))); err != nil {
		return "", err
	}
	if s != "" {
		return "", py.ExceptionNewf(py.ValueError, "Invalid format specifier '%s'", spec)
	}
	if zero && align == 0 {
		fill, align = "0", '='
	}
	var body, signStr string
	numeric := false
	switch x := v.(type) {
	case py.Bool:
		if typ == 0 || typ == 's' {
			body = map[bool]string{true: "True", false: "False"}[bool(x)]
			break
		}
		return formatValue(py.Int(map[bool]int{true: 1, false: 0}[bool(x)]), spec)
	case py.Int:
		numeric = true
		i := int64(x)
		if i < 0 {
			signStr, i = "-", -i
		}
		switch typ {
		case 0, 'd', 'n':
			body = strconv.FormatInt(i, 10)
		case 'b':
			body = strconv.FormatInt(i, 2)
			if alt {
				body = "0b" + body
			}
		case 'o':
			body = strconv.FormatInt(i, 8)
			if alt {
				body = "0o" + body
			}
		case 'x':
			body = strconv.FormatInt(i, 16)
			if alt {
				body = "0x" + body
			}
		case 'X':
			body = strings.ToUpper(strconv.FormatInt(i, 16))
			if alt {
				body = "0X" + body
			}
		case 'c':
			body, numeric = string(rune(i)), false
		case 'e', 'E', 'f', 'F', 'g', 'G', '%':
			return formatValue(py.Float(float64(x)), spec)
		default:
			return "", py.ExceptionNewf(py.ValueError, "Unknown format code '%c' for object of type 'int'", typ)
		}
		if group != 0 && (typ == 0 || typ == 'd') {
			body = groupDigits(body, group)
		}
	case py.Float:
		numeric = true
		f := float64(x)
		if math.Signbit(f) && !math.IsNaN(f) {
			signStr, f = "-", -f
		}
		p := prec
		switch typ {
		case 'f', 'F':
			if p < 0 {
				p = 6
			}
			body = strconv.FormatFloat(f, 'f', p, 64)
		case 'e', 'E':
			if p < 0 {
				p = 6
			}
			body = strconv.FormatFloat(f, 'e', p, 64)
		case 'g', 'G':
			if p < 0 {
				p = 6
			}
			if p == 0 {
				p = 1
			}
			body = strconv.FormatFloat(f, 'g', p, 64)
		case '%':
			if p < 0 {
				p = 6
			}
			body = strconv.FormatFloat(f*100, 'f', p, 64) + "%"
		case 0:
			if p >= 0 {
				body = strconv.FormatFloat(f, 'g', max(p, 1), 64)
			} else {
				rs, err := py.ReprAsString(py.Float(f))
				if err != nil {
					return "", err
				}
				body = rs
			}
		default:
			return "", py.ExceptionNewf(py.ValueError, "Unknown format code '%c' for object of type 'float'", typ)
		}
		if typ == 'E' || typ == 'G' || typ == 'F' {
			body = strings.ToUpper(body)
		}
		if group != 0 {
			intPart, frac := body, ""
			if k := strings.IndexAny(body, ".e%"); k >= 0 {
				intPart, frac = body[:k], body[k:]
			}
			body = groupDigits(intPart, group) + frac
		}
	default:
		if typ != 0 && typ != 's' {
			return "", py.ExceptionNewf(py.ValueError, "Unknown format code '%c' for object of type '%s'", typ, v.Type().Name)
		}
		str, err := py.StrAsString(v)
		if err != nil {
			return "", err
		}
		if prec >= 0 && utf8.RuneCountInString(str) > prec {
			str = string([]rune(str)[:prec])
		}
		body = str
	}
	if numeric {
		switch {
		case signStr == "" && sign == '+':
			signStr = "+"
		case signStr == "" && sign == ' ':
			signStr = " "
		}
	}
	if align == 0 {
		align = '<'
		if numeric {
			align = '>'
		}
	}
	n := utf8.RuneCountInString(signStr + body)
	if width <= n {
		return signStr + body, nil
	}
	padN := width - n
	switch align {
	case '<':
		return signStr + body + strings.Repeat(fill, padN), nil
	case '>':
		return strings.Repeat(fill, padN) + signStr + body, nil
	case '^':
		l := padN / 2
		return strings.Repeat(fill, l) + signStr + body + strings.Repeat(fill, padN-l), nil
	}
	// '=': padding after the sign
	return signStr + strings.Repeat(fill, padN) + body, nil
}

func groupDigits(digits string, sep byte) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	first := len(digits) % 3
	if first > 0 {
		b.WriteString(digits[:first])
	}
	for i := first; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(sep)
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}
