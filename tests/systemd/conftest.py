"""systemd/: the unit and install.sh, read key by key and run for real into a temporary prefix."""
