"""Numbering of unknowns and assembly of F(t, y, y') = 0 from the element kernels."""
