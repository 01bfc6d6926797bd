# pyflink.common.types for tablerun's Python UDFs (gpython): Row and
# RowKind as PyFlink's, for UDF files written for PyFlink.


class RowKind(object):
    INSERT = 0
    UPDATE_BEFORE = 1
    UPDATE_AFTER = 2
    DELETE = 3


class Row(object):
    """A row of values, by position (Row(1, 'a')) or by field name
    (Row(id=1, name='a')); Row('id', 'name') makes a row class that is
    called with the values."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Can not use both args and kwargs to create Row")
        self._row_kind = RowKind.INSERT
        # (loops, not comprehensions: gpython's comprehensions cannot
        # read the enclosing function's parameters)
        if kwargs:
            kw = kwargs
            names = sorted(kw.keys())
            self._fields = names
            self._values = []
            for n in names:
                self._values.append(kw[n])
        else:
            self._fields = None
            self._values = list(args)

    def __call__(self, *args):
        if self._fields is not None:
            raise TypeError("Row is not callable")
        if len(args) > len(self._values):
            raise ValueError("Can not create Row with fields %s, expected %d values but got %s"
                             % (self._values, len(self._values), args))
        r = Row(*args)
        r._fields = list(self._values)
        return r

    def as_dict(self, recursive=False):
        if self._fields is None:
            raise TypeError("Cannot convert a Row class into dict")
        out = {}
        for i in range(len(self._fields)):
            out[self._fields[i]] = self._values[i]
        return out

    def get_row_kind(self):
        return self._row_kind

    def set_row_kind(self, row_kind):
        self._row_kind = row_kind

    def set_field_names(self, field_names):
        self._fields = list(field_names)

    def get_fields_by_names(self, names):
        out = []
        for n in names:
            out.append(self[n])
        return out

    def _index(self, item):
        if isinstance(item, str):
            if self._fields is None:
                raise KeyError(item)
            for i in range(len(self._fields)):
                if self._fields[i] == item:
                    return i
            raise KeyError(item)
        return item

    def __getitem__(self, item):
        return self._values[self._index(item)]

    def __setitem__(self, key, value):
        self._values[self._index(key)] = value

    def __len__(self):
        return len(self._values)

    def __iter__(self):
        return iter(self._values)

    def __eq__(self, other):
        if not isinstance(other, Row):
            return False
        return self._values == other._values and self._fields == other._fields

    def __ne__(self, other):
        return not self.__eq__(other)

    def __repr__(self):
        if self._fields is not None:
            parts = []
            for i in range(len(self._fields)):
                parts.append("%s=%r" % (self._fields[i], self._values[i]))
            return "Row(" + ", ".join(parts) + ")"
        parts = []
        for v in self._values:
            parts.append(repr(v))
        return "Row(" + ", ".join(parts) + ")"

    def __str__(self):
        return self.__repr__()

    def _tablerun_value(self):
        # a ROW result: by field name when the row has names
        if self._fields is not None:
            return self.as_dict()
        return tuple(self._values)
