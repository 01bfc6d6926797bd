# pyflink.table.types for tablerun's Python UDFs: DataTypes builds the SQL
# type each PyFlink data type stands for.
from pyflink.common.types import Row, RowKind


class DataType(object):
    """A data type: its SQL text and nullability."""

    def __init__(self, sql, nullable=True):
        self._sql = sql
        self._nullable = nullable

    def not_null(self):
        return DataType(self._sql, False)

    def nullable(self):
        return DataType(self._sql, True)

    def _tablerun_sql(self):
        if self._nullable:
            return self._sql
        return self._sql + " NOT NULL"

    def __repr__(self):
        return "DataType(" + self._tablerun_sql() + ")"

    def __str__(self):
        return self._tablerun_sql()

    def __eq__(self, other):
        return isinstance(other, DataType) and self._tablerun_sql() == other._tablerun_sql()

    def __ne__(self, other):
        return not self.__eq__(other)


class RowField(object):
    def __init__(self, name, data_type, description=None):
        self.name = name
        self.data_type = data_type
        self.description = description


class Resolution(object):
    def __init__(self, unit, precision=-1):
        self.unit = unit
        self.precision = precision

    def _sql(self):
        if self.precision < 0:
            return self.unit
        return "%s(%d)" % (self.unit, self.precision)


def _sql_of(t):
    if isinstance(t, DataType):
        return t._tablerun_sql()
    if isinstance(t, str):
        return t
    raise TypeError("Invalid data type: %r (a DataType or a type string)" % (t,))


def _quote(name):
    return "`" + name.replace("`", "``") + "`"


class _DataTypes(object):
    """DataTypes.INT(), DataTypes.ROW([DataTypes.FIELD('a', DataTypes.INT())]), …"""

    def NULL(self):
        return DataType("NULL")

    def CHAR(self, length, nullable=True):
        return DataType("CHAR(%d)" % length, nullable)

    def VARCHAR(self, length, nullable=True):
        return DataType("VARCHAR(%d)" % length, nullable)

    def STRING(self, nullable=True):
        return DataType("STRING", nullable)

    def BOOLEAN(self, nullable=True):
        return DataType("BOOLEAN", nullable)

    def BINARY(self, length, nullable=True):
        return DataType("BINARY(%d)" % length, nullable)

    def VARBINARY(self, length, nullable=True):
        return DataType("VARBINARY(%d)" % length, nullable)

    def BYTES(self, nullable=True):
        return DataType("BYTES", nullable)

    def DECIMAL(self, precision, scale, nullable=True):
        return DataType("DECIMAL(%d, %d)" % (precision, scale), nullable)

    def TINYINT(self, nullable=True):
        return DataType("TINYINT", nullable)

    def SMALLINT(self, nullable=True):
        return DataType("SMALLINT", nullable)

    def INT(self, nullable=True):
        return DataType("INT", nullable)

    def BIGINT(self, nullable=True):
        return DataType("BIGINT", nullable)

    def FLOAT(self, nullable=True):
        return DataType("FLOAT", nullable)

    def DOUBLE(self, nullable=True):
        return DataType("DOUBLE", nullable)

    def DATE(self, nullable=True):
        return DataType("DATE", nullable)

    def TIME(self, precision=0, nullable=True):
        return DataType("TIME(%d)" % precision, nullable)

    def TIMESTAMP(self, precision=6, nullable=True):
        return DataType("TIMESTAMP(%d)" % precision, nullable)

    def TIMESTAMP_LTZ(self, precision=6, nullable=True):
        return DataType("TIMESTAMP_LTZ(%d)" % precision, nullable)

    def TIMESTAMP_WITH_LOCAL_TIME_ZONE(self, precision=6, nullable=True):
        return DataType("TIMESTAMP_LTZ(%d)" % precision, nullable)

    def ARRAY(self, element_type, nullable=True):
        return DataType("ARRAY<" + _sql_of(element_type) + ">", nullable)

    def MAP(self, key_type, value_type, nullable=True):
        return DataType("MAP<" + _sql_of(key_type) + ", " + _sql_of(value_type) + ">", nullable)

    def MULTISET(self, element_type, nullable=True):
        return DataType("MULTISET<" + _sql_of(element_type) + ">", nullable)

    def LIST_VIEW(self, element_type):
        raise NotImplementedError("not supported yet: DataTypes.LIST_VIEW (data views of Python aggregate functions)")

    def MAP_VIEW(self, key_type, value_type):
        raise NotImplementedError("not supported yet: DataTypes.MAP_VIEW (data views of Python aggregate functions)")

    def FIELD(self, name, data_type, description=None):
        return RowField(name, data_type, description)

    def ROW(self, row_fields=[], nullable=True):
        parts = []
        for f in row_fields:
            if not isinstance(f, RowField):
                raise TypeError("DataTypes.ROW takes DataTypes.FIELD(name, type) fields, not %r" % (f,))
            parts.append(_quote(f.name) + " " + _sql_of(f.data_type))
        return DataType("ROW<" + ", ".join(parts) + ">", nullable)

    def SECOND(self, precision=6):
        return Resolution("SECOND", precision)

    def MINUTE(self):
        return Resolution("MINUTE")

    def HOUR(self):
        return Resolution("HOUR")

    def DAY(self, precision=2):
        return Resolution("DAY", precision)

    def MONTH(self):
        return Resolution("MONTH")

    def YEAR(self, precision=2):
        return Resolution("YEAR", precision)

    def INTERVAL(self, upper_resolution, lower_resolution=None):
        if lower_resolution is None:
            return DataType("INTERVAL " + upper_resolution._sql())
        return DataType("INTERVAL " + upper_resolution._sql() + " TO " + lower_resolution._sql())


DataTypes = _DataTypes()
