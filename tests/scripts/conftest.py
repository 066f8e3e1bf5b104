"""scripts/: each tool runs as a module from the root; its pictures go to the test's folder."""
