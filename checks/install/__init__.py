"""Installation: the torch build, the libraries it loaded, companion packages and their pairing table."""
