package ast

// DataType is a data type as written in SQL; a later stage resolves it.
//
// Name is upper case. Multi-word spellings are normalised: TIMESTAMP [(p)]
// WITH LOCAL TIME ZONE → TIMESTAMP_LTZ, TIMESTAMP/TIME WITHOUT TIME ZONE →
// TIMESTAMP/TIME, DOUBLE PRECISION → DOUBLE, CHARACTER/CHAR VARYING →
// VARCHAR, CHARACTER → CHAR, BINARY VARYING → VARBINARY. Other aliases
// (INT/INTEGER, DEC/NUMERIC/DECIMAL, STRING, BYTES) are kept as written.
type DataType struct {
	Pos
	Name string
	// Params are the numeric parameters, e.g. [10, 2] for DECIMAL(10, 2).
	Params []int
	// NotNull is set for a trailing NOT NULL.
	NotNull bool
	// Elem is the element type of ARRAY and MULTISET.
	Elem *DataType
	// Key and Value are the types of MAP<K, V>.
	Key   *DataType
	Value *DataType
	// Fields are the fields of ROW<...> / ROW(...).
	Fields []RowFieldDef
	// Interval is the qualifier of INTERVAL types.
	Interval *IntervalQualifier
	// RawArgs are the string arguments of RAW('class', 'snapshot').
	RawArgs []string
}

// RowFieldDef is one field of a ROW type.
type RowFieldDef struct {
	Pos
	Name        string
	Type        *DataType
	Description string
}
