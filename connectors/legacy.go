package connectors

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/vectorized"
)

// Flink's legacy connector descriptors ('connector.type' = 'filesystem',
// 'connector.path', 'format.type' = 'csv'), which Flink 1.x still reads
// and the Nexmark suite uses (q13's side input): a table declared with
// them is read and written through the current connector, its options
// translated. Only the filesystem descriptor is known; any other legacy
// type, or a legacy key without a translation, is an error naming it.

// legacyKeys maps the legacy filesystem descriptor's keys to the current
// ones ("" drops a key that has no effect here).
var legacyKeys = map[string]string{
	"connector.type":             "connector",
	"connector.path":             "path",
	"connector.property-version": "",
	"format.type":                "format",
	"format.property-version":    "",
	"format.field-delimiter":     "csv.field-delimiter",
	"format.quote-character":     "csv.quote-character",
	"format.allow-comments":      "csv.allow-comments",
	"format.ignore-parse-errors": "csv.ignore-parse-errors",
	"format.null-literal":        "csv.null-literal",
	"format.derive-schema":       "",
}

// isLegacy reports whether a table uses a legacy descriptor.
func isLegacy(t *catalog.ResolvedTable) bool {
	_, cur := t.Table.Options["connector"]
	_, old := t.Table.Options["connector.type"]
	return !cur && old
}

// translateLegacy returns the table with its legacy options replaced by
// the current filesystem connector's.
func translateLegacy(t *catalog.ResolvedTable) (*catalog.ResolvedTable, error) {
	opts := t.Table.Options
	if typ := opts["connector.type"]; typ != "filesystem" {
		return nil, fmt.Errorf("not supported yet: the legacy connector descriptor 'connector.type' = '%s' (use 'connector' = '…' with the current options)", typ)
	}
	out := map[string]string{}
	var unknown []string
	for k, v := range opts {
		nk, ok := legacyKeys[k]
		switch {
		case !ok:
			unknown = append(unknown, k)
		case nk == "":
		case nk == "path":
			out[nk] = strings.TrimPrefix(v, "file://")
		default:
			out[nk] = v
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("not supported yet: legacy connector option(s) %s of table %s", strings.Join(unknown, ", "), t.ID.Summary())
	}
	tc := *t.Table
	tc.Options = out
	rt := *t
	rt.Table = &tc
	return &rt, nil
}

// legacyFactory opens the tables of a legacy descriptor through the
// current connector.
type legacyFactory struct{ Factory }

func (f legacyFactory) CreateSource(cx *Context, spec SourceSpec) (vectorized.Source, error) {
	t, err := translateLegacy(spec.Table)
	if err != nil {
		return nil, err
	}
	spec.Table = t
	return f.Factory.CreateSource(cx, spec)
}

func (f legacyFactory) CreateSink(cx *Context, spec SinkSpec) (Sink, error) {
	t, err := translateLegacy(spec.Table)
	if err != nil {
		return nil, err
	}
	spec.Table = t
	return f.Factory.CreateSink(cx, spec)
}
