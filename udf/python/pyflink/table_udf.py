# pyflink.table.udf for tablerun's Python UDFs (gpython): udf, udtf and
# udaf as decorators and calls, the function base classes and
# FunctionContext, as PyFlink offers them. tablerun reads what a wrapper
# declares through _tablerun_udf and calls _tablerun_entry.
from pyflink.common.types import Row, RowKind
from pyflink.table.types import DataType, DataTypes, _sql_of
from _tablerun_pyflink import is_class, overrides


class _Metric(object):
    def inc(self, n=1):
        pass

    def dec(self, n=1):
        pass

    def get_count(self):
        return 0

    def mark_event(self, n=1):
        pass

    def update(self, value):
        pass


class MetricGroup(object):
    """Metrics are accepted and not reported (tablerun has no metric
    reporters)."""

    def add_group(self, name, extra=None):
        return self

    def counter(self, name):
        return _Metric()

    def gauge(self, name, obj):
        pass

    def meter(self, name, time_span_in_seconds=60):
        return _Metric()

    def distribution(self, name):
        return _Metric()


class FunctionContext(object):
    def __init__(self):
        self._metric_group = MetricGroup()

    def get_metric_group(self):
        return self._metric_group

    def get_job_parameter(self, key, default_value):
        return default_value

    def get_task_name(self):
        return "tablerun"

    def get_task_name_with_subtasks(self):
        return "tablerun (1/1)"

    def get_number_of_parallel_subtasks(self):
        return 1

    def get_max_number_of_parallel_subtasks(self):
        return 1

    def get_index_of_this_subtask(self):
        return 0

    def get_attempt_number(self):
        return 0


class UserDefinedFunction(object):
    def open(self, function_context):
        pass

    def close(self):
        pass

    def is_deterministic(self):
        return True


# _tablerun_base marks the kind of a function class (gpython's isinstance
# does not see base classes; attribute lookup on an instance does).
class ScalarFunction(UserDefinedFunction):
    _tablerun_base = "scalar"

    def eval(self, *args):
        raise NotImplementedError("ScalarFunction.eval")


class TableFunction(UserDefinedFunction):
    _tablerun_base = "table"

    def eval(self, *args):
        raise NotImplementedError("TableFunction.eval")


class AsyncScalarFunction(UserDefinedFunction):
    pass


class ImperativeAggregateFunction(UserDefinedFunction):
    def create_accumulator(self):
        raise NotImplementedError("create_accumulator")

    def accumulate(self, accumulator, *args):
        raise NotImplementedError("accumulate")

    def retract(self, accumulator, *args):
        pass

    def merge(self, accumulator, accumulators):
        pass

    def get_result_type(self):
        return None

    def get_accumulator_type(self):
        return None


class AggregateFunction(ImperativeAggregateFunction):
    _tablerun_base = "aggregate"

    def get_value(self, accumulator):
        raise NotImplementedError("get_value")


class TableAggregateFunction(ImperativeAggregateFunction):
    def emit_value(self, accumulator):
        raise NotImplementedError("emit_value")


def _is_callable(f):
    # gpython has no callable()
    return hasattr(f, "__call__")


def _unrow(v):
    if isinstance(v, Row):
        return v._tablerun_value()
    return v


def _types(ts):
    if ts is None:
        return None
    if isinstance(ts, (list, tuple)):
        out = []
        for t in ts:
            out.append(_sql_of(t))
        return out
    return [_sql_of(ts)]


def _is(f, kind):
    return getattr(f, "_tablerun_base", None) == kind


def _instance(f, kind):
    # a class is instantiated, as PyFlink does for udf(MyFunction)
    if is_class(f):
        o = f()
        if not _is(o, kind):
            raise TypeError("Invalid function: %r is not a %s function class" % (f, kind))
        return o
    return f


def _opened(obj):
    # open(FunctionContext) once, before the first call. (gpython's
    # closures cannot capture parameters: the closures here capture
    # locals.)
    o = obj
    state = [False]

    def ensure():
        if not state[0]:
            state[0] = True
            o.open(FunctionContext())
    return ensure


def _no_pandas(func_type, what):
    if func_type == "pandas":
        raise NotImplementedError("not supported yet: pandas " + what + " (func_type='pandas'): tablerun runs Python UDFs in gpython, without CPython, NumPy or pandas")
    if func_type != "general":
        raise ValueError("The func_type must be one of 'general, pandas', got %s." % (func_type,))


# The wrappers are made without constructor arguments and set up by a
# method: gpython's class call mistakes an instance passed to a
# constructor for a class (and rewrites its bases).
class UserDefinedFunctionWrapper(object):
    def _setup(self, kind, func, input_types, result, deterministic, name):
        self._func = func
        self._input_types = _types(input_types)
        self._deterministic = deterministic
        self._name = name
        self._kind = kind
        self._result = result
        self._mergeable = False
        self._tablerun_entry = None

    def _tablerun_udf(self):
        return (self._kind, self._result, self._input_types, self._mergeable)

    def __call__(self, *args):
        raise NotImplementedError("a Python UDF is called from SQL in tablerun, not from Python (no Table API expressions)")

    def alias(self, *alias_names):
        return self


class UserDefinedScalarFunctionWrapper(UserDefinedFunctionWrapper):
    def _init(self, func, input_types, result_type, deterministic, name):
        if result_type is None:
            raise TypeError("Invalid returnType: returnType should be DataType or str but is None")
        self._setup("scalar", func, input_types, _sql_of(result_type), deterministic, name)
        f = _instance(func, "scalar")
        row = _sql_of(result_type).startswith("ROW")
        if _is(f, "scalar"):
            ensure = _opened(f)
            ev = f.eval

            def entry(*args):
                ensure()
                return _unrow(ev(*args))
        elif row:
            def entry(*args):
                return _unrow(f(*args))
        elif _is_callable(f):
            entry = f
        else:
            raise TypeError("Invalid function: not a function or callable (__call__ is not defined): %r" % (f,))
        self._tablerun_entry = entry


class UserDefinedTableFunctionWrapper(UserDefinedFunctionWrapper):
    def _init(self, func, input_types, result_types, deterministic, name):
        if result_types is None:
            raise TypeError("Invalid result_types: result_types should be DataType, str or a list of them but is None")
        self._setup("table", func, input_types, _types(result_types), deterministic, name)
        f = _instance(func, "table")
        if _is(f, "table"):
            ensure = _opened(f)
            call = f.eval
        else:
            def ensure():
                pass
            call = f

        def rows(res):
            for r in res:
                yield _unrow(r)

        def entry(*args):
            ensure()
            res = call(*args)
            if res is None:
                return None
            return rows(res)
        self._tablerun_entry = entry


class _AggProxy(object):
    pass


class UserDefinedAggregateFunctionWrapper(UserDefinedFunctionWrapper):
    def _init(self, func, input_types, result_type, accumulator_type, deterministic, name):
        f = _instance(func, "aggregate")
        if not _is(f, "aggregate"):
            raise TypeError("The function of udaf must be an instance of AggregateFunction, got %r" % (f,))
        if result_type is None:
            result_type = f.get_result_type()
        if result_type is None:
            raise TypeError("Invalid returnType: returnType should be DataType or str but is None")
        self._setup("aggregate", f, input_types, _sql_of(result_type), deterministic, name)
        self._mergeable = overrides(f, "merge", ImperativeAggregateFunction)
        ensure = _opened(f)
        p = _AggProxy()
        p.create_accumulator = f.create_accumulator
        p.accumulate = f.accumulate
        if overrides(f, "retract", ImperativeAggregateFunction):
            p.retract = f.retract
        if self._mergeable:
            p.merge = f.merge
        gv = f.get_value
        p.get_value = lambda acc: _unrow(gv(acc))

        def entry():
            ensure()
            return p
        self._tablerun_entry = entry


def _scalar(f, input_types, result_type, deterministic, name):
    w = UserDefinedScalarFunctionWrapper()
    w._init(f, input_types, result_type, deterministic, name)
    return w


def _table(f, input_types, result_types, deterministic, name):
    w = UserDefinedTableFunctionWrapper()
    w._init(f, input_types, result_types, deterministic, name)
    return w


def _aggregate(f, input_types, result_type, accumulator_type, deterministic, name):
    w = UserDefinedAggregateFunctionWrapper()
    w._init(f, input_types, result_type, accumulator_type, deterministic, name)
    return w


def udf(f=None, input_types=None, result_type=None, deterministic=None, name=None, func_type="general"):
    _no_pandas(func_type, "scalar functions")
    if f is None:
        a = (input_types, result_type, deterministic, name)
        return lambda g: _scalar(g, a[0], a[1], a[2], a[3])
    return _scalar(f, input_types, result_type, deterministic, name)


def udtf(f=None, input_types=None, result_types=None, deterministic=None, name=None):
    if f is None:
        a = (input_types, result_types, deterministic, name)
        return lambda g: _table(g, a[0], a[1], a[2], a[3])
    return _table(f, input_types, result_types, deterministic, name)


def udaf(f=None, input_types=None, result_type=None, accumulator_type=None, deterministic=None, name=None, func_type="general"):
    _no_pandas(func_type, "aggregate functions")
    if f is None:
        a = (input_types, result_type, accumulator_type, deterministic, name)
        return lambda g: _aggregate(g, a[0], a[1], a[2], a[3], a[4])
    return _aggregate(f, input_types, result_type, accumulator_type, deterministic, name)


def udtaf(f=None, input_types=None, result_type=None, accumulator_type=None, deterministic=None, name=None, func_type="general"):
    raise NotImplementedError("not supported yet: Python table aggregate functions (udtaf): Flink SQL cannot call them either")
