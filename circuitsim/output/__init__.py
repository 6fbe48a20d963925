"""What a run gives back and writes: results and their files (``results``, ``files``), the
run and check reports, plots, the 3D scene and its animation page, notebook views, and the
reference pages generated from the program (``docgen``)."""
