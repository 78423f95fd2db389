"""π-Bench's 100 tasks, read at run time from <data_dir>/pibench (no licence: never copied here)."""
