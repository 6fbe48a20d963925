"""How results, check reports and input errors look in a Jupyter notebook (their
``_repr_html_``): short HTML summaries. Every text that comes from a netlist or a run
(titles, names, messages) is escaped, so that a ``<`` in a title shows as written."""
from __future__ import annotations

from html import escape
from textwrap import dedent

# solver counters shown under a result, in this order, when the run reports them
STATS_SHOWN = (("nsteps", "steps"), ("nfail_err", "rejected steps"),
               ("nfail_conv", "Newton failures"), ("nlu", "LU factorisations"))
TABLE_HEIGHT = "24em"   # a long variable list scrolls instead of filling the notebook


def _table(header: list, rows: list) -> str:
    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>"
                   for row in rows)
    return (f'<div style="max-height: {TABLE_HEIGHT}; overflow: auto">'
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")


def _final(values) -> str:
    return f"{values[-1]:.6g}" if len(values) else ""


def result_html(res) -> str:
    """A Result: its title and case, status (and why it stopped), time span, points,
    the main solver counters, the swept parameters, then a table of the recorded
    variables with their SI units and final values."""
    label = " — ".join(escape(part) for part in (res.title, res.case) if part)
    parts = [f"<strong>{label or 'Result'}</strong>"]
    status = f"status: <strong>{escape(res.status)}</strong>"
    if res.message:
        status += f" — {escape(res.message)}"
    parts.append(status)
    span = (f"t = {res.t[0]:g} … {res.t[-1]:g} s, " if len(res.t) else "") + \
        f"{len(res.t)} points, {len(res.names)} variables"
    counters = [f"{res.stats[key]} {noun}" for key, noun in STATS_SHOWN if key in res.stats]
    parts.append(escape("; ".join([span] + counters)))
    if res.parameters:
        parts.append(escape("parameters (SI): " + ", ".join(
            f"{name} = {value:.6g}" for name, value in res.parameters.items())))
    rows = [(name, res.units.get(name, ""), _final(res.data[:, i]))
            for i, name in enumerate(res.names)]
    return ("<div>" + "".join(f"<p>{p}</p>" for p in parts)
            + _table(["variable", "unit (SI)", "final value"], rows) + "</div>")


def check_html(report) -> str:
    """A CheckReport: the summary ``circuitsim check`` prints, then its notes and
    warnings."""
    lines = report.lines()
    parts = [f"<p><strong>{escape(lines[0])}</strong></p>",
             "<pre>" + escape(dedent("\n".join(lines[1:]))) + "</pre>"]
    items = [f"note: {note}" for note in report.notes]
    items += [f"warning: {loc}: {message}" if loc else f"warning: {message}"
              for message, loc in report.warnings]
    if items:
        parts.append("<ul>" + "".join(f"<li>{escape(item)}</li>" for item in items)
                     + "</ul>")
    return "<div>" + "".join(parts) + "</div>"


def error_html(source: str, error: Exception) -> str:
    """An input error in place of a summary: where, then the message as the command line
    prints it (the source line and the caret under the column)."""
    return (f"<div><p><strong>{escape(source)}</strong>: the netlist does not check</p>"
            f"<pre>{escape(str(error))}</pre></div>")
