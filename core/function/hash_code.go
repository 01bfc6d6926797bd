package function

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
)

// HASH_CODE(x) is Flink's internal function that the split of DISTINCT
// aggregates (table.optimizer.distinct-agg.split.enabled) uses for the
// bucket of a distinct key: MOD(HASH_CODE(x), bucket-num). As in Flink it
// takes one argument of any type and is NULL on a NULL argument.
//
// Over TINYINT, SMALLINT, INT and BIGINT it is Java's hashCode, as in
// Flink: the value, and for BIGINT (int)(v ^ (v >>> 32)) — so it may be
// negative, and so may MOD(HASH_CODE(x), n). Difference from Flink: over
// other types tablerun returns the top 31 bits of types.HashColumns over
// the one value rather than Java's hashCode (never negative). It is
// deterministic across runs and processes, and values that GROUP BY puts
// together hash alike (0.0 and -0.0, every NaN).

// JavaIntHash returns Java's hashCode of an integer value of kind k
// (TINYINT … BIGINT); ok is false for other kinds.
func JavaIntHash(v int64, k types.Kind) (h int32, ok bool) {
	switch k {
	case types.TinyInt, types.SmallInt, types.Int:
		return int32(v), true
	case types.BigInt:
		return int32(v ^ int64(uint64(v)>>32)), true
	}
	return 0, false
}

// HashCodeFold folds a types.HashColumns hash into the INT value of
// HASH_CODE: its top 31 bits, never negative. The vectorized kernel and
// the reference implementation both use it, so they agree.
func HashCodeFold(h uint64) int32 { return int32(h >> 33) }

// HashCodeValue returns HASH_CODE of the non-NULL canonical value v of
// type t (the row-at-a-time form of the vectorized kernel).
func HashCodeValue(v any, t types.Type) (int32, error) {
	var n int64
	switch x := v.(type) {
	case int8:
		n = int64(x)
	case int16:
		n = int64(x)
	case int32:
		n = int64(x)
	case int64:
		n = x
	}
	if h, ok := JavaIntHash(n, t.Kind); ok {
		return h, nil
	}
	at, err := types.ArrowType(t)
	if err != nil {
		return 0, fmt.Errorf("HASH_CODE of %s: %w", t, err)
	}
	b := array.NewBuilder(memory.DefaultAllocator, at)
	defer b.Release()
	if err := types.AppendValue(b, v, t); err != nil {
		return 0, fmt.Errorf("HASH_CODE of %s: %w", t, err)
	}
	a := b.NewArray()
	defer a.Release()
	var h [1]uint64
	types.HashArray(a, h[:])
	return HashCodeFold(h[0]), nil
}

func registerHashCode(r *Registry) {
	r.Register(&Definition{Name: "HASH_CODE", NullOnNull: true,
		Infer: func(args []types.Type) (types.Type, []types.Type, error) {
			if len(args) != 1 {
				return types.Type{}, nil, arityError("HASH_CODE", len(args))
			}
			return types.IntT.WithNullable(args[0].Nullable()), nil, nil
		},
		Eval: func(ctx *EvalContext, ct CallTypes, a []any) (any, error) {
			return HashCodeValue(a[0], ct.Args[0])
		},
		Doc: Doc{Summary: "Internal: a deterministic hash of the value as an INT (Java's hashCode for integers); NULL if the value is NULL (the bucket of table.optimizer.distinct-agg.split.enabled is MOD(HASH_CODE(x), bucket-num)).",
			Args: "value", Example: "HASH_CODE('a')"}})
}
