package types

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

func TestTypeStrings(t *testing.T) {
	cases := []struct {
		t    Type
		want string
	}{
		{IntT, "INT"},
		{IntT.WithNullable(false), "INT NOT NULL"},
		{StringT, "STRING"},
		{VarCharOf(10), "VARCHAR(10)"},
		{CharOf(3).WithNullable(false), "CHAR(3) NOT NULL"},
		{BytesT, "BYTES"},
		{DecimalOf(10, 2), "DECIMAL(10, 2)"},
		{TimestampOf(3), "TIMESTAMP(3)"},
		{TimestampLTZOf(3), "TIMESTAMP_LTZ(3)"},
		{TimeOf(0), "TIME(0)"},
		{ArrayOf(IntT), "ARRAY<INT>"},
		{MapOf(StringT, BigIntT.WithNullable(false)), "MAP<STRING, BIGINT NOT NULL>"},
		{RowOf(Field{Name: "a", Type: IntT}, Field{Name: "b", Type: StringT}), "ROW<`a` INT, `b` STRING>"},
		{IntervalDT, "INTERVAL DAY(2) TO SECOND(3)"},
		{Type{Kind: IntervalDayTime, Precision: 3, Unit: "SECOND"}, "INTERVAL SECOND(3)"},
		{IntervalYM, "INTERVAL YEAR(2) TO MONTH"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, c.t.String())
	}
	require.Equal(t, "INT", IntT.WithNullable(false).SummaryString())
}

func TestEqual(t *testing.T) {
	require.True(t, ArrayOf(IntT).Equal(ArrayOf(IntT)))
	require.False(t, ArrayOf(IntT).Equal(ArrayOf(BigIntT)))
	require.False(t, IntT.Equal(IntT.WithNullable(false)))
	require.True(t, IntT.EqualIgnoringNull(IntT.WithNullable(false)))
}

func TestValuesRoundTrip(t *testing.T) {
	s := Schema{
		{Name: "b", Type: BooleanT},
		{Name: "i", Type: IntT},
		{Name: "l", Type: BigIntT},
		{Name: "d", Type: DoubleT},
		{Name: "dec", Type: DecimalOf(10, 2)},
		{Name: "s", Type: StringT},
		{Name: "bin", Type: BytesT},
		{Name: "date", Type: DateT},
		{Name: "ts", Type: TimestampOf(3)},
		{Name: "ltz", Type: TimestampLTZOf(3)},
		{Name: "arr", Type: ArrayOf(IntT)},
		{Name: "m", Type: MapOf(StringT, IntT)},
		{Name: "r", Type: RowOf(Field{Name: "x", Type: IntT}, Field{Name: "y", Type: StringT})},
	}
	rows := [][]any{
		{true, int32(1), int64(2), 1.5, decimal128.FromI64(150), "a", []byte{1, 2}, int32(19000), int64(1_000_000), int64(2_000_000),
			[]any{int32(1), nil}, &MapValue{Keys: []any{"k"}, Values: []any{int32(7)}}, []any{int32(3), "z"}},
		{nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
	}
	rec, err := BuildRecord(memory.DefaultAllocator, s, rows)
	require.NoError(t, err)
	require.Equal(t, rows, RecordRows(rec, s))
}

func TestTimestampPrecisionBeyondMicros(t *testing.T) {
	_, err := ArrowType(TimestampOf(10))
	require.ErrorContains(t, err, "not supported yet")
}

func TestFromArrowRoundTrip(t *testing.T) {
	for _, lt := range []Type{BooleanT, TinyIntT, SmallIntT, IntT, BigIntT.WithNullable(false), FloatT, DoubleT,
		DecimalOf(10, 2), StringT, BytesT, DateT, TimestampOf(6), TimestampLTZOf(6), TimestampOf(9), TimestampLTZOf(9), IntervalDT, IntervalYM,
		ArrayOf(IntT), MapOf(StringT.WithNullable(false), IntT), RowOf(Field{Name: "a", Type: IntT})} {
		at, err := ArrowType(lt)
		require.NoError(t, err)
		back, err := FromArrow(at, lt.Nullable())
		require.NoError(t, err)
		require.True(t, lt.Equal(back), "%s came back as %s", lt, back)
	}
}
