# pyflink.table for tablerun's Python UDFs: the names a UDF file imports.
from pyflink.common.types import Row, RowKind
from pyflink.table.types import DataType, DataTypes
from pyflink.table.udf import FunctionContext, ScalarFunction, TableFunction, AggregateFunction, \
    TableAggregateFunction, udf, udtf, udaf, udtaf
