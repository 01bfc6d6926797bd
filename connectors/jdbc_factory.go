package connectors

import (
	"github.com/tablerun/tablerun/connectors/jdbc"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/vectorized"
)

// ---- jdbc ----

// jdbcFactory is Flink's 'jdbc' connector (connectors/jdbc) for
// PostgreSQL.
type jdbcFactory struct{}

func (jdbcFactory) Identifier() string        { return "jdbc" }
func (jdbcFactory) RequiredOptions() []string { return jdbc.RequiredOptions() }
func (jdbcFactory) OptionalOptions() []string { return jdbc.OptionalOptions() }

// options checks a table's options and types as Flink's
// JdbcDynamicTableFactory: unsupported keys, then the option values, then
// the dialect's types.
func (f jdbcFactory) options(t *catalog.ResolvedTable) (*jdbc.Options, error) {
	if err := ValidateOptions(f, t); err != nil {
		return nil, err
	}
	o, err := jdbc.ParseOptions(t.Table.Options)
	if err != nil {
		return nil, err
	}
	if err := jdbc.ValidateTypes(t.PhysicalSchema()); err != nil {
		return nil, err
	}
	return o, nil
}

func (f jdbcFactory) CreateSource(cx *Context, spec SourceSpec) (vectorized.Source, error) {
	o, err := f.options(spec.Table)
	if err != nil {
		return nil, err
	}
	return jdbc.NewSource(jdbc.ScanSpec{Options: o, Schema: spec.Table.PhysicalSchema(), Projection: spec.Projection,
		Filters: spec.Filters, Limit: spec.Limit, BatchSize: batchSize(cx)})
}

// Splittable implements SplittableFactory: a scan with scan.partition.*
// deals its ranges out to the instances.
func (jdbcFactory) Splittable(spec SourceSpec) bool {
	if spec.Table == nil {
		return false
	}
	_, ok := spec.Table.Table.Options[jdbc.KeyPartitionColumn]
	return ok
}

func (f jdbcFactory) CreateSink(cx *Context, spec SinkSpec) (Sink, error) {
	o, err := f.options(spec.Table)
	if err != nil {
		return nil, err
	}
	physical := spec.Table.PhysicalSchema()
	return jdbc.NewSink(jdbc.SinkSpec{Options: o, Schema: physical, Keys: primaryKeyIndexes(spec.Table)})
}

// CreateLookup implements LookupFactory.
func (f jdbcFactory) CreateLookup(cx *Context, spec LookupSpec) (vectorized.LookupFunction, *vectorized.LookupCache, error) {
	o, err := f.options(spec.Table)
	if err != nil {
		return nil, nil, err
	}
	fn, err := jdbc.NewLookup(jdbc.LookupSpec{Options: o, Schema: spec.Table.PhysicalSchema(), Projection: spec.Projection,
		Keys: spec.Keys, Filters: spec.Filters})
	if err != nil {
		return nil, nil, err
	}
	var cache *vectorized.LookupCache
	if c := o.Cache; c != nil {
		cache = &vectorized.LookupCache{MaxRows: c.MaxRows, ExpireAfterWrite: c.ExpireAfterWrite,
			ExpireAfterAccess: c.ExpireAfterAccess, CacheMissingKey: c.CacheMissingKey}
	}
	return fn, cache, nil
}

// Abilities implements AbilitiesFactory: a bounded scan with projection,
// filter (the conjuncts jdbc.Pushable accepts) and limit push-down; a
// lookup function for temporal joins; an upsert sink with a primary key.
func (jdbcFactory) Abilities(t *catalog.ResolvedTable) catalog.Abilities {
	physical := t.PhysicalSchema()
	a := catalog.Abilities{Bounded: true, ProjectionPushDown: true, LimitPushDown: true,
		Lookup: true, LookupFunction: true}
	a.ApplyFilters = func(filters []catalog.Expression) catalog.FilterResult {
		var res catalog.FilterResult
		for i, f := range filters {
			if jdbc.Pushable(f, physical) {
				res.Accepted = append(res.Accepted, i)
			} else {
				res.Remaining = append(res.Remaining, i)
			}
		}
		return res
	}
	if len(primaryKeyIndexes(t)) > 0 {
		a.SinkMode = changelog.Upsert
	}
	return a
}

// primaryKeyIndexes returns the physical indexes of t's PRIMARY KEY.
func primaryKeyIndexes(t *catalog.ResolvedTable) []int {
	if t.Table.PrimaryKey == nil {
		return nil
	}
	physical := t.PhysicalSchema()
	var out []int
	for _, c := range t.Table.PrimaryKey.Columns {
		for i, f := range physical {
			if f.Name == c {
				out = append(out, i)
			}
		}
	}
	return out
}

var (
	_ AbilitiesFactory  = jdbcFactory{}
	_ SplittableFactory = jdbcFactory{}
	_ LookupFactory     = jdbcFactory{}
)
