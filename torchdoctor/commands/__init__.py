"""CLI commands beyond check and list, one module each; torchdoctor.cli registers them."""
