"""τ²-bench retail, in process (MIT; see NOTICE in this folder)."""
