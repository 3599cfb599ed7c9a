"""The review as one self-contained HTML page (``python -m player.review ... --out x.html``).

No script, no network, no external file: tiles are drawn as text in coloured boxes by CSS, so
the page opens offline on a phone as on a desktop. Per decision: the hand (the drawn tile set
apart; at the seat's own turn each tile over its deal-in chance if discarded now, coloured
from green to red), the four rivers (riichi tile marked, called tiles faded), the melds and dora
indicators, and every candidate with its expected final rank and endings, the recorded action
and the best marked.
"""
from __future__ import annotations

from html import escape

from player.review import describe, fmt

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;max-width:960px;padding:8px;
color:#222;background:#fafafa;font-size:15px}
h1{font-size:1.3em}h2{font-size:1.1em;margin:.3em 0}
table{border-collapse:collapse;margin:4px 0;font-size:.9em}td,th{padding:2px 6px;text-align:right;border-bottom:1px solid #ddd}
th{background:#eee}td:first-child,th:first-child{text-align:left}
.t{display:inline-block;min-width:1.5em;padding:1px 2px;margin:1px;border:1px solid #999;border-radius:3px;
background:#fff;text-align:center;font-weight:600;font-size:.9em}
.m{color:#b22}.p{color:#15a}.s{color:#182}.z{color:#333}.r{background:#fdd}.drawn{margin-left:8px}
.called{opacity:.35}.rii{transform:rotate(90deg);margin:1px 5px}.tsumogiri{background:#eee}
.card{background:#fff;border:1px solid #ccc;border-radius:6px;padding:6px;margin:8px 0;overflow-x:auto}
.bad{border-left:6px solid #c33}.ok{border-left:6px solid #3a3}.nv{border-left:6px solid #aaa}
tr.actual td{font-weight:700}tr.best td:first-child::after{content:" \\2605"}
.small{color:#666;font-size:.85em}.river{margin:2px 0}
details summary{cursor:pointer;font-weight:600;margin:6px 0}
.hc{display:inline-flex;flex-direction:column;align-items:center;vertical-align:top}
.di{font-size:.7em;min-width:2.1em;text-align:center;border-radius:2px;margin:0 1px}
.d0{background:#cfc}.d1{background:#ffc}.d2{background:#fd9}.d3{background:#f99}
@media (max-width:600px){body{font-size:14px;padding:4px}td,th{padding:1px 3px}table{font-size:.8em}
.t{min-width:1.2em;font-size:.8em;margin:0 1px}.card{padding:4px}.di{min-width:1.7em;font-size:.65em}}
"""
#: Deal-in chances from which a tile's cell turns yellow, orange and red (below: green).
DEAL_IN_LEVELS = (0.02, 0.05, 0.10)
_SUIT = {"m": "m", "p": "p", "s": "s"}
_HONOR = {"E": "E", "S": "S", "W": "W", "N": "N", "P": "Wh", "F": "Gr", "C": "Rd"}
_SEAT = ("E", "S", "W", "N")


def tile(name: str, extra: str = "") -> str:
    """One tile as a coloured box: ``5m`` red-ish for manzu, ``Rd`` for chun; red fives shaded."""
    if name in _HONOR:
        label, cls = _HONOR[name], "z"
    else:
        label, cls = name[0] + name[1], _SUIT.get(name[1], "z")
    if name.endswith("r"):
        cls += " r"
    return f'<span class="t {cls} {extra}">{escape(label)}</span>'


def _tiles(names: list[str]) -> str:
    return "".join(tile(n) for n in names)


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.1f}%"


def deal_in_by_tile(e: dict) -> dict[str, float]:
    """The deal-in chance of discarding each tile of the hand at a decision ``e``, by mjai name
    without the red mark (both fives of a kind share it); empty when no discard is legal."""
    return {a["action"]["pai"].rstrip("r"): a["deal_in"] for a in e["actions"]
            if a["action"]["type"] == "dahai" and a["deal_in"] is not None}


def _hand_tile(name: str, deal_in: dict[str, float], extra: str = "") -> str:
    """A hand tile, over its deal-in cell when the decision is a discard."""
    x = deal_in.get(name.rstrip("r"))
    if x is None:
        return tile(name, extra)
    level = sum(x >= lim for lim in DEAL_IN_LEVELS)
    return (f'<span class="hc {extra}">{tile(name)}<span class="di d{level}" '
            f'title="deal-in if discarded">{100 * x:.1f}</span></span>')


def _table_html(t: dict, names: list[str], seat: int, deal_in: dict[str, float]) -> str:
    hand = list(t["hand"])
    drawn = ""
    if t["drawn"] is not None and t["drawn"] in hand:
        hand.remove(t["drawn"])
        drawn = _hand_tile(t["drawn"], deal_in, "drawn")
    legend = ' <span class="small">(under each tile: % deal-in if discarded now)</span>' if deal_in else ""
    rows = [f'<div>hand: {"".join(_hand_tile(n, deal_in) for n in hand)}{drawn}'
            + "".join(" | " + _tiles(m) for m in t["melds"][seat])
            + f' <span class="small">dora ind. {_tiles(t["dora_indicators"])}</span>{legend}</div>']
    for s in range(4):
        wind = _SEAT[(s - t["dealer"]) % 4]
        river = "".join(tile(d["pai"], " ".join(c for c, on in (("called", d["called"]), ("rii", d["riichi"]),
                                                                   ("tsumogiri", d["tsumogiri"])) if on))
                        for d in t["rivers"][s])
        melds = "".join(" | " + _tiles(m) for m in t["melds"][s]) if s != seat else ""
        who = escape(names[s] or f"seat {s}") + (" (you)" if s == seat else "")
        rows.append(f'<div class="river"><span class="small">{wind} {who} {t["scores"][s]}'
                    f'{" riichi" if t["riichi"][s] else ""}:</span> {river}{melds}</div>')
    return "".join(rows)


def _candidates(e: dict) -> str:
    head = "<tr><th>action</th><th>E[rank]</th><th>win</th><th>deal-in now</th><th>lose</th><th>other wins</th><th>washout</th><th>fold</th></tr>"
    order = sorted(range(len(e["actions"])), key=lambda i: (e["actions"][i]["expected_rank"] is None,
                                                             e["actions"][i]["expected_rank"] or 0.0))
    rows = []
    for i in order:
        a = e["actions"][i]
        cls = " ".join(c for c, on in (("actual", i == e["actual"]), ("best", i == e["best"])) if on)
        en = a["endings"] or {}
        wash = en["tenpai_washout"] + en["noten_washout"] if en else None
        rank = "not valued" if a["expected_rank"] is None else f"{a['expected_rank']:.3f}"
        label = (escape(describe(a["action"])) + (" drawn" if a["action"].get("tsumogiri") else "")
                 + (" (played)" if i == e["actual"] else ""))
        rows.append(f'<tr class="{cls}"><td>{label}</td><td>{rank}</td><td>{_pct(en.get("win"))}</td>'
                    f'<td>{_pct(a["deal_in"])}</td><td>{_pct(en.get("lose"))}</td><td>{_pct(en.get("other_win"))}</td>'
                    f'<td>{_pct(wash)}</td><td>{_pct(en.get("fold"))}</td></tr>')
    return f"<table>{head}{''.join(rows)}</table>"


def _card(e: dict, names: list[str], seat: int) -> str:
    state = "nv" if e["agree"] is None else ("ok" if e["agree"] or e["loss"] == 0.0 else "bad")
    verdict = ("agrees" if e["agree"] else "differs at equal value" if state == "ok"
               else "differs" if state == "bad" else f"not valued ({e['method']})")
    loss = "" if e["loss"] is None else f", loss {e['loss']:.4f} rank"
    body = _candidates(e) if e["best"] is not None else (
        f'<div class="small">played {escape(describe(e["recorded"]))}</div>')
    return (f'<div class="card {state}" id="d{e["event_index"]}"><h2>{e["kyoku"]}, {e["tiles_left"]} tiles left, '
            f'shanten {e["shanten"]}: {verdict}{loss}</h2>{_table_html(e["table"], names, seat, deal_in_by_tile(e))}'
            f'{body}</div>')


def _summary_table(rev: dict) -> str:
    rows = "".join(f'<tr><td><a href="#h-{h["kyoku"]}">{h["kyoku"]}</a></td><td>{h["valued"]}</td>'
                   f'<td>{fmt(h["agreement"], 3)}</td><td>{fmt(h["mean_loss"], 4)}</td><td>{h["total_loss"]:.3f}</td></tr>'
                   for h in rev["hands"])
    s = rev["summary"]
    rows += (f'<tr><th>game</th><th>{s["valued"]}</th><th>{fmt(s["agreement"], 3)}</th>'
             f'<th>{fmt(s["mean_loss"], 4)}</th><th>{s["total_loss"]:.3f}</th></tr>')
    return ("<table><tr><th>hand</th><th>valued</th><th>agreement</th><th>mean loss</th><th>total loss</th></tr>"
            f"{rows}</table>")


def html_report(rev: dict) -> str:
    """The page of a review (:func:`player.review.review`'s result, maybe filtered)."""
    s, seat, names = rev["summary"], rev["seat"], rev["names"]
    who = escape(rev["name"] or f"seat {seat}")
    worst = "".join(f'<li><a href="#d{w["event_index"]}">{w["kyoku"]}, event {w["event_index"]}</a>: '
                    f'loss {w["loss"]:.4f}</li>' for w in s["worst"])
    methods = ", ".join(f"{m} {n}" for m, n in sorted(s["by_method"].items()))
    hands = []
    for h in rev["hands"]:
        cards = "".join(_card(e, names, seat) for e in rev["decisions"] if e["kyoku"] == h["kyoku"])
        agreement = "-" if h["agreement"] is None else f"{h['agreement']:.3f}"
        hands.append(f'<details open id="h-{h["kyoku"]}"><summary>{h["kyoku"]}: agreement {agreement}, '
                     f'total loss {h["total_loss"]:.3f}</summary>{cards or "<p class=small>no decision listed</p>"}</details>')
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Review: {who}</title><style>{_CSS}</style></head><body>
<h1>Review of {who} (seat {seat}), {"hanchan" if rev["hanchan"] else "east-only"}</h1>
<p class="small">{escape(str(rev.get("record", "")))}. Values are the MDP player's expected final rank (1 best, 4 worst)
after each action; loss = expected rank of the played action minus the best's. {s["valued"]} decisions valued of
{s["decisions"]} ({methods}), {rev["forced"]} forced.</p>
{_summary_table(rev)}
<h2>Worst decisions</h2><ol>{worst or "<li>none</li>"}</ol>
{"".join(hands)}
</body></html>
"""


def html_index(index: dict) -> str:
    """The page of a batch review: a row per report (record, seat, player, decisions valued,
    agreement, mean loss, a link), the pooled figures and the records that failed."""
    rows = "".join(
        f'<tr><td><a href="{escape(r["report"])}">{escape(r["record"].rsplit("/", 1)[-1])}</a></td>'
        f'<td>{r["seat"]}</td><td>{escape(r["name"] or "")}</td><td>{r["valued"]}</td>'
        f'<td>{fmt(r["agreement"], 3)}</td><td>{fmt(r["mean_loss"], 4)}</td></tr>' for r in index["reports"])
    failed = "".join(f'<li>{escape(f["error"])}</li>' for f in index["failed"])
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Reviews</title><style>{_CSS}</style></head><body>
<h1>Reviews: {len(index["reports"])} reports</h1>
<p>All reports: {index["valued"]} decisions valued, agreement {fmt(index["agreement"], 3)},
mean loss {fmt(index["mean_loss"], 4)} rank.</p>
<table><tr><th>record</th><th>seat</th><th>player</th><th>valued</th><th>agreement</th><th>mean loss</th></tr>
{rows}</table>
{f'<h2>Failed</h2><ul>{failed}</ul>' if failed else ""}
</body></html>
"""
