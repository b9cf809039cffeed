"""The code that reads, splits and checks the corpora of ``tests/corpus/``, which holds records only."""
