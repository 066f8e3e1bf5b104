"""benchmarks/: each benchmark's quick form still runs on the real parts; figures are not judged here."""
