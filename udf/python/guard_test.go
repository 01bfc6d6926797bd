package python

import (
	"fmt"
	"math/big"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
)

// TestMemoryLimit runs the allocations that used to kill the process
// (Go's unrecoverable "out of memory") and checks that each fails its
// call with MemoryError, naming the function and the line, and that the
// definition stays usable.
func TestMemoryLimit(t *testing.T) {
	const doubling = "<over or exceeded>"
	tests := []struct {
		name, body, want string
		line             int
	}{
		{"string repeat", "def f(a):\n    return len('x' * 10**10)\n", "would allocate 9.3 gb, over the memory limit of 64 mb", 2},
		{"list repeat", "def f(a):\n    return len([0] * 10**9)\n", "would allocate 14.9 gb", 2},
		{"repeat in place", "def f(a):\n    s = 'ab'\n    s *= 10**10\n    return len(s)\n", "would allocate 18.6 gb", 3},
		{"number times list", "def f(a):\n    return len(10**9 * [a])\n", "would allocate 14.9 gb", 2},
		{"bytes repeat", "def f(a):\n    return len(b'xy' * 10**10)\n", "would allocate 18.6 gb", 2},
		{"big power", "def f(a):\n    return 2**(2**40) % 7\n", "would allocate 128.0 gb", 2},
		{"big shift", "def f(a):\n    return (1 << 2**40) % 7\n", "would allocate 128.0 gb", 2},
		{"join", "def f(a):\n    return len(','.join(['ab'] * 10**8))\n", "would allocate 1.5 gb", 2},
		{"join of large parts", "def f(a):\n    l = ['x' * 1000000] * 1000\n    return len(''.join(l))\n", "would allocate 954 mb", 3},
		{"str.replace", "def f(a):\n    s = 'x' * 1000000\n    return len(s.replace('x', 'y' * 5000))\n", "would allocate 4.7 gb", 3},
		{"str.ljust", "def f(a):\n    return len('x'.ljust(10**10))\n", "would allocate 9.3 gb", 2},
		{"str.center", "def f(a):\n    return len('x'.center(10**10, '*'))\n", "would allocate 9.3 gb", 2},
		{"str.zfill", "def f(a):\n    return len('1'.zfill(10**10))\n", "would allocate 9.3 gb", 2},
		{"format width", "def f(a):\n    return len('{:>10000000000}'.format(a))\n", "would allocate 9.3 gb", 2},
		{"format precision", "def f(a):\n    return len(format(1.5, '.10000000000f'))\n", "would allocate 9.3 gb", 2},
		{"bytes(n)", "def f(a):\n    return len(bytes(10**10))\n", "would allocate 9.3 gb", 2},
		{"in a lambda", "g = lambda n: 'y' * n\ndef f(a):\n    return len(g(10**10))\n", "would allocate 9.3 gb", 1},
		// Memory that grows step by step: the heap sampling stops the
		// call at the loop that grows it, which the error names.
		{"append loop", "def f(a):\n    l = []\n    while True:\n        l.append('x' * 1000 + str(len(l)))\n", "exceeded the memory limit of 64 mb", 3},
		// Doubling: the size check refuses the step that would go over
		// the limit ("would allocate … over"), unless the heap sampling,
		// which also counts the garbage of the earlier steps, stops the
		// call first ("exceeded"); both name the line.
		{"string doubling", "def f(a):\n    s = 'x'\n    for i in range(40):\n        s = s + s\n    return len(s)\n", doubling, 4},
		{"doubling over a list", "def f(a):\n    s = 'x'\n    for i in [0] * 40:\n        s = s + s\n    return len(s)\n", doubling, 4},
		{"list.extend", "def f(a):\n    l = [0] * 1000\n    for i in range(40):\n        l.extend(l)\n    return len(l)\n", doubling, 4},
		{"comprehension", "def f(a):\n    n = 0\n    l = [str(i) * 100 for i in range(10**9)]\n    return len(l)\n", "exceeded the memory limit of 64 mb", 3},
		{"set comprehension", "def f(a):\n    l = {str(i) * 100 for i in range(10**9)}\n    return len(l)\n", "exceeded the memory limit of 64 mb", 2},
		{"generator", "def g():\n    i = 0\n    while True:\n        yield 'x' * 100 + str(i)\n        i = i + 1\ndef f(a):\n    l = []\n    for s in g():\n        l.append(s)\n    return len(l)\n", "exceeded the memory limit of 64 mb", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			def, err := Compile(udf.Spec{Name: "f", Params: params(types.IntT), Returns: types.IntT, Body: tc.body,
				Timeout: -1, MemoryLimit: 64 << 20})
			require.NoError(t, err)
			for range 2 { // the definition stays usable
				_, err = call(def, int32(1))
				require.ErrorContains(t, err, "MemoryError: ")
				if tc.want == doubling {
					require.Regexp(t, `(would allocate [0-9.]+ mb, over|exceeded) the memory limit of 64 mb`, err.Error())
				} else {
					require.ErrorContains(t, err, tc.want)
				}
				if tc.want == doubling { // the step's line, or the loop's when the sampling stops it
					require.Regexp(t, fmt.Sprintf(`Python UDF 'f' failed at inline body of f, line [%d%d]: MemoryError`, tc.line-1, tc.line), err.Error())
				} else if tc.line > 0 {
					require.ErrorContains(t, err, fmt.Sprintf("Python UDF 'f' failed at inline body of f, line %d: MemoryError", tc.line))
				} else { // the generator's loop or the for loop: either names its line
					require.Regexp(t, `Python UDF 'f' failed at inline body of f, line [348]: MemoryError`, err.Error())
				}
			}
			runtime.GC()
		})
	}
}

// TestIntegerSizeLimit: integer arithmetic that would run past the time
// limit inside math/big (which nothing interrupts) is refused by size.
func TestIntegerSizeLimit(t *testing.T) {
	for _, body := range []string{
		"def f(a):\n    x = 3\n    for i in range(30):\n        x = x * x\n    return x % 7\n",
		"def f(a):\n    return len(str(7 ** 3000000))\n",
		"def f(a):\n    return (a << 2000000) % 7\n",
	} {
		def, err := Compile(udf.Spec{Name: "f", Params: params(types.IntT), Returns: types.IntT, Body: body, Timeout: 2 * time.Second})
		require.NoError(t, err)
		start := time.Now()
		_, err = call(def, int32(1))
		require.ErrorContains(t, err, "OverflowError: the integer result would have ")
		require.ErrorContains(t, err, "over the limit of 1048576 bits for one operation")
		require.Less(t, time.Since(start), time.Second)
	}
	// under the limit integers stay exact
	def, err := Compile(udf.Spec{Name: "f", Params: params(types.IntT), Returns: types.IntT,
		Body: "def f(a):\n    x = 3 ** 200000\n    y = x * x\n    return (y << 10) % 1000003\n"})
	require.NoError(t, err)
	got, err := call(def, int32(1))
	require.NoError(t, err)
	want := new(big.Int).Exp(big.NewInt(3), big.NewInt(400000), nil)
	want.Lsh(want, 10).Mod(want, big.NewInt(1000003))
	require.Equal(t, int32(want.Int64()), got)
}

// TestLoopsKeepSemantics: the loop rewrite (guarded iterators, the exit
// stub) keeps Python's results: break, continue, else, nested loops,
// comprehensions, generators, yield from; and an exception raised by a
// generator a for loop consumes reaches the caller with its line (gpython
// alone ends the loop silently).
func TestLoopsKeepSemantics(t *testing.T) {
	body := `def gen(n):
    for i in range(n):
        yield i * 2
def outer(n):
    yield from gen(n)
    yield 100
def f(a):
    t = 0
    for i in [1, 2, 3, 4, 5]:
        if i == 2:
            continue
        if i == 5:
            break
        t = t + i
    else:
        t = t + 1000
    for i in (7,):
        t = t + i
    else:
        t = t + 10000
    for c in 'abc':
        for d in {'x': 1, 'y': 2}:
            t = t + 1
    t = t + sum([x * y for x in range(3) for y in range(3) if x != y])
    t = t + len({k: v for k, v in zip('ab', [1, 2])})
    t = t + sum(x for x in gen(4))
    t = t + sum(list(outer(3)))
    return t
`
	def, err := Compile(udf.Spec{Name: "f", Params: params(types.IntT), Returns: types.BigIntT, Body: body})
	require.NoError(t, err)
	got, err := call(def, int32(1))
	require.NoError(t, err)
	// 1+3+4 = 8; 7 + 10000; 6; products x*y for x != y over 0..2: 0+0+0+2+0+2 = 4 (0*1,0*2,1*0,1*2,2*0,2*1) ; 2; 0+2+4+6 = 12; 0+2+4+100 = 106
	require.Equal(t, int64(8+7+10000+6+4+2+12+106), got)

	def, err = Compile(udf.Spec{Name: "f", Params: params(types.IntT), Returns: types.IntT, Body: `def g():
    yield 1
    raise ValueError('bad item')
def f(a):
    n = 0
    for x in g():
        n = n + x
    return n
`})
	require.NoError(t, err)
	_, err = call(def, int32(1))
	require.ErrorContains(t, err, "ValueError: bad item")
	require.ErrorContains(t, err, "line 3")
}

// TestMemoryGuardKeepsSemantics: guarded operations give Python's results
// and errors, and line numbers stay right after the bytecode rewrite.
func TestMemoryGuardKeepsSemantics(t *testing.T) {
	body := `def f(a):
    x = a * 3
    s = 'ab' * 3
    l = [1, 2] * 2
    t = 2 * (1,)
    p = 2 ** 100 % 1000 + 3 ** 2 + int(2.0 ** 3) + (1 << 10) + (7 << 0)
    b = a
    b *= 2
    b **= 2
    b <<= 1
    n = -1 * 'zz'
    if a > 100:
        return 0
    while x < 100:
        x = x * 2
    return x + len(s) + len(l) + len(t) + p + b + len(n) + (10**20 // 10**18)
`
	def, err := Compile(udf.Spec{Name: "f", Params: params(types.IntT), Returns: types.BigIntT, Body: body, MemoryLimit: 1 << 20})
	require.NoError(t, err)
	got, err := call(def, int32(5))
	require.NoError(t, err)
	// x: 15 → 120; s 6, l 4, t 2; p = 376 + 9 + 8 + 1024 + 7; b = ((5*2)**2) << 1 = 200; n 0; 100
	require.Equal(t, int64(120+6+4+2+376+9+8+1024+7+200+0+100), got)

	def, err = Compile(udf.Spec{Name: "g", Params: params(types.IntT), Returns: types.IntT,
		Body: "def g(a):\n    x = a * 2\n    y = x ** 2\n\n    return y // (a - a)\n"})
	require.NoError(t, err)
	_, err = call(def, int32(5))
	require.ErrorContains(t, err, "ZeroDivisionError")
	require.ErrorContains(t, err, "line 5")

	// Concatenation and extend, guarded since they double in loops, keep
	// CPython's results (extend takes any iterable).
	def, err = Compile(udf.Spec{Name: "h", Params: params(types.IntT), Returns: types.StringT, MemoryLimit: 1 << 20,
		Body: "def h(a):\n    s = 'a' + 'b'\n    s += 'c'\n    l = [1] + [2]\n    l += [3]\n    l.extend((4, 5))\n    l.extend(x for x in [6])\n    l.extend('78')\n    t = (1,) + (2,)\n    return s + str(l) + str(t) + str(a + 1) + str(1.5 + a)\n"})
	require.NoError(t, err)
	got, err = call(def, int32(5))
	require.NoError(t, err)
	require.Equal(t, "abc[1, 2, 3, 4, 5, 6, '7', '8'](1, 2)66.5", got)

	def, err = Compile(udf.Spec{Name: "h", Params: params(types.IntT), Returns: types.IntT,
		Body: "def h(a):\n    return 'x' * 'y'\n"})
	require.NoError(t, err)
	_, err = call(def, int32(5))
	require.ErrorContains(t, err, "TypeError")
	require.ErrorContains(t, err, "line 2")
}

// TestMemoryLimitOff: with no limit (negative) the guards let a large
// allocation through.
func TestMemoryLimitOff(t *testing.T) {
	def, err := Compile(udf.Spec{Name: "f", Kind: function.Scalar, Params: params(types.IntT), Returns: types.IntT,
		Body: "def f(a):\n    return len(('x' * 1024) * (300 * 1024))\n", MemoryLimit: -1, Timeout: 10 * time.Second})
	require.NoError(t, err)
	got, err := call(def, int32(1))
	require.NoError(t, err)
	require.Equal(t, int32(300<<20), got)
	def, err = Compile(udf.Spec{Name: "f", Kind: function.Scalar, Params: params(types.IntT), Returns: types.IntT,
		Body: "def f(a):\n    return len(('x' * 1024) * (300 * 1024))\n"})
	require.NoError(t, err)
	_, err = call(def, int32(1))
	require.ErrorContains(t, err, "over the memory limit of 256 mb")
}
