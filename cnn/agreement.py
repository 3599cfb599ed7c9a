"""Agreement of cnn-bot's nets with the choices in game records (T§4.4, §6.4, §7.7; P§VII).

    python -m cnn.agreement --records 'data/phoenix/mjlog/*.mjlog' [--models DIR] [--json]
    python -m cnn.agreement --heldout [--json]   # the 14 phoenix games cnn-bot never trains on

* discard: top-1/2/3 agreement of the discard net with the tile kind actually discarded,
  ranked among the legal kinds (as the bot plays); the unmasked top-1 and the share of
  unmasked argmaxes that are legal (the thesis's "100%" check, T§4.5) are given too;
* pon / riichi: accuracy, precision and recall of "call" / "declare" (positive class);
* chi: 4-class accuracy (no chi, left, middle, right) and precision / recall of chi vs no chi;
* calls: call vs pass accuracy over the pon and chi samples pooled;
* kan: the same for the closed-kan rule (there is no kan net, T§7.3.3).
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from cnn.bot_data import build_dataset, cache_path, load_or_build, unpack
from cnn.encoders import N_PLANES
from cnn.policy import CnnPolicy, load_nets
from cnn.splits import PHOENIX_MJLOG, game_name, split_heldout
from game.cli import reports_errors
from game.errors import MahjongError


def binary_scores(label: np.ndarray, pred: np.ndarray) -> dict[str, float]:
    """Accuracy, precision and recall of the positive class (nan where undefined)."""
    label, pred = label.astype(bool), pred.astype(bool)
    tp = int((label & pred).sum())
    n = len(label)
    nan = float("nan")
    return {
        "accuracy": float((label == pred).mean()) if n else nan,
        "precision": tp / int(pred.sum()) if pred.sum() else nan,
        "recall": tp / int(label.sum()) if label.sum() else nan,
        "n": n,
    }


def _probs(policy: CnnPolicy, task: str, packed: np.ndarray, batch: int = 1024) -> np.ndarray:
    """Softmax outputs of one net over bit-packed full planes."""
    if not len(packed):
        return np.zeros((0, policy.nets[task].config.n_classes), dtype=np.float32)
    everything = list(range(N_PLANES))  # policy.probs picks the net's own channels
    return np.concatenate([policy.probs(task, unpack(packed[i : i + batch], everything))
                           for i in range(0, len(packed), batch)])


def _acts(policy: CnnPolicy, task: str, packed: np.ndarray) -> np.ndarray:
    """The class the bot plays: 0 unless P(act) passes the net's threshold, then the likeliest
    acting class (as :class:`cnn.policy.CnnPolicy` decides; chi here over all three classes)."""
    p = _probs(policy, task, packed)
    act = 1.0 - p[:, 0] > policy.nets[task].config.threshold
    return np.where(act, 1 + p[:, 1:].argmax(1), 0)


def agreement(policy: CnnPolicy, data: dict[str, np.ndarray]) -> dict:
    """All metrics as one flat dict (keys of ``--json``)."""
    res: dict = {}
    y = data["discard_y"].astype(np.int64)
    p = _probs(policy, "discard", data["discard_x"])
    mask = data["discard_mask"]
    if len(y):
        masked = np.where(mask, p, -1.0)
        order = np.argsort(-masked, axis=1)
        for k in (1, 2, 3):
            res[f"discard_top{k}"] = float((order[:, :k] == y[:, None]).any(1).mean())
        raw = p.argmax(1)
        res["discard_top1_unmasked"] = float((raw == y).mean())
        res["discard_legal_rate"] = float(mask[np.arange(len(y)), raw].mean())
    else:
        for k in ("discard_top1", "discard_top2", "discard_top3", "discard_top1_unmasked",
                  "discard_legal_rate"):
            res[k] = float("nan")
    res["discard_n"] = int(len(y))
    for task in ("pon", "riichi"):
        lab = data[f"{task}_y"].astype(np.int64)
        pred = _acts(policy, task, data[f"{task}_x"]) if len(lab) else lab
        for key, val in binary_scores(lab, pred).items():
            res[f"{task}_{key}"] = val
    lab = data["chi_y"].astype(np.int64)
    pred = _acts(policy, "chi", data["chi_x"]) if len(lab) else lab
    chi = binary_scores(lab > 0, pred > 0)
    res["chi_accuracy"] = float((lab == pred).mean()) if len(lab) else float("nan")
    res["chi_binary_accuracy"] = chi["accuracy"]
    res["chi_precision"], res["chi_recall"], res["chi_n"] = chi["precision"], chi["recall"], chi["n"]
    # call vs pass over every offer sample, pon and chi pooled (the "call decisions")
    parts = [(res["pon_accuracy"], res["pon_n"]), (chi["accuracy"], chi["n"])]
    n_calls = res["pon_n"] + chi["n"]
    hits = sum(acc * n for acc, n in parts if n)
    res["calls_accuracy"] = hits / n_calls if n_calls else float("nan")
    kan = data["kan"]
    for key, val in binary_scores(kan[:, 0], kan[:, 1]).items():
        res[f"kan_{key}"] = val
    res["decisions"] = int(sum(res[f"{t}_n"] for t in ("discard", "pon", "chi", "riichi", "kan")))
    return res


@reports_errors
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cnn.agreement", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", default=None,
                    help="glob (or comma-separated globs) of record files, any format "
                         "(default with --heldout: the shared phoenix mjlog files)")
    ap.add_argument("--heldout", action="store_true",
                    help="only the phoenix games held out of training (cnn.splits); their names "
                         "are printed")
    ap.add_argument("--models", default=None, help="folder with discard/pon/chi/riichi.pt (default: shipped)")
    ap.add_argument("--thesis-sampling", action="store_true", help="sample as the thesis (see cnn.bot_data)")
    ap.add_argument("--dataset", default=None,
                    help="cache the built samples in this .npz (X means X.npz)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    from game.records import iter_record_files

    if args.records is None:
        if not args.heldout:
            raise MahjongError("give --records GLOB, or --heldout for the held-out phoenix games")
        args.records = str(PHOENIX_MJLOG / "*")
    paths = iter_record_files(args.records if "," not in args.records else args.records.split(","))
    if args.heldout:
        paths = split_heldout(paths)[1]
    if not paths:
        among = " among the held-out games" if args.heldout else ""
        raise MahjongError(f"no record files match {args.records!r}{among}")
    policy = CnnPolicy(load_nets(args.models))
    progress = not (args.quiet or args.json)
    if args.dataset:
        data = load_or_build(paths, cache_path(args.dataset), thesis=args.thesis_sampling, progress=progress)
    else:
        data = build_dataset(paths, thesis=args.thesis_sampling, progress=progress)
    res = agreement(policy, data)
    res["games"] = [game_name(p) for p in paths] if args.heldout else len(paths)
    if res["decisions"] == 0:  # every metric would be undefined
        raise MahjongError(f"the {len(paths)} record file(s) of {args.records!r} hold no decision "
                           f"of a followed seat to compare")
    if args.json:  # strict JSON: undefined ratios (nothing predicted positive) are null
        print(json.dumps({k: None if isinstance(v, float) and v != v else v for k, v in res.items()}))
    else:
        for key, val in res.items():
            if key == "games" and isinstance(val, list):
                print(f"{key:24s} {len(val)} held out: {', '.join(val)}")
            else:
                print(f"{key:24s} {val:.4f}" if isinstance(val, float) else f"{key:24s} {val}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
