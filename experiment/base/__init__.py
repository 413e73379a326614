"""The base every stage stands on: the frozen records that flow through the pipeline (`types`),
typed errors (`errors`), the files factqa owns and writes atomically (`files`), where a command
will write (`outputs`), groups and dealt samples (`groups`), capped input (`streams`) and the
shell-quoted command line of a run's settings (`command`).

Enters: nothing of the package; Python's standard library only.
Leaves: the types and helpers every stage imports.

Trade-offs: one folder of small modules at the bottom of the import graph, so that the package's
top level holds only the orchestration (config, runner, cli, progress) and a stage never reaches
up for a shared name.
"""
