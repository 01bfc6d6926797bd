package connectors

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
)

// OptionLister is an optional capability of a Factory whose accepted option
// keys depend on the table (datagen lists per-field keys by type and kind;
// filesystem lists the keys of the chosen format).
// When a factory implements it, ValidateOptions uses its list instead of
// expanding the '#' patterns of RequiredOptions/OptionalOptions.
type OptionLister interface {
	SupportedOptions(opts map[string]string, schema types.Schema) []string
}

// ValidateOptions checks a table's options against a factory, as Flink does
// when a table is used: first the missing required options ("One or more
// required options are missing…"), then the keys no option consumes
// ("Unsupported options found for 'datagen'…"). A key pattern with '#'
// stands for every physical column name; the 'connector' key is always
// accepted.
func ValidateOptions(f Factory, t *catalog.ResolvedTable) error {
	if isLegacy(t) { // legacy.go: the translated options are checked
		lt, err := translateLegacy(t)
		if err != nil {
			return err
		}
		t = lt
	}
	opts := t.Table.Options
	schema := t.PhysicalSchema()
	var missing []string
	for _, k := range ExpandOptionPatterns(f.RequiredOptions(), schema) {
		if _, ok := opts[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return MissingOptionsError(missing)
	}
	var supported []string
	if l, ok := f.(OptionLister); ok {
		supported = l.SupportedOptions(opts, schema)
	} else {
		supported = ExpandOptionPatterns(append(append([]string{}, f.RequiredOptions()...), f.OptionalOptions()...), schema)
	}
	return CheckUnsupported(f.Identifier(), opts, supported)
}

// ExpandOptionPatterns replaces each pattern containing '#' by one key per
// column name ("fields.#.kind" → "fields.a.kind", "fields.b.kind").
func ExpandOptionPatterns(patterns []string, schema types.Schema) []string {
	var out []string
	for _, p := range patterns {
		if !strings.Contains(p, "#") {
			out = append(out, p)
			continue
		}
		for _, f := range schema {
			out = append(out, strings.ReplaceAll(p, "#", f.Name))
		}
	}
	return out
}

// MissingOptionsError is Flink's error for absent required options.
func MissingOptionsError(keys []string) error {
	keys = append([]string(nil), keys...)
	sort.Strings(keys)
	return fmt.Errorf("One or more required options are missing.\n\nMissing required options are:\n\n%s", strings.Join(keys, "\n"))
}

// CheckUnsupported returns Flink's "Unsupported options found for '<id>'"
// error when opts holds keys outside supported ('connector' is always
// supported), or nil.
func CheckUnsupported(identifier string, opts map[string]string, supported []string) error {
	set := map[string]bool{"connector": true}
	for _, k := range supported {
		set[k] = true
	}
	var bad []string
	for k := range opts {
		if !set[k] {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	all := make([]string, 0, len(set))
	for k := range set {
		all = append(all, k)
	}
	sort.Strings(all)
	return fmt.Errorf("Unsupported options found for '%s'.\n\nUnsupported options:\n\n%s\n\nSupported options:\n\n%s",
		identifier, strings.Join(bad, "\n"), strings.Join(all, "\n"))
}
