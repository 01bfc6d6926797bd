package catalog

import (
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
)

// Abilities are what a table's connector can do beyond a plain scan and an
// insert-only write: the Go form of Flink's DynamicTableSource and
// DynamicTableSink ability interfaces (ScanTableSource boundedness,
// SupportsProjectionPushDown, SupportsFilterPushDown, SupportsLimitPushDown,
// LookupTableSource, DynamicTableSink#getChangelogMode).
//
// A connector factory declares them (connectors.AbilitiesFactory); the
// facade asks the table's factory when the validator resolves a table and
// stores the answer in ResolvedTable.Abilities. The planner reads only
// this: it never imports a connector nor looks at the 'connector' option.
// The zero value is Flink's plain source and sink: unbounded, no push-down,
// no lookup, insert-only writes.
type Abilities struct {
	// Bounded: a scan of the table ends (Flink's
	// ScanRuntimeProvider#isBounded), e.g. datagen with 'number-of-rows'.
	Bounded bool
	// ProjectionPushDown: the source produces only the physical columns it
	// is asked for (SupportsProjectionPushDown). Without it the scan reads
	// every physical column and a Calc above drops the unused ones.
	ProjectionPushDown bool
	// ApplyFilters, when set, is SupportsFilterPushDown#applyFilters: the
	// planner offers the conjuncts of a filter directly above the scan and
	// the source says which ones it applies (FilterResult). A source
	// receives the accepted ones in SourceSpec.Filters.
	ApplyFilters func(filters []Expression) FilterResult
	// LimitPushDown: the source can stop after a number of rows
	// (SupportsLimitPushDown). The planner keeps its Limit above the scan,
	// so a source may return more rows; it receives the limit in
	// SourceSpec.Limit.
	LimitPushDown bool
	// Lookup: the table can serve a processing-time temporal join
	// (LookupTableSource): the join becomes a LookupJoin. Without it the
	// planner fails with Flink's "Processing-time temporal join is not
	// supported yet.". Without LookupFunction the executor reads the
	// table to its end and looks keys up in memory, so such a table must
	// also be Bounded.
	Lookup bool
	// LookupFunction: the connector looks keys up itself (a
	// LookupTableSource with a lookup function): the LookupJoin asks it
	// for the rows of the keys of each input batch, through the partial
	// cache its options configure, instead of reading the table; the
	// table need not be Bounded. It implies Lookup. In batch mode the
	// join stays a regular join over a scan.
	LookupFunction bool
	// ScanMode is the set of row kinds a scan of the table produces
	// (ScanTableSource#getChangelogMode); 0 means insert-only. A
	// changelog format (debezium-json, …) makes it changelog.All: every
	// operator above the scan then takes retractions, a sink must accept
	// them, and batch mode rejects the table with Flink's error.
	// An upsert changelog (+I/+U and -D without -U, upsert-kafka) is keyed
	// by the table's PRIMARY KEY: the streaming planner puts a
	// ChangelogNormalize over it.
	ScanMode changelog.Mode
	// SinkMode is the set of row kinds the table's sink accepts
	// (DynamicTableSink#getChangelogMode); 0 means insert-only. A plan
	// whose input has other kinds is rejected with Flink's error.
	SinkMode changelog.Mode
	// ReportStatistics, when set, is SupportsStatisticReport#
	// reportStatistics: the table's statistics, computed when the planner
	// asks (the join reorder reads the row count).
	ReportStatistics func() TableStats
	// ReadableMetadata, when set, is SupportsReadingMetadata: the metadata
	// a scan can produce for METADATA columns (kafka's topic, offset, …).
	// A table that declares metadata columns without it fails with Flink's
	// error. The source receives the metadata columns read after the
	// physical ones (SourceSchema, SourceSpec.Projection).
	ReadableMetadata *MetadataKeys
	// WritableMetadata, when set, is SupportsWritingMetadata: the metadata
	// a sink can write from persisted (non-VIRTUAL) METADATA columns. The
	// sink receives them after the physical columns (SinkSchema).
	WritableMetadata *MetadataKeys
}

// MetadataKeys is the metadata a connector reads or writes: Class names
// the connector's Flink class in the error for an unknown key (Flink's
// message names it), Keys lists the keys in Flink's order.
type MetadataKeys struct {
	Class string
	Keys  []MetadataKey
}

// MetadataKey is one metadata key and the type of its value (Flink's
// listReadableMetadata / listWritableMetadata entries).
type MetadataKey struct {
	Key  string
	Type types.Type
}

// Lookup returns the type of key and whether it is listed.
func (m *MetadataKeys) Lookup(key string) (types.Type, bool) {
	if m == nil {
		return types.Type{}, false
	}
	for _, k := range m.Keys {
		if k.Key == key {
			return k.Type, true
		}
	}
	return types.Type{}, false
}

// KeyList returns the keys one a line, as Flink's message lists them.
func (m *MetadataKeys) KeyList() string {
	var s string
	for i, k := range m.Keys {
		if i > 0 {
			s += "\n"
		}
		s += k.Key
	}
	return s
}

// TableStats are a table's statistics (Flink's TableStats): RowCount is
// -1 when unknown (TableStats.UNKNOWN).
type TableStats struct {
	RowCount int64
}

// AbilitiesOf returns the abilities resolved into t, or the zero value
// (a plain source and an insert-only sink) when none were.
func AbilitiesOf(t *ResolvedTable) Abilities {
	if t == nil || t.Abilities == nil {
		return Abilities{}
	}
	return *t.Abilities
}

// ScanChangelogMode returns the row kinds a scan of t produces:
// Abilities.ScanMode, insert-only when unset.
func (a Abilities) ScanChangelogMode() changelog.Mode {
	if a.ScanMode == 0 {
		return changelog.InsertOnly
	}
	return a.ScanMode
}

// SinkChangelogMode returns the row kinds t's sink accepts: Abilities.
// SinkMode, insert-only when unset.
func (a Abilities) SinkChangelogMode() changelog.Mode {
	if a.SinkMode == 0 {
		return changelog.InsertOnly
	}
	return a.SinkMode
}

// FilterResult is a source's answer to ApplyFilters (Flink's
// SupportsFilterPushDown.Result), as indexes into the offered filters.
//
// Accepted filters are applied by the source, fully or partially (a
// partition or file pruning that may let some rows through); the scan's
// EXPLAIN digest prints them as filter=[…]. Remaining filters are those
// the planner must still evaluate above the scan. A filter may be in both
// (applied partially); one in neither is remaining as well: the planner
// drops a filter only when the source accepted it and did not name it
// remaining.
type FilterResult struct {
	Accepted  []int
	Remaining []int
}

// Expression is a resolved expression the planner offers a source or
// hands it to apply (Flink's ResolvedExpression): a FieldRef, a
// ValueLiteral or a CallExpr. It holds no planner types, so connectors
// read it without importing the planner.
type Expression interface {
	// DataType is the expression's result type.
	DataType() types.Type
	// String prints the expression as Flink's plans do: ">(a, 1)".
	String() string
}

// FieldRef reads a physical column of the scanned table (Flink's
// FieldReferenceExpression).
type FieldRef struct {
	// Name is the column's name.
	Name string
	// Index is the column's position in the table's physical schema
	// (ResolvedTable.PhysicalSchema), whatever the scan projects.
	Index int
	Type  types.Type
}

// ValueLiteral is a constant in its canonical Go form (see core/types);
// a nil Value is NULL (Flink's ValueLiteralExpression).
type ValueLiteral struct {
	Value any
	Type  types.Type
	// Text is the literal as plans print it ("1", "_UTF-16LE'x'").
	Text string
}

// CallExpr applies a function or operator by its canonical name ("=",
// "<", "AND", "IS NULL", "LIKE", "CAST", …) to arguments (Flink's
// CallExpression).
type CallExpr struct {
	Name string
	Args []Expression
	Type types.Type
}

// DataType implements Expression.
func (e *FieldRef) DataType() types.Type { return e.Type }

// DataType implements Expression.
func (e *ValueLiteral) DataType() types.Type { return e.Type }

// DataType implements Expression.
func (e *CallExpr) DataType() types.Type { return e.Type }

// String implements Expression.
func (e *FieldRef) String() string { return e.Name }

// String implements Expression.
func (e *ValueLiteral) String() string { return e.Text }

// String implements Expression.
func (e *CallExpr) String() string {
	s := e.Name + "("
	for i, a := range e.Args {
		if i > 0 {
			s += ", "
		}
		s += a.String()
	}
	return s + ")"
}
