package expr

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// Kernels for the string functions of Nexmark q21/q22: REGEXP_EXTRACT
// with a constant pattern and group, SPLIT_INDEX with a constant separator
// and index. They give the results of the functions' Definition.Eval
// (core/function/builtins_string.go). Any case they do not cover (non-
// constant arguments, NULL or invalid constants, non-VARCHAR input) falls
// back to the generic adapter, which also keeps error behaviour identical.

// intLit returns the value of a non-NULL integer literal.
func intLit(nd node) (int64, bool) {
	l, ok := nd.(*litNode)
	if !ok || l.v == nil {
		return 0, false
	}
	switch v := l.v.(type) {
	case int8:
		return int64(v), true
	case int16:
		return int64(v), true
	case int32:
		return int64(v), true
	case int64:
		return v, true
	}
	return 0, false
}

// strLit returns the value of a non-NULL string literal.
func strLit(nd node) (string, bool) {
	l, ok := nd.(*litNode)
	if !ok || l.v == nil {
		return "", false
	}
	s, ok := l.v.(string)
	return s, ok
}

// constArgSpecial returns a kernel for REGEXP_EXTRACT or SPLIT_INDEX, or nil.
func (c *compiler) constArgSpecial(x *logical.Call, args []node) node {
	if x.Name == "*" && len(args) == 2 {
		return c.newDecMul(x, args)
	}
	if n := c.regexSpecial(x, args); n != nil { // regex_kernels.go
		return n
	}
	if n := c.newTSInterval(x, args); n != nil { // ts_interval.go
		return n
	}
	if n := c.newDateFormat(x, args); n != nil { // date_format.go
		return n
	}
	if len(args) == 0 || args[0].typ().Kind != types.VarChar || x.T.Kind != types.VarChar {
		return nil
	}
	switch x.Name {
	case "REGEXP_EXTRACT":
		p, ok := strLit(args[1])
		if !ok {
			return nil
		}
		g := int64(0)
		if len(args) > 2 {
			if g, ok = intLit(args[2]); !ok {
				return nil
			}
		}
		re, err := regexp.Compile(p) // as compileRegex; invalid patterns stay generic
		if err != nil {
			return nil
		}
		return &regexExtractNode{arg: args[0], re: re, fast: newFastRegex(p), group: g, t: x.T, need: requiredLiteral(p)}
	case "SPLIT_INDEX":
		sep, ok := strLit(args[1])
		if !ok || sep == "" {
			return nil
		}
		i, ok := intLit(args[2])
		if !ok || i < 0 {
			return nil
		}
		return &splitIndexNode{arg: args[0], sep: sep, idx: i, t: x.T}
	}
	return nil
}

// strKernel runs f over a VARCHAR column; f returns the part of v to
// output, or ok false for NULL.
func strKernel(arg node, rec arrow.RecordBatch, mem memory.Allocator, f func(v string) (string, bool)) (arrow.Array, error) {
	rows := int(rec.NumRows())
	a, err := arg.eval(rec, scratch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	s, ok := a.(*array.String)
	if !ok {
		return nil, fmt.Errorf("internal: string kernel on %s", a.DataType())
	}
	validity := memory.NewResizableBuffer(mem)
	validity.Resize(int(bitutil.BytesForBits(int64(rows))))
	vb := validity.Bytes()
	for j := range vb {
		vb[j] = 0
	}
	nulls := 0
	b := newStrBuilder(rows, len(s.ValueBytes())/2)
	for i := 0; i < rows; i++ {
		if s.IsValid(i) {
			if out, ok := f(s.Value(i)); ok {
				b.data = append(b.data, out...)
				bitutil.SetBit(vb, i)
				b.next()
				continue
			}
		}
		nulls++
		b.next()
	}
	if nulls == 0 {
		validity.Release()
		validity = nil
	}
	return b.finish(mem, rows, validity, nulls), nil
}

// ---- REGEXP_EXTRACT(s, constant pattern [, constant group]) ----

type regexExtractNode struct {
	arg   node
	re    *regexp.Regexp
	fast  *fastRegex // nil when the pattern needs regexp.Regexp
	group int64
	t     types.Type
	need  string // a literal every match contains ("" if none known)
}

// requiredLiteral returns a case-sensitive literal that every match of
// pattern p contains (the longest literal element of a top-level
// concatenation), or "". Strings without it cannot match.
func requiredLiteral(p string) string {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return ""
	}
	lit := func(r *syntax.Regexp) string {
		if r.Op == syntax.OpCapture && len(r.Sub) == 1 {
			r = r.Sub[0]
		}
		if r.Op == syntax.OpLiteral && r.Flags&syntax.FoldCase == 0 {
			return string(r.Rune)
		}
		return ""
	}
	if re.Op != syntax.OpConcat {
		return lit(re)
	}
	best := ""
	for _, sub := range re.Sub {
		if l := lit(sub); len(l) > len(best) {
			best = l
		}
	}
	return best
}

func (n *regexExtractNode) typ() types.Type { return n.t }
func (n *regexExtractNode) canFail() bool   { return n.arg.canFail() }

func (n *regexExtractNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	g := n.group
	if g < 0 || g > int64(n.re.NumSubexp()) {
		g = -1 // every match yields NULL
	}
	if n.fast != nil {
		caps := make([]int, 2*n.fast.ncap)
		return strKernel(n.arg, rec, mem, func(v string) (string, bool) {
			if g < 0 || !n.fast.find(v, caps) || caps[2*g] < 0 {
				return "", false // no match, or the group did not participate
			}
			return v[caps[2*g]:caps[2*g+1]], true
		})
	}
	seen := make(map[string][2]int32, 64)
	return strKernel(n.arg, rec, mem, func(v string) (string, bool) {
		if g < 0 {
			return "", false
		}
		if n.need != "" && !strings.Contains(v, n.need) {
			return "", false
		}
		// Values repeat within a batch (URLs, channels): remember the
		// group's bounds per distinct value for this batch.
		if r, ok := seen[v]; ok {
			if r[0] == -2 {
				return "", false
			}
			if r[0] < 0 {
				return "", false
			}
			return v[r[0]:r[1]], true
		}
		m := n.re.FindStringSubmatchIndex(v)
		if m == nil {
			seen[v] = [2]int32{-2, -2}
			return "", false
		}
		lo, hi := m[2*g], m[2*g+1]
		seen[v] = [2]int32{int32(lo), int32(hi)}
		if lo < 0 { // group did not participate: NULL, as Java's Matcher.group
			return "", false
		}
		return v[lo:hi], true
	})
}

// ---- SPLIT_INDEX(s, constant separator, constant index) ----

type splitIndexNode struct {
	arg node
	sep string
	idx int64
	t   types.Type
}

func (n *splitIndexNode) typ() types.Type { return n.t }
func (n *splitIndexNode) canFail() bool   { return n.arg.canFail() }

func (n *splitIndexNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	return strKernel(n.arg, rec, mem, func(v string) (string, bool) {
		return splitPart(v, n.sep, n.idx)
	})
}

// splitPart returns strings.Split(s, sep)[i] without allocating; sep is
// not empty and i >= 0.
func splitPart(s, sep string, i int64) (string, bool) {
	for ; i > 0; i-- {
		k := strings.Index(s, sep)
		if k < 0 {
			return "", false
		}
		s = s[k+len(sep):]
	}
	if k := strings.Index(s, sep); k >= 0 {
		return s[:k], true
	}
	return s, true
}

var (
	_ node = (*regexExtractNode)(nil)
	_ node = (*splitIndexNode)(nil)
	_ node = (*decMulNode)(nil)
)
