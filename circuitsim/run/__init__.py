"""Running prepared cases: one case elaborated and assembled once (``case``), sweeps on
several processes (``parallel``), the comparison of a netlist's studies (``studies``)."""
