package connectors

import (
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
// 'source.monitor-interval' is set; writes insert only.
func (filesystemFactory) Abilities(t *catalog.ResolvedTable) catalog.Abilities {
	_, monitor := t.Table.Options["source.monitor-interval"]
	return boundedSource(!monitor, false)
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
