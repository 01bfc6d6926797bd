// Package agg is the hot path of GROUP BY: group hash tables that map a
// batch of key columns to dense group ids, and accumulators that update
// per-group aggregate state vectorized over those ids.
//
// One aggregation step over a batch of n rows is:
//
//	table.Insert(keyCols, n, ids)        // ids[i] = group of row i
//	for _, acc := range accs {
//		acc.Resize(table.Len())          // make room for new groups
//		acc.Update(ids[:n], argCols, filter)
//	}
//
// and at the end (or at every flush) table.Keys and acc.Evaluate produce the
// output columns, both in group-id order.
//
// Group ids are uint32, dense, 0..Len()-1, handed out in first-seen order.
// Nothing in this package is safe for concurrent use: an operator instance
// owns its tables and accumulators.
//
// Semantics follow Flink SQL (see the package's tests and
// /shared/design/flink-semantics.md): result types of SUM and AVG, NULL for
// groups without non-null input, integer SUM wrapping around, and GROUP BY
// treating all NaNs as equal and keeping -0.0 apart from 0.0 (as Flink does).
package agg
