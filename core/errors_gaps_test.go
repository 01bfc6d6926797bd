package core

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/vectorized/build"
)

func TestRuntimeErrorWithoutOperatorName(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		reason string
		op     string
	}{
		{"division", &build.OperatorError{Node: "Calc", Err: function.ErrDivideByZero}, "java.lang.ArithmeticException: / by zero", "Calc"},
		{"wrapped", fmt.Errorf("job failed: %w", &build.OperatorError{Node: "HashAggregate", Err: fmt.Errorf("boom")}), ClassRuntime + ": job failed: boom", "HashAggregate"},
		{"plain", fmt.Errorf("boom"), ClassRuntime + ": boom", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := classify(KindExecution, c.err)
			require.Equal(t, c.reason, e.Reason())
			require.Equal(t, c.op, e.Operator())
		})
	}
}

func TestDivisionByZeroReason(t *testing.T) {
	env := NewTableEnvironment(InBatchMode())
	_, err := env.ExecuteSQL(context.Background(), "SELECT a / b FROM (VALUES (1, 0)) AS t(a, b)")
	require.Error(t, err)
	require.Equal(t, "java.lang.ArithmeticException: / by zero", Reason(err))
}

func TestValidatorErrorRootCause(t *testing.T) {
	env := NewTableEnvironment(InBatchMode())
	_, err := env.ExecuteSQL(context.Background(), "SELECT nope FROM (VALUES (1)) AS t(a)")
	require.Error(t, err)
	require.Equal(t, ClassSQLValidator+": Column 'nope' not found in any table", Reason(err))
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, KindValidation, e.Kind)
	require.Equal(t, "From line 1, column 8 to line 1, column 11: Column 'nope' not found in any table", e.Detail())
}
