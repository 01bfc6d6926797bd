package python

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/go-python/gpython/py"
	"github.com/tablerun/tablerun/udf"
)

// Memory guards.
//
// gpython allocates the result of `'x' * n`, `[0] * n`, `2 ** n` and
// `1 << n` in one Go operation that nothing can interrupt: a UDF asking
// for 10 GB would kill the process with Go's unrecoverable "out of
// memory". So a compiled UDF's bytecode is rewritten: every multiply,
// power and left shift (binary and in-place) calls a guard builtin that
// computes the size of the result first and raises MemoryError when it is
// over the call's memory limit (udf.Watch.CheckAlloc), and otherwise does
// the operation. Memory that grows step by step (append loops, string
// doubling) is caught by the watch's heap sampling, which stops the call
// at its next frame, loop tick or range step.
//
// The rewrite replaces the one-byte opcode with three instructions
// (LOAD_GLOBAL guard; ROT_THREE; CALL_FUNCTION 2), moves every jump
// target and the line-number table, and recurses into nested code
// objects (functions, lambdas, comprehensions, classes). It needs no
// patched gpython, so the guard holds for every program that embeds
// tablerun.

// guardOps maps each guarded opcode to its guard builtin.
var guardOps = map[byte]string{
	opBinaryPower:    "__tablerun_pow__",
	opBinaryMultiply: "__tablerun_mul__",
	opBinaryLshift:   "__tablerun_lshift__",
	opInplacePower:   "__tablerun_ipow__",
	opInplaceMul:     "__tablerun_imul__",
	opInplaceLshift:  "__tablerun_ilshift__",
	opBinaryAdd:      "__tablerun_add__",
	opInplaceAdd:     "__tablerun_iadd__",
}

// gpython's opcodes (Python 3.4's, vm/opcodes.go) that the rewrite reads.
const (
	opPopTop         = 1
	opRotTwo         = 2
	opRotThree       = 3
	opGetIter        = 68
	opYieldFrom      = 72
	opLoadConst      = 100
	opBinaryPower    = 19
	opBinaryAdd      = 23
	opInplaceAdd     = 55
	opBinaryMultiply = 20
	opInplaceMul     = 57
	opBinaryLshift   = 62
	opInplacePower   = 67
	opInplaceLshift  = 75
	opHaveArgument   = 90
	opForIter        = 93
	opJumpForward    = 110
	opJumpIfFalseOr  = 111
	opJumpIfTrueOr   = 112
	opJumpAbsolute   = 113
	opPopJumpIfFalse = 114
	opPopJumpIfTrue  = 115
	opLoadGlobal     = 116
	opContinueLoop   = 119
	opSetupLoop      = 120
	opSetupExcept    = 121
	opSetupFinally   = 122
	opCallFunction   = 131
	opSetupWith      = 143
	opExtendedArg    = 144
)

func relativeJump(op byte) bool {
	switch op {
	case opForIter, opJumpForward, opSetupLoop, opSetupExcept, opSetupFinally, opSetupWith:
		return true
	}
	return false
}

func absoluteJump(op byte) bool {
	switch op {
	case opJumpIfFalseOr, opJumpIfTrueOr, opJumpAbsolute, opPopJumpIfFalse, opPopJumpIfTrue, opContinueLoop:
		return true
	}
	return false
}

// forIterStub is the bytes the FOR_ITER rewrite adds after the
// instruction (see guardCode).
const forIterStub = 13

// yieldFrom reports whether the GET_ITER at p belongs to a `yield from`
// (GET_ITER; LOAD_CONST None; YIELD_FROM), whose iterator must stay the
// generator itself (send and throw go to it).
func yieldFrom(src []byte, p int) bool {
	return p+4 < len(src) && src[p+1] == opLoadConst && src[p+4] == opYieldFrom
}

// noGuards is set by the benchmark that measures the guards' cost.
var noGuards bool

// guardCode returns code with its allocating operations guarded (a
// copy; code is not changed), nested code objects included.
func guardCode(code *py.Code) (*py.Code, error) {
	if noGuards {
		return code, nil
	}
	out := *code
	consts := make(py.Tuple, len(code.Consts))
	for i, c := range code.Consts {
		consts[i] = c
		if inner, ok := c.(*py.Code); ok {
			g, err := guardCode(inner)
			if err != nil {
				return nil, err
			}
			consts[i] = g
		}
	}
	out.Consts = consts
	src := []byte(code.Code)
	// First pass: instruction starts, and where each one moves.
	moved := make([]int, len(src)+1)
	grow := 0
	for p := 0; p < len(src); {
		moved[p] = p + grow
		op := src[p]
		if op == opExtendedArg {
			return nil, fmt.Errorf("%s: function too large to guard (EXTENDED_ARG)", code.Name)
		}
		if _, ok := guardOps[op]; ok {
			grow += 6
		}
		if op == opGetIter && !yieldFrom(src, p) {
			grow += 6
		}
		if op == opForIter {
			grow += forIterStub
		}
		if op >= opHaveArgument {
			p += 3
		} else {
			p++
		}
	}
	moved[len(src)] = len(src) + grow
	if grow == 0 {
		return &out, nil
	}
	names := append([]string(nil), code.Names...)
	nameIdx := map[string]int{}
	index := func(name string) int {
		if i, ok := nameIdx[name]; ok {
			return i
		}
		for i, n := range names {
			if n == name {
				nameIdx[name] = i
				return i
			}
		}
		names = append(names, name)
		nameIdx[name] = len(names) - 1
		return len(names) - 1
	}
	dst := make([]byte, 0, len(src)+grow)
	put := func(op byte, arg int) error {
		if arg < 0 || arg > math.MaxUint16 {
			return fmt.Errorf("%s: function too large to guard (jump or name index %d)", code.Name, arg)
		}
		dst = append(dst, op, byte(arg), byte(arg>>8))
		return nil
	}
	for p := 0; p < len(src); {
		op := src[p]
		if name, ok := guardOps[op]; ok {
			if err := put(opLoadGlobal, index(name)); err != nil {
				return nil, err
			}
			dst = append(dst, opRotThree)
			if err := put(opCallFunction, 2); err != nil {
				return nil, err
			}
			p++
			continue
		}
		if op == opGetIter && !yieldFrom(src, p) {
			// iter(x) → __tablerun_iter__(x): an iterator that checks
			// the watch at every step, whatever it iterates.
			if err := put(opLoadGlobal, index("__tablerun_iter__")); err != nil {
				return nil, err
			}
			dst = append(dst, opRotTwo)
			if err := put(opCallFunction, 1); err != nil {
				return nil, err
			}
			p++
			continue
		}
		if op < opHaveArgument {
			dst = append(dst, op)
			p++
			continue
		}
		arg := int(src[p+1]) | int(src[p+2])<<8
		if op == opForIter {
			// FOR_ITER ends the loop on any error of the iterator, the
			// watch's included, so its exit goes through a stub that
			// raises what the guarded iterator kept (the memory or
			// time limit, or the script's own exception) at the line
			// of the for statement:
			//   FOR_ITER → X; JUMP_FORWARD → B
			//   X: LOAD_GLOBAL __tablerun_loop_end__; CALL_FUNCTION 0; POP_TOP; JUMP_ABSOLUTE exit
			//   B: (the loop body)
			exit := moved[p+3+arg]
			if err := put(opForIter, 3); err != nil {
				return nil, err
			}
			if err := put(opJumpForward, forIterStub-3); err != nil {
				return nil, err
			}
			if err := put(opLoadGlobal, index("__tablerun_loop_end__")); err != nil {
				return nil, err
			}
			if err := put(opCallFunction, 0); err != nil {
				return nil, err
			}
			dst = append(dst, opPopTop)
			if err := put(opJumpAbsolute, exit); err != nil {
				return nil, err
			}
			p += 3
			continue
		}
		switch {
		case relativeJump(op):
			arg = moved[p+3+arg] - (moved[p] + 3)
		case absoluteJump(op):
			arg = moved[arg]
		}
		if err := put(op, arg); err != nil {
			return nil, err
		}
		p += 3
	}
	out.Code = string(dst)
	out.Names = names
	out.Stacksize++
	out.Lnotab = moveLnotab(code.Lnotab, moved)
	return &out, nil
}

// moveLnotab re-encodes a line-number table (pairs of address and line
// increments, lnotab_notes.txt) for moved instruction addresses.
func moveLnotab(lnotab string, moved []int) string {
	var out []byte
	addr, newAddr := 0, 0
	for i := 0; i+1 < len(lnotab); i += 2 {
		addr += int(lnotab[i])
		dLine := int(lnotab[i+1])
		target := moved[min(addr, len(moved)-1)]
		dAddr := target - newAddr
		newAddr = target
		for dAddr > 255 {
			out = append(out, 255, 0)
			dAddr -= 255
		}
		for dLine > 255 {
			out = append(out, byte(dAddr), 255)
			dAddr = 0
			dLine -= 255
		}
		out = append(out, byte(dAddr), byte(dLine))
	}
	return string(out)
}

// installGuards adds the guard builtins of s to the builtins b.
func installGuards(b *py.Module, s *sandbox) {
	type binop func(a, b py.Object) (py.Object, error)
	add := func(name string, size func(a, b py.Object) float64, do binop) {
		b.Globals[name] = py.MustNewMethod(name, func(self py.Object, args py.Tuple) (py.Object, error) {
			if len(args) != 2 {
				return nil, py.ExceptionNewf(py.TypeError, "%s takes 2 arguments", name)
			}
			if n := size(args[0], args[1]); n > 0 {
				if err := s.watch.CheckAlloc(n); err != nil {
					return nil, py.ExceptionNewf(py.MemoryError, "%s", err.Error())
				}
				if _, isSeq := seqBytes(args[0]); !isSeq {
					if _, isSeq = seqBytes(args[1]); !isSeq && n*8 > maxIntBits {
						return nil, py.ExceptionNewf(py.OverflowError, "%s", udf.IntTooLarge(n*8, maxIntBits))
					}
				}
			}
			return do(args[0], args[1])
		}, 0, "")
	}
	pow := func(a, b py.Object) (py.Object, error) { return py.Pow(a, b, py.None) }
	ipow := func(a, b py.Object) (py.Object, error) { return py.IPow(a, b, py.None) }
	add("__tablerun_mul__", mulSize, py.Mul)
	add("__tablerun_imul__", mulSize, py.IMul)
	add("__tablerun_pow__", powSize, pow)
	add("__tablerun_ipow__", powSize, ipow)
	add("__tablerun_lshift__", lshiftSize, py.Lshift)
	add("__tablerun_ilshift__", lshiftSize, py.ILshift)
	add("__tablerun_add__", addSize, py.Add)
	add("__tablerun_iadd__", addSize, py.IAdd)
}

// addSize is the size in bytes of a sequence concatenation (0 for other
// sums): doubling a string or a list in a loop grows the heap
// exponentially, faster than the heap sampling can stop it under load,
// so the step that would pass the limit is refused before it allocates.
func addSize(a, b py.Object) float64 {
	x, ok := seqBytes(a)
	if !ok {
		return 0
	}
	y, ok := seqBytes(b)
	if !ok {
		return 0
	}
	if n := x + y; n >= 1<<20 {
		return n
	}
	return 0
}

// maxIntBits bounds the integers one guarded operation may make: math/big
// cannot be interrupted, and multiplying or printing integers of many
// million bits takes seconds (str() of a 4-million-bit integer 1.5 s on
// the project's machine), past tablerun.udf.timeout. 2^20 bits are
// 315,653 decimal digits (CPython itself refuses str() of integers over
// 4,300 digits by default).
const maxIntBits = 1 << 20

// mulSize is the size in bytes of a sequence repetition or of an
// integer product (0 for other products).
func mulSize(a, b py.Object) float64 {
	if n, ok := seqBytes(a); ok {
		return n * intMagnitude(b)
	}
	if n, ok := seqBytes(b); ok {
		return n * intMagnitude(a)
	}
	if x, y := bitLen(a), bitLen(b); x > 64 || y > 64 { // small products stay machine words
		return (x + y) / 8
	}
	return 0
}

// seqBytes is the size of a repeatable sequence's items.
func seqBytes(o py.Object) (float64, bool) {
	switch x := o.(type) {
	case py.String:
		return float64(len(x)), true
	case py.Bytes:
		return float64(len(x)), true
	case *py.List:
		return 16 * float64(len(x.Items)), true // one interface value per item
	case py.Tuple:
		return 16 * float64(len(x)), true
	}
	return 0, false
}

// intMagnitude is an integer's value as a float (0 for negatives and
// non-integers, whose products Python computes without allocating).
func intMagnitude(o py.Object) float64 {
	switch x := o.(type) {
	case py.Int:
		if x > 0 {
			return float64(x)
		}
	case *py.BigInt:
		f, _ := new(big.Float).SetInt((*big.Int)(x)).Float64()
		if f > 0 {
			return f
		}
	case py.Bool:
		if x {
			return 1
		}
	}
	return 0
}

// bitLen is the bit length of an integer's magnitude (-1 for non-integers).
func bitLen(o py.Object) float64 {
	switch x := o.(type) {
	case py.Int:
		v := int64(x)
		if v < 0 {
			v = -v
		}
		return float64(big.NewInt(v).BitLen())
	case *py.BigInt:
		return float64((*big.Int)(x).BitLen())
	case py.Bool:
		if x {
			return 1
		}
		return 0
	}
	return -1
}

// powSize is the size in bytes of an integer power a ** b.
func powSize(a, b py.Object) float64 {
	bits := bitLen(a)
	if bits <= 1 { // 0, 1, -1, or not an integer
		return 0
	}
	return ((bits-1)*intMagnitude(b) + 1) / 8 // a >= 2**(bits-1)
}

// lshiftSize is the size in bytes of an integer shift a << b.
func lshiftSize(a, b py.Object) float64 {
	bits := bitLen(a)
	if bits <= 0 {
		return 0
	}
	return (bits + intMagnitude(b)) / 8
}

// watchError is the exception raised after the watch fired: the time
// limit, the statement's cancellation or the memory limit.
func watchError(w *udf.Watch) error {
	if w.OverMemory() {
		return py.ExceptionNewf(py.MemoryError, "%s", (&udf.MemoryError{Limit: w.MemoryLimit()}).Error())
	}
	return timeoutError(w)
}

// Built-in methods that build a result in one Go operation from a size
// given by the script are checked first (allocCheck, extras.go): the
// padding methods and format widths (extras.go), str.join, and here
// gpython's str.replace and bytes(n).
func init() {
	py.StringType.Dict["replace"] = py.MustNewMethod("replace", func(self py.Object, args py.Tuple) (py.Object, error) {
		s := self.(py.String)
		if len(args) >= 2 {
			old, ok1 := args[0].(py.String)
			repl, ok2 := args[1].(py.String)
			if ok1 && ok2 && len(repl) > len(old) && float64(len(s)+1)*float64(len(repl)) >= 1<<20 {
				n := strings.Count(string(s), string(old))
				if len(args) > 2 {
					if c, ok := args[2].(py.Int); ok && c >= 0 && int(c) < n {
						n = int(c)
					}
				}
				if err := allocCheck(float64(len(s)) + float64(n)*float64(len(repl)-len(old))); err != nil {
					return nil, err
				}
			}
		}
		return s.Replace(args)
	}, 0, "replace(self, old, new, count=-1) -> return a copy with all occurrences of substring old replaced by new.")
	bytesNew := py.BytesType.New
	py.BytesType.New = func(metatype *py.Type, args py.Tuple, kwargs py.StringDict) (py.Object, error) {
		if len(args) == 1 {
			if n := intMagnitude(args[0]); n > 0 {
				if err := allocCheck(n); err != nil {
					return nil, err
				}
			}
		}
		return bytesNew(metatype, args, kwargs)
	}
}
