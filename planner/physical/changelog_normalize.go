package physical

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
)

// ChangelogNormalize (Flink's StreamPhysicalChangelogNormalize) sits over
// a source that reads an upsert changelog (its connector's
// catalog.Abilities.ScanMode has +U without -U: upsert-kafka) behind a
// hash Exchange on the table's primary key: it keeps the last row per key
// and emits the full changelog (+I, -U/+U, -D with the old row).
type ChangelogNormalize struct {
	Input Node
	Keys  []int
	Out   types.Schema
}

// Schema implements Node.
func (n *ChangelogNormalize) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *ChangelogNormalize) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *ChangelogNormalize) WithChildren(ch []Node) Node { c := *n; c.Input = ch[0]; return &c }

// Name implements Node.
func (n *ChangelogNormalize) Name() string { return "ChangelogNormalize" }

// Mode implements Node: every row kind.
func (n *ChangelogNormalize) Mode() changelog.Mode { return changelog.All }

// Explain implements Node.
func (n *ChangelogNormalize) Explain(bool) string {
	in := uniquify(n.Input.Schema().Names())
	keys := make([]string, len(n.Keys))
	for i, k := range n.Keys {
		keys[i] = colName(in, k)
	}
	return "key=[" + strings.Join(keys, ", ") + "]"
}

// upsertSource is true for a scan whose connector reads an upsert
// changelog.
func upsertSource(s *TableSourceScan) bool {
	m := s.Mode()
	return !m.IsInsertOnly() && !m.Contains(changelog.UpdateBefore)
}

// normalizeUpsert plans ChangelogNormalize over an upsert source, keyed
// by the table's primary key.
func normalizeUpsert(s *TableSourceScan) (Node, error) {
	if !upsertSource(s) {
		return s, nil
	}
	pk := s.Table.Table.PrimaryKey
	if pk == nil || len(pk.Columns) == 0 {
		return nil, fmt.Errorf("not supported yet: an upsert source without a PRIMARY KEY (%s)", s.Table.ID.Summary())
	}
	var keys []int
	for _, c := range pk.Columns {
		idx := -1
		for i, f := range s.Out {
			if f.Name == c {
				idx = i
			}
		}
		if idx < 0 {
			return nil, fmt.Errorf("not supported yet: a scan of the upsert source %s without its key column '%s'", s.Table.ID.Summary(), c)
		}
		keys = append(keys, idx)
	}
	return &ChangelogNormalize{Input: &Exchange{Input: s, Keys: keys}, Keys: keys, Out: s.Out}, nil
}

// Capabilities (node.go).

// ParallelSafe implements ParallelSafe.
func (n *ChangelogNormalize) ParallelSafe() bool { return true }

// StreamOnly implements StreamOnly.
func (n *ChangelogNormalize) StreamOnly() bool { return true }
