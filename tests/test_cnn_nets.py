"""cnn-bot networks: the thesis's parameter counts, the BN-axis quirk, checkpoints."""
from __future__ import annotations

import pytest
import torch

from cnn.nets import GaoNet, NetConfig, keras_param_count, load_checkpoint, save_checkpoint
from game.errors import ModelFileError


@pytest.mark.parametrize(
    "planes, fc300, total, frozen",
    [
        (56, True, 928_058, 612),  # T Fig 4.2: total 928,058, non-trainable 612
        (68, False, 343_158, 12),  # T Fig 6.1
        (86, False, 361_158, 12),  # spec §3.4, derived (T§6.4 reading)
        (86, True, 958_058, 612),  # spec §3.4, derived (P§V reading)
    ],
)
def test_keras_parameter_counts(planes, fc300, total, frozen):
    net = GaoNet(NetConfig(in_planes=planes, fc300=fc300))
    assert keras_param_count(net) == (total, frozen)


def test_m56_trainable_count_and_layer_shapes():
    net = GaoNet(NetConfig(model="m56", in_planes=56, fc300=True))
    assert sum(p.numel() for p in net.parameters()) == 927_446  # T Fig 4.2 "trainable"
    convs = [m for m in net.modules() if isinstance(m, torch.nn.Conv2d)]
    assert [c.weight.numel() + c.bias.numel() for c in convs] == [56_100, 100_100, 100_100]
    x = torch.zeros(2, 56, 34, 4)
    shapes = []
    h = x
    for layer in net.layers:
        h = layer(h)
        if isinstance(layer, torch.nn.Conv2d):
            shapes.append(tuple(h.shape[1:]))
    assert shapes == [(100, 30, 3), (100, 26, 2), (100, 22, 1)]


def test_width_batch_norm_normalises_each_copy_column():
    net = GaoNet(NetConfig(in_planes=4, fc300=False, dropout=0.0))
    net.train()
    bn = net.layers[2]
    x = torch.randn(64, 4, 34, 4) * 3 + 5
    y = bn(torch.relu(net.layers[0](x)))
    # per width index: mean ~0, var ~1 over (batch, filters, rows)
    for w in range(3):
        col = y[..., w]
        assert abs(col.mean().item()) < 1e-4
        assert abs(col.var(unbiased=False).item() - 1) < 1e-2
    # whereas single filters are not normalised on their own
    assert max(abs(y[:, f].mean().item()) for f in range(100)) > 0.05


@pytest.mark.parametrize("task, classes", [("discard", 34), ("pon", 2), ("chi", 4), ("riichi", 2)])
def test_heads_and_checkpoint_round_trip(tmp_path, task, classes):
    net = GaoNet(NetConfig(task=task, in_planes=87 if task in ("pon", "chi") else 86))
    net.eval()
    x = torch.rand(3, net.config.in_planes, 34, 4)
    ref = net(x)
    assert ref.shape == (3, classes)
    path = tmp_path / f"{task}.pt"
    save_checkpoint(net, path, meta={"note": "test"})
    again = load_checkpoint(path, task=task)
    assert again.config == net.config
    assert torch.allclose(again(x), ref)
    half = tmp_path / "half.pt"
    save_checkpoint(net, half, half=True)
    assert torch.allclose(load_checkpoint(half)(x), ref, atol=5e-2)


def test_bad_checkpoints_name_the_file(tmp_path):
    missing = tmp_path / "nope.pt"
    with pytest.raises(ModelFileError, match="nope.pt"):
        load_checkpoint(missing)
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(ModelFileError, match="junk.pt"):
        load_checkpoint(junk)
    net = GaoNet(NetConfig(in_planes=56))
    path = tmp_path / "wrong.pt"
    save_checkpoint(net, path)
    with pytest.raises(ModelFileError, match="wrong.pt"):
        load_checkpoint(path, task="pon")
    blob = torch.load(path, weights_only=True)
    blob["config"]["in_planes"] = 86  # weights no longer fit the config
    torch.save(blob, path)
    with pytest.raises(ModelFileError, match="wrong.pt"):
        load_checkpoint(path)
