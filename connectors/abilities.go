package connectors

import (
	"github.com/tablerun/tablerun/connectors/filesystem"
	"github.com/tablerun/tablerun/connectors/filesystem/parquet"
	"github.com/tablerun/tablerun/connectors/nexmark"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/changelog"
)

// What the built-in connectors can do (AbilitiesFactory). Their bounded
// tables serve processing-time temporal joins: the executor reads them
// once, completely, and looks keys up in memory.

// boundedSource is a source that reads its table to an end, with
// projection push-down unless noProjection.
func boundedSource(bounded, noProjection bool) catalog.Abilities {
	return catalog.Abilities{Bounded: bounded, Lookup: bounded, ProjectionPushDown: !noProjection}
}

// Abilities implements AbilitiesFactory: the rows of the 'data-id' are
// read to their end, projected.
func (valuesFactory) Abilities(*catalog.ResolvedTable) catalog.Abilities {
	return boundedSource(true, false)
}

// Abilities implements AbilitiesFactory: bounded with 'number-of-rows'.
// As Flink's DataGenTableSource, the source makes every physical column:
// a Calc above drops the unused ones.
func (datagenFactory) Abilities(t *catalog.ResolvedTable) catalog.Abilities {
	_, rows := t.Table.Options["number-of-rows"]
	return boundedSource(rows, true)
}

// Abilities implements AbilitiesFactory: bounded unless
// 'source.monitor-interval' is set; reads and writes inserts only, except
// with a changelog format, whose row kinds it reads and writes. Filters are
// pushed partially (filesystem/pushdown.go): those on partition columns
// skip partitions, and with the parquet format those on columns with
// statistics skip row groups; the plan keeps every filter.
func (filesystemFactory) Abilities(t *catalog.ResolvedTable) catalog.Abilities {
	_, monitor := t.Table.Options["source.monitor-interval"]
	a := boundedSource(!monitor, false)
	// A changelog format (debezium-json, …) reads and writes every row
	// kind (Flink's FileSystemTableSource/Sink#getChangelogMode is the
	// format's).
	if f, err := filesystem.MessageFormat(t.Table.Options); err == nil && f != nil {
		if m := f.DecodeMode(); !m.IsInsertOnly() {
			a.ScanMode = m
			a.Lookup = false
		}
		if m := f.EncodeMode(); !m.IsInsertOnly() {
			a.SinkMode = m
		}
	}
	if !monitor {
		path, format := t.Table.Options["path"], t.Table.Options["format"]
		a.ReportStatistics = func() catalog.TableStats {
			return catalog.TableStats{RowCount: filesystem.EstimateRowCount(path, format)}
		}
	}
	physical := t.PhysicalSchema()
	parquetFormat := t.Table.Options["format"] == "parquet"
	keys := map[int]bool{}
	for _, k := range t.Table.PartitionKeys {
		for i, f := range physical {
			if f.Name == k {
				keys[i] = true
			}
		}
	}
	if !parquetFormat && len(keys) == 0 {
		return a
	}
	a.ApplyFilters = func(filters []catalog.Expression) catalog.FilterResult {
		var res catalog.FilterResult
		for i, f := range filters {
			res.Remaining = append(res.Remaining, i)
			p, ok := filesystem.PushableFilter(f, physical)
			if ok && (parquetFormat || onlyColumns(p, keys)) {
				res.Accepted = append(res.Accepted, i)
			}
		}
		return res
	}
	return a
}

// onlyColumns reports a predicate that reads only the columns in cols.
func onlyColumns(p parquet.Predicate, cols map[int]bool) bool {
	if p.Or != nil {
		for _, q := range p.Or {
			if !onlyColumns(q, cols) {
				return false
			}
		}
		return true
	}
	return cols[p.Column]
}

// Abilities implements AbilitiesFactory: bounded when the generator stops
// ('events.num' or 'stop-at' without 'keep-alive').
func (nexmarkFactory) Abilities(t *catalog.ResolvedTable) catalog.Abilities {
	cfg, err := nexmark.ParseConfig(t.Table.Options)
	return boundedSource(err == nil && cfg.Bounded(), false)
}

// Abilities implements AbilitiesFactory: print writes every row kind.
func (printFactory) Abilities(*catalog.ResolvedTable) catalog.Abilities {
	return catalog.Abilities{SinkMode: changelog.All}
}

// Abilities implements AbilitiesFactory: blackhole takes every row kind.
func (blackholeFactory) Abilities(*catalog.ResolvedTable) catalog.Abilities {
	return catalog.Abilities{SinkMode: changelog.All}
}

// Abilities implements AbilitiesFactory: a legacy table can do what its
// current connector can for the translated table.
func (f legacyFactory) Abilities(t *catalog.ResolvedTable) catalog.Abilities {
	lt, err := translateLegacy(t)
	if err != nil {
		return catalog.Abilities{}
	}
	return AbilitiesOf(f.Factory, lt)
}

var (
	_ AbilitiesFactory = valuesFactory{}
	_ AbilitiesFactory = datagenFactory{}
	_ AbilitiesFactory = filesystemFactory{}
	_ AbilitiesFactory = nexmarkFactory{}
	_ AbilitiesFactory = printFactory{}
	_ AbilitiesFactory = blackholeFactory{}
	_ AbilitiesFactory = legacyFactory{}
)
