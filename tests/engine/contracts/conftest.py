"""engine/contracts/: the TypedDicts, their JSON Schemas and the generated documents agree."""
