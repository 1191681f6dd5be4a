"""Property tables: the table, its formats, and its proof marks, continuous and discrete."""
