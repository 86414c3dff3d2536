"""Figures of the book, one module per topic; each function returns a matplotlib Figure.

Lecturers can reuse any figure with one call; every module names the chapter it serves.
Importing this package does not import matplotlib's pyplot state machine until a figure
is drawn.
"""
