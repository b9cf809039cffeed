"""Running checks: found through their entry points, their options taken, their probes run in workers and
their facts judged, into one Report.

- ``registry``: the checks and explanations the installed distributions declare (entry points), without
  importing them here.
- ``options``: the options checks declare, merged into the commands and validated before anything runs.
- ``runner``: a worker session; probes run under deadlines, judges run in the worker (``hosted``).
- ``doctor``: one diagnosis, and the one place a Report is assembled from facts.
- ``exitcodes``: the documented exit codes.
- ``cluster``: the same doctor on every rank of a launched job.
"""
