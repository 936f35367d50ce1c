"""Learning benchmarks: one RL pipeline trained for a wall-time budget on whole ramsar, evaluated as it goes.

Run: ``python -m benchmarks.learning PIPELINE --minutes M`` (``--help`` for the options). The
pipelines and the harness are in :mod:`benchmarks.learning.harness`.
"""
