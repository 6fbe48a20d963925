"""The equations of motion as text: a Python module (numpy only), a C file, a LaTeX
document. Each expression set goes through sympy.cse once; the temporaries are x0, x1, ...
"""
from __future__ import annotations

import sympy as sp
from sympy.printing.numpy import NumPyPrinter

TEX_SPECIAL = {"\\": r"\textbackslash{}", "_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#",
               "$": r"\$", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
               "^": r"\textasciicircum{}"}


def _cse(exprs):
    return sp.cse(list(exprs), symbols=sp.numbered_symbols("x"), order="none")


def _unpack(names, array: str) -> str:
    return ", ".join(str(s) for s in names) + ("," if len(names) == 1 else "") + \
        f" = numpy.asarray({array}, dtype=float)"


def python_module(eqs) -> str:
    pr = NumPyPrinter({"fully_qualified_modules": True})
    n = len(eqs.joints)
    out = [f'"""Equations of motion of {eqs.source} ({eqs.title}), derived by circuitsim'
           ' by',
           "the method of connected graphs (docs/symbolic.md):",
           "",
           "    P = M(q) q'' + c(q, q') + g(q)",
           "",
           "P: the joints' drive torques (N*m) / forces (N), the flanges' tau / f (of a",
           "universal or spherical joint's angles: the torques about their rotation axes);",
           "q in the order of JOINTS, measured as COORDINATES (rad, m; 0 as drawn in the",
           "netlist).",
           "Arguments of shape (n,) or (n, ...): the entries broadcast over the trailing axes.",
           '"""',
           "import numpy", "",
           f"JOINTS = {tuple(eqs.joints)!r}",
           f"COORDINATES = {tuple(eqs.coordinates)!r}", "", "",
           "def _array(nested, shape):",
           "    if isinstance(nested, list):",
           "        return numpy.array([_array(item, shape) for item in nested])",
           "    return numpy.broadcast_to(numpy.asarray(nested, dtype=float), shape)", ""]

    def function(name, doc, args, exprs, rows):
        temps, reduced = _cse(exprs)
        out.extend(["", f"def {name}({', '.join(args)}):", f'    """{doc}"""'])
        for arg, syms in zip(args, (eqs.q, eqs.qd, eqs.qdd)):
            out.append("    " + _unpack(syms, arg))
        for sym, e in temps:
            out.append(f"    {sym} = {pr.doprint(e)}")
        values = [pr.doprint(e) for e in reduced]
        nested = ("[" + ", ".join("[" + ", ".join(values[r * n:(r + 1) * n]) + "]"
                                  for r in range(n)) + "]") if rows else \
            "[" + ", ".join(values) + "]"
        out.append(f"    return _array({nested}, numpy.shape(q1))")
    function("mass_matrix", "M(q), shape (n, n, ...).", ["q"], list(eqs.mass), True)
    function("inverse_dynamics", "P = M(q) q'' + c(q, q') + g(q), shape (n, ...).",
             ["q", "qd", "qdd"], eqs.drive, False)
    return "\n".join(out) + "\n"


def c_source(eqs, prefix: str = "") -> str:
    n = len(eqs.joints)
    out = [f"/* Equations of motion of {eqs.source} ({eqs.title}), derived by circuitsim",
           " * by the method of connected graphs:  P = M(q) q'' + c(q, q') + g(q).",
           f" * q[0..{n - 1}]: " + ", ".join(eqs.coordinates) + " (rad, m; 0 as drawn).",
           " * P: the joints' drive torques (N*m) / forces (N); M row-major. */",
           "#include <math.h>", ""]

    def function(signature, exprs, target):
        temps, reduced = _cse(exprs)
        out.append(signature + "\n{")
        used = set().union(*(sp.sympify(e).free_symbols for e in list(reduced) +
                             [e for _, e in temps]))
        for name, syms in (("q", eqs.q), ("qd", eqs.qd), ("qdd", eqs.qdd)):
            out.extend(f"    const double {s} = {name}[{i}];" for i, s in enumerate(syms)
                       if s in used)
        out.extend(f"    const double {sym} = {sp.ccode(e)};" for sym, e in temps)
        out.extend(f"    {target}[{i}] = {sp.ccode(e)};" for i, e in enumerate(reduced))
        out.append("}\n")
    function(f"void {prefix}mass_matrix(const double *q, double *M)", list(eqs.mass), "M")
    function(f"void {prefix}inverse_dynamics(const double *q, const double *qd, "
             "const double *qdd, double *P)", eqs.drive, "P")
    return "\n".join(out)


def _tex_text(text: str) -> str:
    return "".join(TEX_SPECIAL.get(ch, ch) for ch in str(text))


def latex_document(eqs) -> str:
    n = len(eqs.joints)
    names = {}
    for k in range(n):
        names[eqs.q[k]] = f"q_{{{k + 1}}}"
        names[eqs.qd[k]] = rf"\dot{{q}}_{{{k + 1}}}"
        names[eqs.qdd[k]] = rf"\ddot{{q}}_{{{k + 1}}}"

    def tex(e):
        return sp.latex(e, symbol_names=names, full_prec=False)
    coords = ", ".join(rf"$q_{{{k + 1}}}$ = \texttt{{{_tex_text(c)}}}"
                       for k, c in enumerate(eqs.coordinates))
    out = [r"\documentclass{article}", r"\usepackage{amsmath}", r"\allowdisplaybreaks",
           r"\begin{document}",
           rf"\section*{{Equations of motion: {_tex_text(eqs.title or eqs.source)}}}",
           r"Derived by circuitsim by the method of connected graphs from "
           rf"\texttt{{{_tex_text(eqs.source)}}}:",
           r"\[ P = M(q)\,\ddot{q} + c(q, \dot{q}) + g(q), \]",
           r"$P$ the joints' drive torques (N\,m) or forces (N); "
           + coords + r" (rad or m, 0 as drawn). $M$ is symmetric: $M_{lj} = M_{jl}$.",
           r"\subsection*{Mass matrix $M(q)$}", r"\begin{align*}"]
    rows = [rf"M_{{{j + 1}{l + 1}}} &= {tex(eqs.mass[j, l])}"
            for j in range(n) for l in range(j, n)]
    out.append(" \\\\\n".join(rows))
    out += [r"\end{align*}", r"\subsection*{Velocity terms $c(q, \dot{q})$}",
            r"\begin{align*}",
            " \\\\\n".join(rf"c_{{{j + 1}}} &= {tex(eqs.velocity[j])}" for j in range(n)),
            r"\end{align*}", r"\subsection*{Gravity terms $g(q)$}", r"\begin{align*}",
            " \\\\\n".join(rf"g_{{{j + 1}}} &= {tex(eqs.gravity[j])}" for j in range(n)),
            r"\end{align*}", r"\end{document}"]
    return "\n".join(out) + "\n"
