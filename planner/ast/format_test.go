package ast

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFormat(t *testing.T) {
	ts := &Identifier{Parts: []string{"ts"}}
	five := &IntervalLit{Value: "5", Qualifier: IntervalQualifier{Start: "SECOND", StartPrecision: -1, StartFracPrecision: -1, EndFracPrecision: -1}}
	tests := []struct {
		name string
		e    Expr
		want string
	}{
		{"nil", nil, ""},
		{"watermark", &Binary{Op: "-", Left: ts, Right: five}, "`ts` - INTERVAL '5' SECOND"},
		{"quoted ident", &Identifier{Parts: []string{"a`b", "c"}}, "`a``b`.`c`"},
		{"string escape", &Literal{Kind: StringLit, Text: "it's"}, "'it''s'"},
		{"integer text kept", &Literal{Kind: IntegerLit, Text: "007"}, "007"},
		{"null", &Literal{Kind: NullLit, Text: "NULL"}, "NULL"},
		{"date", &Literal{Kind: DateLit, Text: "2020-01-01"}, "DATE '2020-01-01'"},
		{"ltz", &Literal{Kind: TimestampLTZLit, Text: "2020-01-01 00:00:00"}, "TIMESTAMP_LTZ '2020-01-01 00:00:00'"},
		{"binary", &Literal{Kind: BinaryLit, Text: "0aff"}, "X'0aff'"},
		{"negative interval", &IntervalLit{Negative: true, Value: "1 02", Qualifier: IntervalQualifier{Start: "DAY", StartPrecision: 2, StartFracPrecision: -1, End: "HOUR", EndFracPrecision: -1}}, "INTERVAL -'1 02' DAY(2) TO HOUR"},
		{"second precision", &IntervalLit{Value: "1.5", Qualifier: IntervalQualifier{Start: "SECOND", StartPrecision: 2, StartFracPrecision: 3, EndFracPrecision: -1}}, "INTERVAL '1.5' SECOND(2, 3)"},
		{"precedence parens", &Binary{Op: "*", Left: &Binary{Op: "+", Left: ts, Right: ts}, Right: ts}, "(`ts` + `ts`) * `ts`"},
		{"right assoc parens", &Binary{Op: "-", Left: ts, Right: &Binary{Op: "-", Left: ts, Right: ts}}, "`ts` - (`ts` - `ts`)"},
		{"and or", &Binary{Op: "AND", Left: &Binary{Op: "OR", Left: ts, Right: ts}, Right: ts}, "(`ts` OR `ts`) AND `ts`"},
		{"not", &Unary{Op: "NOT", Expr: &Binary{Op: "AND", Left: ts, Right: ts}}, "NOT (`ts` AND `ts`)"},
		{"double minus", &Unary{Op: "-", Expr: &Unary{Op: "-", Expr: ts}}, "-(-`ts`)"},
		{"call upper", &FunctionCall{Name: ObjectName{Parts: []string{"proctime"}}}, "PROCTIME()"},
		{"call quoted", &FunctionCall{Name: ObjectName{Parts: []string{"my f"}}, Args: []Expr{ts}}, "`my f`(`ts`)"},
		{"call qualified", &FunctionCall{Name: ObjectName{Parts: []string{"c", "d", "f"}}}, "`c`.`d`.`f`()"},
		{"niladic", &FunctionCall{Name: ObjectName{Parts: []string{"CURRENT_DATE"}}, NoParens: true}, "CURRENT_DATE"},
		{"count star", &FunctionCall{Name: ObjectName{Parts: []string{"COUNT"}}, Star: true}, "COUNT(*)"},
		{"cast", &Cast{Expr: ts, Type: &DataType{Name: "TIMESTAMP_LTZ", Params: []int{3}}}, "CAST(`ts` AS TIMESTAMP_LTZ(3))"},
		{"is", &Is{Expr: ts, Not: true, Test: "NULL"}, "`ts` IS NOT NULL"},
		{"index", &Index{Expr: ts, Index: &Literal{Kind: IntegerLit, Text: "1"}}, "`ts`[1]"},
		{"field of call", &FieldAccess{Expr: &FunctionCall{Name: ObjectName{Parts: []string{"f"}}}, Field: "g"}, "F().`g`"},
		{"descriptor", &Descriptor{Columns: []string{"ts"}}, "DESCRIPTOR(`ts`)"},
		{"table arg", &TableArg{Name: ObjectName{Parts: []string{"t"}}}, "TABLE `t`"},
		{"named arg", &NamedArg{Name: "SIZE", Value: five}, "`SIZE` => INTERVAL '5' SECOND"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Format(tc.e))
		})
	}
}

func TestDataTypeString(t *testing.T) {
	tests := []struct {
		t    *DataType
		want string
	}{
		{nil, ""},
		{&DataType{Name: "INT", NotNull: true}, "INT NOT NULL"},
		{&DataType{Name: "DECIMAL", Params: []int{10, 2}}, "DECIMAL(10, 2)"},
		{&DataType{Name: "ARRAY", Elem: &DataType{Name: "STRING"}}, "ARRAY<STRING>"},
		{&DataType{Name: "MAP", Key: &DataType{Name: "STRING"}, Value: &DataType{Name: "INT", NotNull: true}}, "MAP<STRING, INT NOT NULL>"},
		{&DataType{Name: "ROW", Fields: []RowFieldDef{{Name: "a", Type: &DataType{Name: "INT"}, Description: "it's"}}}, "ROW<`a` INT 'it''s'>"},
		{&DataType{Name: "INTERVAL", Interval: &IntervalQualifier{Start: "DAY", StartPrecision: -1, StartFracPrecision: -1, End: "SECOND", EndFracPrecision: 3}}, "INTERVAL DAY TO SECOND(3)"},
		{&DataType{Name: "RAW", RawArgs: []string{"a.B", "x"}}, "RAW('a.B', 'x')"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			require.Equal(t, tc.want, tc.t.String())
		})
	}
}

func TestDump(t *testing.T) {
	st := &CreateTable{
		Pos:     Pos{Line: 1, Col: 1},
		Name:    ObjectName{Parts: []string{"db", "t"}},
		Columns: []ColumnDef{{Name: "a", Type: &DataType{Name: "INT"}}},
		Options: []Option{{Key: "k", Value: "v"}},
	}
	require.Equal(t, "CreateTable{Name:`db`.`t` Columns:[ColumnDef{Name:\"a\" Kind:PHYSICAL Type:INT}] Options:[Option{Key:\"k\" Value:\"v\"}]}", Dump(st))
	require.Equal(t, "nil", Dump(nil))
	require.Equal(t, "«`x`»", Dump(&Identifier{Parts: []string{"x"}}))
}

func TestObjectName(t *testing.T) {
	require.Equal(t, "", ObjectName{}.Last())
	require.Equal(t, "t", ObjectName{Parts: []string{"c", "d", "t"}}.Last())
	require.Equal(t, "`c`.`d`.`t`", ObjectName{Parts: []string{"c", "d", "t"}}.String())
}
