"""What torchdoctor writes, made safe: redaction, inert text, guarded streams, one-line messages."""
