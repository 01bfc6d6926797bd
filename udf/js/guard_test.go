package js

import (
	"math/big"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
)

// TestMemoryLimit runs the allocations that used to kill the process or
// run for minutes in Go loops nothing could interrupt, and checks that
// each fails its call with a RangeError naming the limit, the function
// and the line, and that the definition stays usable.
func TestMemoryLimit(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"repeat", "function f(a) {\n  return 'x'.repeat(2 ** 31).length;\n}", "would allocate 2.0 gb, over the memory limit of 64 mb"},
		{"padStart", "function f(a) {\n  return 'x'.padStart(2 ** 31).length;\n}", "would allocate 2.0 gb"},
		{"fill", "function f(a) {\n  return new Array(1e9).fill(0).length;\n}", "would allocate 14.9 gb"},
		{"join", "function f(a) {\n  return new Array(1e9).join('ab').length;\n}", "would allocate 1.9 gb"},
		{"Array.from", "function f(a) {\n  return Array.from({length: 1e9}).length;\n}", "would allocate 14.9 gb"},
		{"BigInt power", "function f(a) {\n  return Number((2n ** (2n ** 40n)) % 7n);\n}", "would allocate 128.0 gb"},
		{"BigInt power assign", "function f(a) {\n  let x = 3n;\n  x **= 10n ** 12n;\n  return Number(x % 7n);\n}", "would allocate"},
		{"BigInt shift", "function f(a) {\n  return Number((1n << (2n ** 40n)) % 7n);\n}", "would allocate 128.0 gb"},
		{"BigInt shift assign", "function f(a) {\n  let x = 1n;\n  x <<= 2n ** 40n;\n  return Number(x % 7n);\n}", "would allocate 128.0 gb"},
		{"spread of a string", "function f(a) {\n  const s = 'x'.repeat(2 ** 24);\n  return [...s].length;\n}", "would allocate 512 mb"},
		{"spread of a sparse array", "function f(a) {\n  return Math.max(...new Array(1e9));\n}", "would allocate 14.9 gb"},
		{"Uint8Array", "function f(a) {\n  return new Uint8Array(2 ** 32).length;\n}", "would allocate 4.0 gb"},
		{"Float64Array", "function f(a) {\n  return new Float64Array(2 ** 30).length;\n}", "would allocate 8.0 gb"},
		{"typed array of an array-like", "function f(a) {\n  return new Int32Array({length: 2 ** 31}).length;\n}", "would allocate 8.0 gb"},
		{"ArrayBuffer", "function f(a) {\n  return new ArrayBuffer(2 ** 33).byteLength;\n}", "would allocate 8.0 gb"},
		{"String concat", "function f(a) {\n  const s = 'x'.repeat(1e7);\n  return s.concat(s, s, s, s, s, s, s, s, s, s, s).length;\n}", "would allocate 114 mb"},
		{"Array concat", "function f(a) {\n  const l = new Array(1e6).fill(0);\n  return l.concat(l, l, l, l, l).length;\n}", "would allocate 92 mb"},
		{"replaceAll", "function f(a) {\n  return 'x'.repeat(1e6).replaceAll('x', 'y'.repeat(5000)).length;\n}", "would allocate 4.7 gb"},
		{"replace with a global regexp", "function f(a) {\n  return 'x'.repeat(1e5).replace(/x/g, 'y'.repeat(5000)).length;\n}", "would allocate 477 mb"},
		{"join of a long sparse array", "function f(a) {\n  const l = [];\n  l.length = 2 ** 32 - 1;\n  return l.join('').length;\n}", "would allocate 4.0 gb"},
		{"Array.from a string", "function f(a) {\n  return Array.from('ab'.repeat(1e7)).length;\n}", "would allocate 916 mb"},
		{"split", "function f(a) {\n  return 'ab'.repeat(1e7).split('').length;\n}", "would allocate 916 mb"},
		{"JSON.stringify", "function f(a) {\n  return JSON.stringify(new Array(1e8)).length;\n}", "would allocate 477 mb"},
		{"string doubling", "function f(a) {\n  let s = 'x';\n  for (let i = 0; i < 40; i++) s = s + s;\n  return s.length;\n}", "exceeded the memory limit of 64 mb"},
		{"push loop", "function f(a) {\n  const l = [];\n  for (;;) l.push({k: l.length});\n}", "exceeded the memory limit of 64 mb"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			def, err := Compile(udf.Spec{Name: "f", Params: params(types.IntT), Returns: types.IntT, Body: tc.body,
				Timeout: -1, MemoryLimit: 64 << 20})
			require.NoError(t, err)
			for range 2 {
				_, err = call(def, int32(1))
				require.ErrorContains(t, err, "RangeError: ")
				require.ErrorContains(t, err, tc.want)
				require.ErrorContains(t, err, "JavaScript UDF 'f'")
				require.Regexp(t, `line [2-4]`, err.Error())
			}
			runtime.GC()
		})
	}
}

// TestMemoryGuardKeepsSemantics: the wrapped built-ins and the rewritten
// ** behave as before within the limit.
func TestMemoryGuardKeepsSemantics(t *testing.T) {
	body := `function f(a) {
  let x = 2 ** 10 + (a ** 2) ** 0.5 + -(2 ** 2) + 2 ** 3 ** 2; // 1024 + 3 - 4 + 512
  let y = 3;
  y **= 2;
  const o = {v: 2};
  o.v **= 3;
  const s = 'ab'.repeat(3) + 'c'.padStart(3, '-') + 'd'.padEnd(2) + [1, 2, 3].join() + new Array(3).fill(7).join('');
  const b = 2n ** 70n % 1000n; // 1180591620717411303424 % 1000 = 424
  return x + y + o.v + s.length + Number(b) + Array.from({length: 4}).length + Array.from([1, 2]).length;
}`
	def, err := Compile(udf.Spec{Name: "f", Params: params(types.IntT), Returns: types.IntT, Body: body, MemoryLimit: 1 << 20})
	require.NoError(t, err)
	got, err := call(def, int32(3))
	require.NoError(t, err)
	// s: 6 + 3 + 2 + 5 + 3 = 19
	require.Equal(t, int32(1024+3-4+512+9+8+19+424+4+2), got)
}

// TestBigIntSizeLimit: BigInt arithmetic and parsing that would run past
// the time limit inside math/big (which the interrupt cannot stop) are
// refused by size, under any memory limit.
func TestBigIntSizeLimit(t *testing.T) {
	for _, body := range []string{
		"function f(a) {\n  let x = 3n;\n  for (let i = 0; i < 40; i++) x = x * x;\n  return Number(x % 7n);\n}",
		"function f(a) {\n  let x = 3n;\n  for (let i = 0; i < 40; i++) x *= x;\n  return Number(x % 7n);\n}",
		"function f(a) {\n  return Number(3n ** (10n ** 8n) % 7n);\n}",
		"function f(a) {\n  return (7n ** 3000000n).toString().length;\n}",
		"function f(a) {\n  return Number((BigInt(a) << 2000000n) % 7n);\n}",
		"function f(a) {\n  return BigInt('9'.repeat(5e6)) > 0n ? 1 : 0;\n}",
	} {
		def, err := Compile(udf.Spec{Name: "f", Params: params(types.IntT), Returns: types.IntT, Body: body, Timeout: 2 * time.Second})
		require.NoError(t, err)
		start := time.Now()
		_, err = call(def, int32(1))
		require.ErrorContains(t, err, "RangeError: the integer result would have ", body)
		require.ErrorContains(t, err, "over the limit of 1048576 bits for one operation")
		require.Regexp(t, `line [2-4]`, err.Error())
		require.Less(t, time.Since(start), time.Second)
	}
	// Within the limit: exact results; the wrapped constructors keep
	// their behaviour.
	body := `function f(a) {
  const x = 3n ** 200000n;
  const y = x * x;
  let z = 5n;
  z *= 7n;
  z <<= 3n;
  const b = new Uint8Array([1, 2, 3]).length + new Uint8Array(new ArrayBuffer(8)).length + Uint8Array.from([1, 2]).length +
    (new Float64Array(2) instanceof Float64Array ? 100 : 0) + (new Uint8Array(1).constructor === Uint8Array ? 100 : 0) +
    (typeof BigInt(1) === 'bigint' ? 1000 : 0) + (BigInt.asUintN(8, 257n) === 1n ? 1000 : 0) +
    'ab'.concat('c', 1).length + [1].concat([2, 3], 4).length + 'aXbX'.replaceAll('X', '--').length + 'a,b'.split(',').length;
  let bad = 0;
  try { new BigInt(1); } catch (e) { bad = e instanceof TypeError ? 10000 : 0; }
  return Number((y << 10n) % 1000003n) + Number(z) + b + bad;
}`
	def, err := Compile(udf.Spec{Name: "f", Params: params(types.IntT), Returns: types.BigIntT, Body: body})
	require.NoError(t, err)
	got, err := call(def, int32(1))
	require.NoError(t, err)
	want := new(big.Int).Exp(big.NewInt(3), big.NewInt(400000), nil)
	want.Lsh(want, 10).Mod(want, big.NewInt(1000003))
	// z = 35 << 3 = 280; b = 3 + 8 + 2 + 100 + 100 + 1000 + 1000 + 4 + 4 + 6 + 2
	require.Equal(t, want.Int64()+280+(3+8+2+100+100+1000+1000+4+4+6+2)+10000, got)
}

func TestRewritePow(t *testing.T) {
	tests := []struct{ src, want string }{
		{"a ** b", "__tablerun_pow(a , b)"},
		{"(a) ** (b)", "__tablerun_pow((a) , (b))"},
		{"x = 2 ** 3 ** 2;", "x = __tablerun_pow(2 , __tablerun_pow(3 , 2));"},
		{"x = (1 + 2) ** 2;", "x = __tablerun_pow((1 + 2) , 2);"},
		{"y **= 2;", "y = __tablerun_pow(y, 2);"},
		{"'é' + a ** 2", "'é' + __tablerun_pow(a , 2)"},
		{"a **\n  b", "__tablerun_pow(a ,\n  b)"},
		{"a * b", "__tablerun_mul(a , b)"},
		{"a * b ** c", "__tablerun_mul(a , __tablerun_pow(b , c))"},
		{"x *= 3n;", "x = __tablerun_mul(x, 3n);"},
		{"x = 1n << n;", "x = __tablerun_shl(1n , n);"},
		{"x <<= 2;", "x = __tablerun_shl(x, 2);"},
		{"a >> b", "a >> b"},
		{"o.v *= 2;", "o.v *= 2;"},
		{"a ** /* c */ b", "a ** /* c */ b"},
		{"[...s]", "[...__tablerun_spread(s)]"},
		{"f(a, ...o.list)", "f(a, ...__tablerun_spread(o.list))"},
		{"[...(s)]", "[...(__tablerun_spread(s))]"},
		{"[...a ** b]", "[...__tablerun_pow(a , b)]"},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, rewritePow(tc.src), tc.src)
	}
}
