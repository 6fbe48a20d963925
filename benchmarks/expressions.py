"""What a compiled brace expression costs per call, and a behavioural source driven by a
long expression of time, against another checkout of circuitsim and sympy's lambdify.

    python benchmarks/expressions.py per-call            this checkout's per-call costs
    python benchmarks/expressions.py netlist FILE        writes the behavioural netlist
    python benchmarks/expressions.py run FILE            simulates it (one whole process)

``per-call`` prints, for a short expression and one of about 4 kB (a sum of terms in
sin, cos, exp and powers of time), microseconds per scalar call of ``compile_`` and of
the same formula through ``sympy.lambdify`` (numpy module). Run it with PYTHONPATH set
to each checkout to compare them; time ``run`` as whole processes, the two checkouts
alternated, for the netlist.
"""
import sys
import timeit

SHORT = "0.1*sin(2*pi*3*time) + 0.05*cos(5*time)^2 - exp(-time/0.2)"


def long_expression(terms: int = 60) -> str:
    """About 4 kB: terms a_k sin(w_k time + p_k) (1 + b_k time^2) exp(-c_k time)."""
    parts = [f"{0.01 * (k + 1):.4f}*sin({1.3 * k + 0.7:.4f}*time + {0.1 * k:.3f})"
             f"*(1 + {0.002 * k:.4f}*time^2)*exp(-{0.05 * k:.3f}*time)"
             for k in range(terms)]
    return " + ".join(parts)


def per_call_us(fn, arg: float = 0.37) -> float:
    calls = 2000
    return min(timeit.repeat(lambda: fn(arg), number=calls, repeat=7)) / calls * 1e6


def per_call() -> None:
    import sympy
    from circuitsim.netlist.parser import parse_expression
    from circuitsim.runtime.expressions import compile_
    for label, text in (("short", SHORT), (f"{len(long_expression())} B", long_expression())):
        fn = compile_(parse_expression(text), ["time"])
        t = sympy.Symbol("time")
        formula = sympy.sympify(text.replace("^", "**"), locals={"time": t})
        reference = sympy.lambdify(t, formula, "numpy")
        print(f"{label}: compiled {per_call_us(fn):.2f} us, "
              f"lambdify {per_call_us(reference):.2f} us per call")


def netlist(path: str) -> None:
    """An RC low-pass driven by a behavioural source whose current is the long expression."""
    with open(path, "w") as f:
        f.write(f"* a behavioural source driven by a long expression of time\n"
                f"B B1 a 0 I={{{long_expression()} + 0.001*v(a)}}\n"
                f"R R1 a 0 R=1k\nC C1 a 0 C=1u\n.tran 2 1m\n")


def run(path: str) -> None:
    import circuitsim
    circuitsim.load(path).simulate()


if __name__ == "__main__":
    {"per-call": lambda: per_call(), "netlist": lambda: netlist(sys.argv[2]),
     "run": lambda: run(sys.argv[2])}[sys.argv[1]]()
