from pyflink.table import DataTypes
from pyflink.table.udf import udf, udtf, udaf, ScalarFunction, TableFunction, AggregateFunction
from pyflink.common import Row


class Scaled(ScalarFunction):
    def __init__(self):
        self.factor = 12

    def open(self, function_context):
        self.factor = int(function_context.get_job_parameter("factor", "10"))

    def eval(self, s):
        return len(s) * self.factor


scaled = udf(Scaled(), result_type=DataTypes.BIGINT())


@udf(result_type=DataTypes.BIGINT())
def add(i, j):
    return i + j


plus_one = udf(lambda i: i + 1, result_type='BIGINT')


@udf(result_type=DataTypes.ROW([DataTypes.FIELD("word", DataTypes.STRING()), DataTypes.FIELD("n", DataTypes.INT())]))
def first_word(s):
    w = s.split(" ")[0]
    return Row(word=w, n=len(w))


@udtf(result_types=[DataTypes.STRING(), DataTypes.INT()])
def split_words(s):
    for w in s.split(" "):
        yield w, len(w)


class SplitRows(TableFunction):
    def eval(self, s):
        for w in s.split(" "):
            yield Row(w, len(w))


split_rows = udtf(SplitRows(), result_types=[DataTypes.STRING(), DataTypes.INT()])


class WeightedAvg(AggregateFunction):
    def create_accumulator(self):
        return Row(0, 0)

    def get_value(self, accumulator):
        if accumulator[1] == 0:
            return None
        return accumulator[0] // accumulator[1]

    def accumulate(self, accumulator, value, weight):
        accumulator[0] += value * weight
        accumulator[1] += weight

    def retract(self, accumulator, value, weight):
        accumulator[0] -= value * weight
        accumulator[1] -= weight

    def get_result_type(self):
        return DataTypes.BIGINT()

    def get_accumulator_type(self):
        return DataTypes.ROW([DataTypes.FIELD("f0", DataTypes.BIGINT()), DataTypes.FIELD("f1", DataTypes.BIGINT())])


weighted_avg = udaf(WeightedAvg())


@udf(input_types=[DataTypes.INT()], result_type=DataTypes.STRING())
def stars(n):
    return "*" * n
