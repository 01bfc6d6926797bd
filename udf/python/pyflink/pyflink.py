# pyflink for tablerun's Python UDFs (gpython): pyflink.table,
# pyflink.table.udf and pyflink.common as far as UDF files use them.
