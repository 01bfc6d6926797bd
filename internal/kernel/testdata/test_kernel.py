"""The jupyter_kernel_test conformance suite against the tablerun kernel.

Run by TestJupyterKernelTest (kernel_python_test.go), which installs a
kernelspec named "tablerun" under a temporary JUPYTER_PATH first.
"""

import unittest

import jupyter_kernel_test


class TablerunKernelTests(jupyter_kernel_test.KernelTests):
    kernel_name = "tablerun"
    language_name = "sql"
    file_extension = ".sql"

    # The print connector's output is the cell's stdout / stderr.
    code_hello_world = (
        "CREATE TEMPORARY TABLE IF NOT EXISTS hello (s STRING) WITH ('connector' = 'print');\n"
        "INSERT INTO hello VALUES ('hello, world')"
    )
    code_stderr = (
        "CREATE TEMPORARY TABLE IF NOT EXISTS hello_err (s STRING)"
        " WITH ('connector' = 'print', 'standard-error' = 'true');\n"
        "INSERT INTO hello_err VALUES ('oops')"
    )

    completion_samples = [
        {"text": "SELEC", "matches": {"SELECT"}},
        {"text": "SELECT UPP", "matches": {"UPPER"}},
    ]

    complete_code_samples = ["SELECT 1;", "SELECT 1", "SELECT 'a;b';", "SELECT 1; -- done"]
    incomplete_code_samples = ["SELECT 'abc", "SELECT 1 /* comment", "SELECT 1 FROM"]

    code_generate_error = "SELECT * FROM no_such_table"

    code_execute_result = [
        {
            "code": "SELECT 1 + 1 AS two",
            "result": "+-----+\n| two |\n+-----+\n|   2 |\n+-----+\n1 row in set",
        },
        {"code": "SELECT 'x' AS s", "mime": "text/html"},
    ]

    code_display_data = [{"code": "SELECT 1; SELECT 2", "mime": "text/html"}]

    code_inspect_sample = "UPPER"

    code_page_something = "HELP;"

    code_history_pattern = "SELECT 1 + 1*"
    supported_history_operations = ("tail", "range", "search")


if __name__ == "__main__":
    unittest.main()
