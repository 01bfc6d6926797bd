package function

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/tablerun/tablerun/core/types"
)

// AppendJSON appends the JSON form of a SQL value of type t to b, as
// JSON_STRING, JSON_ARRAY and the JSON aggregates serialize values (a
// NULL is null).
func AppendJSON(b *bytes.Buffer, v any, t types.Type) { writeSQLAsJSON(b, v, t) }

// JSONArrayAggText renders JSON_ARRAYAGG's result from the JSON texts of
// its items, in arrival order: "[1,2]".
func JSONArrayAggText(items []string) string {
	return "[" + strings.Join(items, ",") + "]"
}

// JSONObjectAggText renders JSON_OBJECTAGG's result from keys and the JSON
// texts of their values; keys are written in sorted order so that the
// result does not depend on arrival order: {"a":1,"b":null}.
func JSONObjectAggText(keys []string, values []string) string {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return keys[idx[i]] < keys[idx[j]] })
	var b bytes.Buffer
	b.WriteByte('{')
	for n, i := range idx {
		if n > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, keys[i])
		b.WriteByte(':')
		b.WriteString(values[i])
	}
	b.WriteByte('}')
	return b.String()
}

// ErrJSONObjectAggDuplicateKey is JSON_OBJECTAGG's error for a key that is
// already present in the group.
func ErrJSONObjectAggDuplicateKey(key string) error {
	return &EvalError{Class: "org.apache.flink.table.api.TableRuntimeException",
		Msg: fmt.Sprintf("Key '%s' is already present.", key)}
}
