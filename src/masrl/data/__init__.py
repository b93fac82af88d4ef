"""The survey's data: one loader per data file, each validating its file."""
