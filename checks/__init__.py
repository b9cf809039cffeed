"""Built-in checks of torchdoctor, registered through the entry-point group torchdoctor.checks."""
