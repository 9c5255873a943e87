"""The file tools: reading, writing, editing, listing and searching files inside the workspace.

``operations`` holds read_file, write_file, edit_file and list_dir; ``search`` glob_search and
grep_search (over ``walk``, ``grep_scan``, ``patterns`` and the time-boxed ``regex_fallback``
child ``regex_worker``). Only regular files are opened (``regular``), a read streams bounded
chunks (``read_lines``), and a write replaces the file atomically (``atomic_write``).
"""
