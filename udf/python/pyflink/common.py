# pyflink.common for tablerun's Python UDFs: the parts a UDF file uses.
from pyflink.common.types import Row, RowKind
