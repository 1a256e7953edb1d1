"""The benchmarks (``python -m bench [NAME]``): one module ``bench_NAME.py`` each, printing a
table of medians, and the interop scripts that play against other projects' servers and clients.

Like the tests, it stands outside the layers: it may import any package of the project (and
starts the `arena` commands as processes); no package imports it.
"""
