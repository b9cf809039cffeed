"""Training code: the errors it raises (explanations only; torchdoctor.audit and lint read the code)."""
