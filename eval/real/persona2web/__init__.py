"""Persona2Web's 450 tasks, read at run time from <data_dir>/persona2web (no licence: never copied here)."""
