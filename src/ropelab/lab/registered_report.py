"""The registered analysis as text: the verdict table of ``lab/PLAN.md`` section 5 for every seed
set, the secondary measures, where the unseen seeds' verdicts differ, and the reproducibility
check. Formats the dict of :func:`ropelab.lab.registered_analysis.analyse_all`; computes
nothing."""

from __future__ import annotations

from typing import Any

__all__ = ["format_interval", "format_report"]

_SUBSETS = (("all", "seeds analysed"), ("unseen", "seeds 3-9 (unseen)"), ("seen", "seeds 0-2"))


def format_interval(interval: list[float | None] | None, digits: int = 3, sign: bool = True) -> str:
    """``[lo, hi]`` with ``digits`` decimals (and a sign), ``[-]`` when an end is missing."""
    if interval is None or interval[0] is None or interval[1] is None:
        return "[-]"
    f = f"{'+' if sign else ''}.{digits}f"
    return f"[{interval[0]:{f}}, {interval[1]:{f}}]"


def _num(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:+.{digits}f}"


def _verdict_rows(result: dict[str, Any]) -> list[str]:
    lines = []
    for row in result["verdicts"]:
        if isinstance(row["mean"], dict):
            body = "  ".join(
                f"{rule} {_num(row['mean'][rule])} {format_interval(row['interval'][rule])}"
                f" t {format_interval(row['t'][rule])}"
                for rule in row["mean"]
            )
        else:
            body = f"{_num(row['mean'])} {format_interval(row['interval'])}"
            if "interval_95" in row:
                body += f" 95% {format_interval(row['interval_95'])}"
            body += f" t {format_interval(row['t'])}"
        lines.append(f"  {row['id']:<18} {body:<70} {row['verdict']}")
    return lines


def _secondary(result: dict[str, Any]) -> list[str]:
    lines = ["  supported length (full resolution), mean over seeds [bootstrap 95%]:"]
    for rule, models in result["supported_length"].items():
        cells = [
            f"{m} {s['mean']:.0f} {format_interval(s['boot'], 0, sign=False)}"
            + (f" ({s['censored']} cens.)" if s["censored"] else "")
            for m, s in models.items()
        ]
        lines.append(f"    {rule}: " + "; ".join(cells))
    for rule in ("registered", "original"):
        e, c = result["exponent"][rule], result["curvature"][rule]
        lines.append(
            f"  exponent ({rule}): {_num(e['mean'])} boot {format_interval(e['boot'])} "
            f"t {format_interval(e['t'])}, n = {e['n']}, censored points {e['censored_points']}"
            f"; curvature {_num(c['mean'])} boot {format_interval(c['boot'])}"
        )
    for cid, c in result["comparisons"].items():
        length = c["length"]
        lines.append(
            f"  length {cid}: registered {_num(length['registered']['mean'], 0)} "
            f"{format_interval(length['registered']['boot_family'], 0)}, original "
            f"{_num(length['original']['mean'], 0)} "
            f"{format_interval(length['original']['boot_family'], 0)} -> {length['verdict']}"
        )
    return lines


def format_report(analysis: dict[str, Any]) -> str:
    """The report printed by ``python -m ropelab.lab.registered_analysis``."""
    lines = [
        f"registered analysis (lab/PLAN.md); seeds analysed {analysis['seeds_analysed']}"
        + ("" if analysis["complete"] else f"; INCOMPLETE: seeds {analysis['missing_seeds']}"),
        "verdicts from the bootstrap over seeds and windows (small-base rows: Bonferroni a/7,"
        " then the 95% one; others 95%); t: the t interval over seeds, windows fixed",
    ]
    for key, label in _SUBSETS:
        result = analysis["subsets"][key]
        if result is None:
            continue
        lines.append(f"\n{label}: {result['seeds']}")
        lines += _verdict_rows(result)
        lines += _secondary(result)
    lines.append("\nverdicts that differ from the analysed seeds':")
    lines += [
        f"  {d['subset']}: {d['id']}: all {d['all']}, {d['subset']} {d[d['subset']]}"
        for d in analysis["verdict_differences"]
    ] or ["  none"]
    lines.append("\nreproducibility (re-run - committed):")
    lines += [
        f"  seed {r['seed']} {r['model']:<8} length {r['length_committed']:.0f} -> "
        f"{r['length_rerun']:.0f} ({r['length_difference']:+.0f}); L_past "
        f"{r['L_past_committed']:.4f} -> {r['L_past_rerun']:.4f} ({r['L_past_difference']:+.4f})"
        for r in analysis["reproducibility"]
    ] or ["  no re-run recorded yet"]
    return "\n".join(lines)
