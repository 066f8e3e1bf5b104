"""docs/: the shipped documents say what the code does (their commands run, the rules copy is whole)."""
