package js

import (
	"reflect"
	"sort"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/token"

	"github.com/tablerun/tablerun/udf"
)

// Memory guards (see udf.Watch and udf/python/guard.go).
//
// goja builds the results of String.prototype.repeat, padStart/padEnd,
// Array.prototype.fill and join, Array.from and BigInt powers in Go
// loops that neither an interrupt nor the heap sampling can stop, so a
// call asking for gigabytes would kill the process. Each interpreter
// wraps those built-ins with a size check against its memory limit
// (RangeError, as V8 throws for its own limits), and a UDF's `a ** b`
// is rewritten at compile time to `__tablerun_pow(a, b)`, which checks a
// BigInt power's size first. Memory that grows step by step (string
// doubling, push loops) is caught by the heap sampling, which interrupts
// the runtime.

// guardPrelude wraps the allocating built-ins; it runs in each new
// runtime with the limit in bytes and the message builder as arguments.
const guardPrelude = `(function (limit, tooBig, maxBits, intTooBig) {
  'use strict';
  function check(bytes) { if (bytes > limit) throw new RangeError(tooBig(bytes)); }
  function checkBits(bits) {
    if (bits / 8 > limit) throw new RangeError(tooBig(bits / 8));
    if (bits > maxBits) throw new RangeError(intTooBig(bits));
  }
  function wrap(proto, name, size) {
    var orig = proto[name];
    Object.defineProperty(proto, name, {
      value: {[name]: function () { check(size(this, arguments)); return orig.apply(this, arguments); }}[name],
      writable: true, configurable: true, enumerable: false });
  }
  function len(self) { return self == null ? 0 : String(self).length; }
  function num(v) { v = Number(v); return v > 0 && v !== Infinity ? v : 0; }
  function count(s, pat) { // occurrences of a string in s (a loop the interrupt stops)
    if (pat.length === 0) return s.length + 1;
    var n = 0;
    for (var i = s.indexOf(pat); i >= 0; i = s.indexOf(pat, i + pat.length)) n++;
    return n;
  }
  function matches(s, re) {
    var r = new RegExp(re.source, re.flags.indexOf('g') >= 0 ? re.flags : re.flags + 'g'), n = 0, m;
    while ((m = r.exec(s)) !== null) { n++; if (m[0].length === 0) r.lastIndex++; }
    return n;
  }
  wrap(String.prototype, 'repeat', function (s, a) { return len(s) * num(a[0]); });
  wrap(String.prototype, 'padStart', function (s, a) { return num(a[0]); });
  wrap(String.prototype, 'padEnd', function (s, a) { return num(a[0]); });
  wrap(String.prototype, 'concat', function (s, a) {
    var n = len(s);
    for (var i = 0; i < a.length; i++) n += len(a[i]);
    return n;
  });
  function replaceSize(all) {
    return function (s, a) {
      var str = len(s) === 0 ? '' : String(s), repl = a[1];
      if (typeof repl !== 'string' || repl.length <= 1 || (str.length + 1) * repl.length <= (1 << 20)) return 0;
      var n;
      if (a[0] instanceof RegExp) n = (all || a[0].global) ? matches(str, a[0]) : 1;
      else n = all ? count(str, String(a[0])) : 1;
      return str.length + n * repl.length;
    };
  }
  wrap(String.prototype, 'replace', replaceSize(false));
  wrap(String.prototype, 'replaceAll', replaceSize(true));
  wrap(String.prototype, 'split', function (s, a) {
    var str = len(s) === 0 ? '' : String(s);
    if (typeof a[0] !== 'string' || 48 * (str.length + 1) <= (1 << 20)) return 0;
    var n = a[1] === undefined ? count(str, a[0]) + 1 : Math.min(num(a[1]), count(str, a[0]) + 1);
    return 48 * n; // a string value per part
  });
  wrap(Array.prototype, 'fill', function (s, a) { return 16 * num(s == null ? 0 : s.length); });
  wrap(Array.prototype, 'join', function (s, a) {
    var n = num(s == null ? 0 : s.length);
    return n * Math.max(a[0] === undefined ? 1 : String(a[0]).length, 1);
  });
  wrap(Array.prototype, 'concat', function (s, a) {
    var n = num(s == null ? 0 : s.length);
    for (var i = 0; i < a.length; i++) n += Array.isArray(a[i]) ? num(a[i].length) : 1;
    return 16 * n;
  });
  var from = Array.from;
  Object.defineProperty(Array, 'from', {
    value: function from_(items) {
      if (items != null && typeof items === 'object' && !(Symbol.iterator in items)) check(16 * num(items.length));
      else if (typeof items === 'string') check(48 * items.length); // a string value per character
      return from.apply(this, arguments);
    }, writable: true, configurable: true, enumerable: false });
  var stringify = JSON.stringify;
  Object.defineProperty(JSON, 'stringify', {
    value: function stringify_(v) {
      if (Array.isArray(v)) check(5 * num(v.length)); // "null," per hole
      return stringify.apply(this, arguments);
    }, writable: true, configurable: true, enumerable: false });
  // ArrayBuffer and the typed arrays allocate their bytes at once.
  function sized(name, bytesPer) {
    var C = globalThis[name];
    var W = function () {
      if (new.target === undefined) return C.apply(this, arguments); // throws as the original
      var a = arguments[0];
      if (typeof a === 'number') check(num(a) * bytesPer);
      else if (a != null && typeof a === 'object' && !(a instanceof ArrayBuffer) && !(Symbol.iterator in a)) check(num(a.length) * bytesPer);
      return Reflect.construct(C, arguments, new.target === W ? C : new.target);
    };
    Object.defineProperty(W, 'name', {value: name});
    Object.setPrototypeOf(W, Object.getPrototypeOf(C));
    W.prototype = C.prototype;
    for (var k of Object.getOwnPropertyNames(C)) {
      if (k !== 'prototype' && k !== 'name' && k !== 'length') Object.defineProperty(W, k, Object.getOwnPropertyDescriptor(C, k));
    }
    Object.defineProperty(C.prototype, 'constructor', {value: W, writable: true, configurable: true, enumerable: false});
    Object.defineProperty(globalThis, name, {value: W, writable: true, configurable: true, enumerable: false});
  }
  sized('ArrayBuffer', 1);
  [['Int8Array', 1], ['Uint8Array', 1], ['Uint8ClampedArray', 1], ['Int16Array', 2], ['Uint16Array', 2],
   ['Int32Array', 4], ['Uint32Array', 4], ['Float32Array', 4], ['Float64Array', 8],
   ['BigInt64Array', 8], ['BigUint64Array', 8]].forEach(function (t) { if (globalThis[t[0]]) sized(t[0], t[1]); });
  // BigInt(string) parses in math/big (quadratic in the digits).
  var B = BigInt;
  var BW = function BigInt(v) {
    if (new.target !== undefined) throw new TypeError('BigInt is not a constructor');
    if (typeof v === 'string' && v.length * 3.33 > maxBits) checkBits(v.length * 3.33);
    return B(v);
  };
  BW.prototype = B.prototype;
  BW.asIntN = B.asIntN;
  BW.asUintN = B.asUintN;
  Object.defineProperty(B.prototype, 'constructor', {value: BW, writable: true, configurable: true, enumerable: false});
  Object.defineProperty(globalThis, 'BigInt', {value: BW, writable: true, configurable: true, enumerable: false});
  function bitLen(a) { if (a < 0n) a = -a; return a === 0n ? 0 : a.toString(16).length * 4; } // an upper bound
  Object.defineProperty(globalThis, '__tablerun_pow', {
    value: function (a, b) {
      if (typeof a === 'bigint' && typeof b === 'bigint' && b > 1n && (a > 1n || a < -1n)) {
        checkBits((bitLen(a) - 3) * Number(b)); // a >= 2**(bitLen-3)
      }
      return a ** b;
    }, writable: false, configurable: false, enumerable: false });
  Object.defineProperty(globalThis, '__tablerun_mul', {
    value: function (a, b) {
      if (typeof a === 'bigint' && typeof b === 'bigint') {
        var n = bitLen(a) + bitLen(b);
        if (n > 4096) checkBits(n - 8);
      }
      return a * b;
    }, writable: false, configurable: false, enumerable: false });
  // [...x] and f(...x) copy every element of x in one Go loop.
  Object.defineProperty(globalThis, '__tablerun_spread', {
    value: function (x) {
      if (typeof x === 'string') check(32 * x.length);
      else if (x != null && typeof x.length === 'number') check(16 * num(x.length));
      return x;
    }, writable: false, configurable: false, enumerable: false });
  Object.defineProperty(globalThis, '__tablerun_shl', {
    value: function (a, b) {
      if (typeof a === 'bigint' && typeof b === 'bigint' && a !== 0n && b > 0n) checkBits(bitLen(a) - 4 + Number(b));
      return a << b;
    }, writable: false, configurable: false, enumerable: false });
})`

// maxBigIntBits bounds the BigInts one guarded operation may make (see
// udf/python's maxIntBits: math/big cannot be interrupted).
const maxBigIntBits = 1 << 20

// installGuards runs the prelude in rt with the interpreter's limit.
func installGuards(rt *goja.Runtime, limit int64) error {
	v, err := rt.RunString(guardPrelude)
	if err != nil {
		return err
	}
	fn, _ := goja.AssertFunction(v)
	lim := float64(limit)
	if limit <= 0 {
		lim = 1e300 // no limit: the wrappers pass everything
	}
	tooBig := func(bytes float64) string {
		return (&udf.MemoryError{Limit: limit, Need: bytes}).Error()
	}
	intTooBig := func(bits float64) string { return udf.IntTooLarge(bits, maxBigIntBits) }
	_, err = fn(goja.Undefined(), rt.ToValue(lim), rt.ToValue(tooBig), rt.ToValue(maxBigIntBits), rt.ToValue(intTooBig))
	return err
}

// noGuards is set by the benchmark that measures the guards' cost.
var noGuards bool

// guardedOps are the binary operators rewritten to guard calls: BigInt
// arithmetic runs in math/big, which no interrupt stops, so the guard
// refuses a BigInt result over the memory limit or over maxBigIntBits
// before computing it (numbers pass straight through).
var guardedOps = map[token.Token]struct {
	text, fn string
}{
	token.EXPONENT:   {"**", "__tablerun_pow"},
	token.MULTIPLY:   {"*", "__tablerun_mul"},
	token.SHIFT_LEFT: {"<<", "__tablerun_shl"},
}

// compound maps the compound assignments to their binary operators.
var compound = map[token.Token]token.Token{
	token.EXPONENT_ASSIGN:   token.EXPONENT,
	token.MULTIPLY_ASSIGN:   token.MULTIPLY,
	token.SHIFT_LEFT_ASSIGN: token.SHIFT_LEFT,
}

// rewritePow returns src with every `a ** b`, `a * b` and `a << b`
// written as a guard call (`__tablerun_pow(a, b)`, …), lines unchanged.
// `x **= y` on a plain variable becomes `x = __tablerun_pow(x, y)`; other
// compound targets are left as they are (evaluating them twice could
// repeat side effects). If src does not parse it is returned unchanged
// (the compiler reports the error).
func rewritePow(src string) string {
	if noGuards {
		return src
	}
	prog, err := parser.ParseFile(nil, "", src, 0)
	if err != nil {
		return src
	}
	type edit struct {
		at, del int
		text    string
	}
	var edits []edit
	ok := true
	walk(reflect.ValueOf(prog), map[uintptr]bool{}, func(n ast.Node) {
		switch x := n.(type) {
		case *ast.SpreadElement:
			// ...x → ...__tablerun_spread(x); an operator expression is
			// left alone (its own rewrite edits the same offsets)
			switch x.Expression.(type) {
			case *ast.BinaryExpression, *ast.AssignExpression, *ast.ConditionalExpression, *ast.SequenceExpression:
				return
			}
			start, end := offset(x.Expression.Idx0()), offset(x.Expression.Idx1())
			if start < 0 || end > len(src) || start >= end {
				ok = false
				return
			}
			edits = append(edits, edit{start, 0, "__tablerun_spread("}, edit{end, 0, ")"})
		case *ast.BinaryExpression:
			g, guarded := guardedOps[x.Operator]
			if !guarded {
				return
			}
			start, op, end, good := operands(src, x.Left, x.Right, g.text)
			if !good {
				ok = false
				return
			}
			edits = append(edits, edit{start, 0, g.fn + "("}, edit{op, len(g.text), ","}, edit{end, 0, ")"})
		case *ast.AssignExpression:
			bin, isCompound := compound[x.Operator]
			if !isCompound {
				if _, plain := guardedOps[x.Operator]; !plain {
					return
				}
				bin = x.Operator
			}
			g := guardedOps[bin]
			id, isID := x.Left.(*ast.Identifier)
			if !isID {
				return
			}
			_, op, end, good := operands(src, x.Left, x.Right, g.text)
			n := len(g.text) + 1
			if !good || op+n > len(src) || src[op:op+n] != g.text+"=" {
				ok = false
				return
			}
			edits = append(edits, edit{op, n, "= " + g.fn + "(" + id.Name.String() + ","}, edit{end, 0, ")"})
		}
	})
	if !ok || len(edits) == 0 {
		return src
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].at > edits[j].at })
	out := src
	for _, e := range edits {
		out = out[:e.at] + e.text + out[e.at+e.del:]
	}
	return out
}

// operands finds, in src, where the left operand of a binary operator
// opText begins (with its opening parentheses), where the operator is and
// where the right operand ends (with its closing parentheses), as 0-based
// byte offsets. goja's AST drops parentheses, so they are counted between
// the operands.
func operands(src string, left, right ast.Node, opText string) (start, op, end int, ok bool) {
	l0, l1 := offset(left.Idx0()), offset(left.Idx1())
	r0, r1 := offset(right.Idx0()), offset(right.Idx1())
	if l0 < 0 || l1 > r0 || r1 > len(src) {
		return 0, 0, 0, false
	}
	closeL, openR, op := 0, 0, -1
	for i := l1; i < r0; i++ {
		switch c := src[i]; {
		case c == ')' && op < 0:
			closeL++
		case c == '(' && op >= 0:
			openR++
		case op < 0 && strings.HasPrefix(src[i:r0], opText) &&
			(opText != "*" || !strings.HasPrefix(src[i:r0], "**")):
			op = i
			i += len(opText) - 1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			if op >= 0 && c == '=' && i == op+len(opText) {
				continue // compound assignment
			}
			return 0, 0, 0, false // a comment or something unexpected
		}
	}
	if op < 0 {
		return 0, 0, 0, false
	}
	start = l0
	for i := start - 1; i >= 0 && closeL > 0; i-- {
		switch src[i] {
		case '(':
			closeL--
			start = i
		case ' ', '\t', '\n', '\r':
		default:
			return 0, 0, 0, false
		}
	}
	end = r1
	for i := end; i < len(src) && openR > 0; i++ {
		switch src[i] {
		case ')':
			openR--
			end = i + 1
		case ' ', '\t', '\n', '\r':
		default:
			return 0, 0, 0, false
		}
	}
	if closeL > 0 || openR > 0 {
		return 0, 0, 0, false
	}
	return start, op, end, true
}

// offset converts goja's 1-based file index to a 0-based byte offset.
func offset(i file.Idx) int { return int(i) - 1 }

var nodeType = reflect.TypeOf((*ast.Node)(nil)).Elem()

// walk calls fn for every AST node reachable from v (goja's ast package
// has no walker).
func walk(v reflect.Value, seen map[uintptr]bool, fn func(ast.Node)) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			walk(v.Elem(), seen, fn)
		}
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		if v.Type().Implements(nodeType) {
			fn(v.Interface().(ast.Node))
		}
		walk(v.Elem(), seen, fn)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				walk(v.Field(i), seen, fn)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walk(v.Index(i), seen, fn)
		}
	}
}
