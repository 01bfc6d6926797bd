// Package ops holds the vectorized operators of the batch executor, one
// file per operator: Calc, HashAggregate, HashJoin, NestedLoopJoin, Sort,
// SortLimit, Limit, Union, SetOp (HashIntersect / HashMinus), Values and the
// Sink adapter.
//
// Single-input operators implement vectorized.Operator. Two-input operators
// (joins, set operations) implement BinaryOperator: the whole build (right)
// input is pushed first, then the probe (left) input streams through.
//
// Operators receive already compiled expressions through the small Evaluator
// and Selector interfaces (vectorized/expr's evaluators satisfy them);
// vectorized/build compiles the plan's expressions and wires the operators.
// Nothing in this package is safe for concurrent use: each operator instance
// belongs to one pipeline.
package ops

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/vectorized"
)

// Evaluator computes one output column from a record batch. The result has
// the batch's number of rows and belongs to the caller.
type Evaluator interface {
	Eval(rec arrow.RecordBatch) (arrow.Array, error)
}

// Selector evaluates a boolean condition over a record batch and returns
// the indexes, ascending, of the rows where it is TRUE (NULL and FALSE rows
// are dropped).
type Selector interface {
	Select(rec arrow.RecordBatch) ([]int32, error)
}

// BinaryOperator is a push-based operator with two inputs: a build side
// (the right input, consumed completely first) and a probe side (the left
// input, streamed).
//
// Calling protocol, from one goroutine: Open once; ProcessBuild once per
// build batch; FinishBuild once after the last build batch (also when the
// build side was empty); then Process once per probe batch and OnMarker for
// the probe side's markers, the EndOfInput marker last (the operator emits
// what it still holds, such as the unmatched build rows of a right or full
// join, and forwards the marker); Close once, also after an error.
type BinaryOperator interface {
	Open(ctx context.Context) error
	ProcessBuild(ctx context.Context, b vectorized.Batch) error
	FinishBuild(ctx context.Context) error
	Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error
	OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error
	Close() error
}

// LimitReached is returned (wrapped or not) by a Limit operator's Process
// once it has emitted every row it will ever emit: the driver stops feeding
// it, treats the input as finished and sends it EndOfInput. Each Limit
// returns its own value, so that nested limits do not confuse each other;
// use IsLimitReached to check which one fired.
type LimitReached struct {
	op *Limit
}

// Error implements error.
func (e *LimitReached) Error() string { return "limit reached" }

// IsLimitReached reports whether err is (or wraps) the end signal of the
// given Limit operator.
func IsLimitReached(err error, l *Limit) bool {
	var lr *LimitReached
	return errors.As(err, &lr) && lr.op == l
}

// batchSize is the number of rows operators put in the batches they build.
const batchSize = vectorized.DefaultBatchSize
