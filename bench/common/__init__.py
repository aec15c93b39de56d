"""What the benchmark runners share.

- `reference`: the reference library's interpreter (``bench/.venv-ref``, synalinks
  0.10.14, built by ``setup_reference.sh``), ours, and a workload's environment;
- `workloads`: running a workload script in a library's interpreter and reading
  the JSON line it prints last;
- `stats`: medians over repeated runs;
- `tables`: the side-by-side text tables the runners print.
"""
