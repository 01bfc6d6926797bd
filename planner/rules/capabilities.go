package rules

import (
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
)

// supportsProjectionPushDown reports whether a table's connector reads only
// the columns it is asked for, as Flink's SupportsProjectionPushDown
// sources do. Flink's datagen source does not: its scan produces every
// physical column and a Calc above it drops the unused ones (so EXPLAIN
// shows "Calc(select=[…])" over "TableSourceScan(…, fields=[all])").
func supportsProjectionPushDown(t *catalog.ResolvedTable) bool {
	if t == nil || t.Table == nil {
		return true
	}
	switch strings.ToLower(t.Table.Options["connector"]) {
	case "datagen":
		return false
	}
	return true
}
