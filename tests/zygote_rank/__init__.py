"""A package, as the rank program's is (``torchdoctor.checks.ddp``): ``python -m`` runs a module of a package
differently from a top-level one."""
